import HealthPort
import SQLiteStore

/// Records with their metadata and heart-rate beats, and correlations with the records inside them.
extension SQLiteLoader {
  func insert(_ record: Record) throws {
    let sourceID = try self.sourceID(record.sourceName, record.sourceVersion, record.deviceString, record.sourceProduct)
    let hash = ContentHash.of(record)
    var b = Binder(s.insertRecord, text)
    try b.add(person)
    try addMeasurement(to: &b, record, sourceID: sourceID)
    try b.add(Self.creationKey(record.creationDate))
    try b.add(date: record.startDate, localDay: true)
    try b.add(date: record.endDate)
    try b.add(hash)
    try b.add(result.exportID)
    let added = try b.run() == 1
    personCheck?.note(record.startDate, added: added)
    guard added else {
      var seen = try seen(s.seenRecord, record, type: record.type, sourceID: sourceID, hash: hash, localDay: true)
      try seen.run()
      return
    }
    let id = rowAdded(to: .records)
    try insertExtras(record.extraAttributes, text: record.text, owner: "record", id)
    try insertChildren(record.children, of: StoredParent(kind: .record, id: id))
  }

  /// A Record's columns from its type to its creation date, as `records` and `correlation_records`
  /// both order them: type, source id, unit, the value as written and as a number, creation date.
  func addMeasurement(to b: inout Binder, _ record: Record, sourceID: Int64) throws {
    try b.add(record.type)
    try b.add(sourceID)
    try b.add(record.unit)
    try b.add(record.value)
    try b.add(record.value.flatMap(DecimalText.double))
    try b.add(date: record.creationDate)
  }

  /// A beat's row of `hrv_beats` (one of a multi-row insert's, or a statement's only one).
  func addBeat(to b: inout Binder, _ beat: InstantaneousBeatsPerMinute, recordID: Int64, _ position: Int) throws {
    try b.add(person)
    try b.add(recordID)
    try b.add(position)
    try b.add(beat.bpm)
    try b.add(beat.time)
  }

  /// The beats of a list that holds nothing else and whose beats have no unknown attributes or
  /// children (nil otherwise): those need no row id of their own.
  static func plainBeats(_ list: HeartRateVariabilityList) -> [InstantaneousBeatsPerMinute]? {
    var beats: [InstantaneousBeatsPerMinute] = []
    beats.reserveCapacity(list.children.count)
    for item in list.children {
      guard case .beat(let beat) = item, beat.extraAttributes.isEmpty, beat.extraChildren.isEmpty else { return nil }
      beats.append(beat)
    }
    return beats
  }

  /// Beats per multi-row INSERT.
  static let beatsPerInsert = 32

  /// Inserts plain beats (see ``plainBeats(_:)``) up to ``beatsPerInsert`` rows per statement:
  /// a heart-rate-variability record has dozens, and one statement per beat costs SQLite as much
  /// again in statement overhead as in inserting. The rows and their ids are the same as one by one.
  func insertBeats(_ beats: [InstantaneousBeatsPerMinute], recordID: Int64) throws {
    var start = 0
    while start < beats.count {
      let rows = min(Self.beatsPerInsert, beats.count - start)
      let statement: SQLiteStatement
      if let prepared = beatInserts[rows] {
        statement = prepared
      } else {
        let tuple = "(?, ?, ?, ?, ?)"
        statement = try db.prepare(
          "INSERT INTO hrv_beats (person, record_id, position, bpm, time) VALUES "
            + Array(repeating: tuple, count: rows).joined(separator: ", "))
        beatInserts[rows] = statement
      }
      var b = Binder(statement, text)
      for position in start..<(start + rows) { try addBeat(to: &b, beats[position], recordID: recordID, position) }
      try b.run()
      count(.hrvBeats, rows)
      start += rows
    }
  }

  func insert(_ correlation: Correlation) throws {
    let sourceID = try self.sourceID(
      correlation.sourceName, correlation.sourceVersion, correlation.deviceString, correlation.sourceProduct)
    let hash = ContentHash.of(correlation)
    var b = Binder(s.insertCorrelation, text)
    try b.add(person)
    try b.add(correlation.type)
    try addSourceAndDates(to: &b, correlation, sourceID: sourceID)
    try b.add(hash)
    try b.add(result.exportID)
    guard try b.run() == 1 else {
      var seen = try seen(s.seenCorrelation, correlation, type: correlation.type, sourceID: sourceID, hash: hash)
      if let id = try returnedID(&seen) { try refreshDates(of: correlation, id: id) }
      return
    }
    let id = rowAdded(to: .correlations)
    try insertExtras(correlation.extraAttributes, text: correlation.text, owner: "correlation", id)
    try insertChildren(correlation.children, of: StoredParent(kind: .correlation, id: id))
  }

  func insertCorrelationRecord(_ record: Record, correlationID: Int64, _ position: Int) throws {
    let sourceID = try self.sourceID(record.sourceName, record.sourceVersion, record.deviceString, record.sourceProduct)
    // The same Record at top level (the export writes both), if it is loaded already.
    var find = Binder(s.findRecord, text)
    try addKey(to: &find, record, type: record.type, sourceID: sourceID)
    try find.add(ContentHash.of(record))
    let recordID: Int64? = try s.findRecord.step() ? s.findRecord.int64(0) : nil
    s.findRecord.reset()

    var b = Binder(s.insertCorrelationRecord, text)
    try b.add(person)
    try b.add(correlationID)
    try b.add(position)
    try b.add(recordID)
    try addMeasurement(to: &b, record, sourceID: sourceID)
    try b.add(date: record.startDate)
    try b.add(date: record.endDate)
    let id = try insertRow(&b, into: .correlationRecords)
    try insertExtras(record.extraAttributes, text: record.text, owner: "correlation_record", id)
    try insertChildren(record.children, of: StoredParent(kind: .correlationRecord, id: id))
  }

  static func node(of list: HeartRateVariabilityList) -> ElementNode {
    var node = ElementNode(name: "HeartRateVariabilityMetadataList", attributes: list.extraAttributes)
    for item in list.children {
      switch item {
      case .beat(let beat):
        node.children.append(
          ElementNode(
            name: "InstantaneousBeatsPerMinute",
            attributes: [Attribute("bpm", beat.bpm), Attribute("time", beat.time)] + beat.extraAttributes,
            children: beat.extraChildren))
      case .other(let child): node.children.append(child)
      }
    }
    return node
  }
}
