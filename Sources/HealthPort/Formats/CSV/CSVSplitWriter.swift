#if canImport(Glibc)
  import Glibc
#endif

/// Writes an export as a folder of CSV tables (`convert --to csv --split -o DIR`) that together
/// hold the whole export, so that it can be reassembled exactly (see `CSVSplitSchema` and
/// the README's "The whole export: `convert --to csv --split -o DIR`").
///
/// The folder is a ``FolderOutput``: built in a temporary sibling and made to appear by
/// ``end(_:)`` with its manifest; if anything fails before, or the writer is dropped without
/// reaching the end, nothing new appears at the target. Each table's file is registered in
/// ``TemporaryFiles`` meanwhile, so that an interrupted process removes it too.
package final class CSVSplitWriter: ExportSink {
  /// Descriptors the writer keeps open at once; other tables reopen their file per flush.
  package static let openFileBudget = 48

  package var directory: String { folder.target }
  private let folder: FolderOutput
  /// Where the tables are written until the end.
  private var temporaryDirectory: String { folder.root }
  private var tables: [CSVTableFile?]
  private var recordTables: [String: CSVTableFile] = [:]
  private var recordTablesByType: [String: CSVTableFile] = [:]
  private var lastType = ""
  private var lastTable: CSVTableFile?
  private var nextID = 1
  private var budget = CSVSplitWriter.openFileBudget
  private var finished = false
  private var scratch: [UInt8] = []
  private var dates = CSVSplitDates()
  private var recordFields = CSVRecordFields()
  private var header: ExportHeader?
  /// The id of the `Workout` being written, for the `workout_id` column of its descendants.
  private var currentWorkout: Int?
  /// `route_points.csv`, `ecg_recordings.csv`, `ecg_samples.csv`.
  private let sideFiles: CSVSideFileTables

  /// Prepares the temporary folder. `protectedPath` (the input) may not be the target.
  package init(directory: String, protecting protectedPath: String? = nil) throws {
    folder = try FolderOutput(path: directory, protecting: protectedPath, writes: .split)
    tables = Array(repeating: nil, count: CSVSplitSchema.Table.allCases.count)
    sideFiles = CSVSideFileTables(folder: folder.root)
  }

  deinit { abort() }

  /// `error` naming the folder the user named rather than the temporary one.
  func describing(_ error: Error) -> Error { folder.describing(error) }

  /// Removes the temporary folder; nothing is left at the target.
  package func abort() {
    guard !finished else { return }
    finished = true
    folder.abort()
    forgetTemporaryFiles()
    tables.removeAll()
    recordTables.removeAll()
    recordTablesByType.removeAll()
    lastTable = nil
  }

  /// Unregisters the tables' files and the folder, once it was renamed into place or removed.
  private func forgetTemporaryFiles() {
    for table in tables.compactMap({ $0 }) + Array(recordTables.values) + sideFiles.files { table.forget() }
  }

  // MARK: ExportSink

  package func begin(_ header: ExportHeader) throws {
    self.header = header
    let table = self.table(.export)
    CSVEncoding.appendInteger(0, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    CSVEncoding.appendField(header.rootName, to: &table.buffer)
    // No value, nor its ISO and UTC forms.
    table.buffer.append(",,,,")
    CSVEncoding.appendField(header.locale, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    if let version = header.exportVersion { CSVEncoding.appendInteger(version, to: &table.buffer) }
    table.buffer.append(CSVEncoding.comma)
    scratch.removeAll(keepingCapacity: true)
    CSVMetadataJSON.appendPairs(header.rootAttributes.map { ($0.name, $0.value) }, to: &scratch)
    CSVEncoding.appendField(bytes: scratch, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    CSVEncoding.appendField(bytes: header.prolog, to: &table.buffer)
    try table.endRow(budget: &budget)
  }

  package func consume(_ element: ExportElement) throws {
    switch element {
    case .record(let record): try write(record, parent: nil)
    case .correlation(let correlation): try write(correlation)
    case .workout(let workout): try write(workout)
    case .exportDate(let date): try writeNode(date.node, parent: nil)
    case .me(let me): try writeNode(me.node, parent: nil)
    case .activitySummary(let summary): try writeNode(summary.node, parent: nil)
    case .clinicalRecord(let record): try writeNode(record.node, parent: nil)
    case .audiogram(let audiogram): try writeNode(audiogram.node, parent: nil)
    case .visionPrescription(let prescription): try writeNode(prescription.node, parent: nil)
    case .other(let node): try writeNode(node, parent: nil)
    }
  }

  /// Route points and ECG recordings go to their own tables (README, "Side-file tables").
  package var capabilities: SinkCapabilities { .sideFiles }

  package func consumeSideFile(_ event: SideFileEvent) throws { try sideFiles.consume(event, budget: &budget) }

  /// Flushes every table and moves the folder into place.
  package func end(_ report: ReadReport) throws {
    if header == nil { try begin(ExportHeader(prolog: [], rootAttributes: [])) }
    do {
      for table in tables.compactMap({ $0 }) + Array(recordTables.values) + sideFiles.files {
        try table.finish(budget: &budget)
      }
    } catch {
      abort()
      throw error
    }
    do {
      try folder.commit()
    } catch {
      abort()
      throw error
    }
    finished = true
    forgetTemporaryFiles()
  }

  // MARK: Tables

  private func table(_ kind: CSVSplitSchema.Table) -> CSVTableFile {
    if let table = tables[kind.rawValue] { return table }
    let table = CSVTableFile(
      path: temporaryDirectory + "/" + kind.fileName, header: kind.columns, hasWorkoutColumn: kind.hasWorkoutColumn)
    tables[kind.rawValue] = table
    return table
  }

  private func recordTable(for type: String) -> CSVTableFile {
    if let table = lastTable, type == lastType { return table }
    let table: CSVTableFile
    if let known = recordTablesByType[type] {
      table = known
    } else {
      let name = CSVSplitSchema.recordTableName(for: type)
      if let shared = recordTables[name.lowercased()] {
        table = shared
      } else {
        table = CSVTableFile(path: temporaryDirectory + "/" + name + ".csv", header: CSVSplitSchema.recordTableColumns)
        recordTables[name.lowercased()] = table
      }
      recordTablesByType[type] = table
    }
    lastType = type
    lastTable = table
    return table
  }

  /// Appends `id,` and, when the table has them, `parent_id,` and `workout_id,`; returns the new id.
  @inline(__always)
  private func startRow(_ table: CSVTableFile, parent: Int?, hasParent: Bool) -> Int {
    let id = nextID
    nextID += 1
    CSVEncoding.appendInteger(id, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    if hasParent {
      if let parent { CSVEncoding.appendInteger(parent, to: &table.buffer) }
      table.buffer.append(CSVEncoding.comma)
    }
    if table.hasWorkoutColumn {
      if let currentWorkout { CSVEncoding.appendInteger(currentWorkout, to: &table.buffer) }
      table.buffer.append(CSVEncoding.comma)
    }
    return id
  }

  // MARK: Typed elements

  private func write(_ record: Record, parent: Int?) throws {
    // No table has a column for text: such an element goes to `elements.csv` as an unknown one.
    if record.text != nil { return try writeNode(NodeEmitter.node { $0.emit(record) }, parent: parent) }
    let table = parent == nil ? recordTable(for: record.type) : self.table(.correlationRecords)
    let id = startRow(table, parent: parent, hasParent: parent != nil)
    recordFields.append(record, dates: &dates, to: &table.buffer)
    try table.endRow(budget: &budget)
    try writeExtras(record.extraAttributes, of: id)
    for child in record.children {
      switch child {
      case .metadata(let entry): try write(entry, parent: id)
      case .heartRateVariability(let list): try write(list, parent: id)
      case .other(let node): try writeNode(node, parent: id)
      }
    }
  }

  private func write(_ correlation: Correlation) throws {
    if correlation.text != nil { return try writeNode(NodeEmitter.node { $0.emit(correlation) }, parent: nil) }
    let table = self.table(.correlations)
    let id = startRow(table, parent: nil, hasParent: false)
    Self.appendFields(
      [
        correlation.type, correlation.sourceName, correlation.sourceVersion, correlation.sourceProduct,
        correlation.device,
      ], to: &table.buffer)
    appendDates(correlation.creationDate, correlation.startDate, correlation.endDate, to: &table.buffer)
    try table.endRow(budget: &budget)
    try writeExtras(correlation.extraAttributes, of: id)
    for child in correlation.children {
      switch child {
      case .metadata(let entry): try write(entry, parent: id)
      case .record(let record): try write(record, parent: id)
      case .other(let node): try writeNode(node, parent: id)
      }
    }
  }

  private func write(_ workout: Workout) throws {
    if workout.text != nil { return try writeNode(NodeEmitter.node { $0.emit(workout) }, parent: nil) }
    let table = self.table(.workouts)
    let id = startRow(table, parent: nil, hasParent: false)
    Self.appendFields(
      [
        workout.workoutActivityType, workout.duration, workout.durationUnit, workout.totalDistance,
        workout.totalDistanceUnit, workout.totalEnergyBurned, workout.totalEnergyBurnedUnit, workout.sourceName,
        workout.sourceVersion, workout.sourceProduct, workout.device,
      ], to: &table.buffer)
    appendDates(workout.creationDate, workout.startDate, workout.endDate, to: &table.buffer)
    try table.endRow(budget: &budget)
    try writeExtras(workout.extraAttributes, of: id)
    sideFiles.noteWorkout(id)
    currentWorkout = id
    defer { currentWorkout = nil }
    for child in workout.children {
      switch child {
      case .metadata(let entry): try write(entry, parent: id)
      case .event(let event): try write(event, parent: id)
      case .activity(let activity): try write(activity, parent: id)
      case .statistics(let statistics): try write(statistics, parent: id)
      case .route(let route): try write(route, parent: id)
      case .other(let node): try writeNode(node, parent: id)
      }
    }
  }

  private func write(_ event: WorkoutEvent, parent: Int) throws {
    let table = self.table(.workoutEvents)
    let id = startRow(table, parent: parent, hasParent: true)
    CSVEncoding.appendField(event.type, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    dates.append(event.date, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    Self.appendFields([event.duration, event.durationUnit], to: &table.buffer, trailingComma: false)
    try table.endRow(budget: &budget)
    try writeExtras(event.extraAttributes, of: id)
    for child in event.children {
      switch child {
      case .metadata(let entry): try write(entry, parent: id)
      case .other(let node): try writeNode(node, parent: id)
      }
    }
  }

  private func write(_ activity: WorkoutActivity, parent: Int) throws {
    let table = self.table(.workoutActivities)
    let id = startRow(table, parent: parent, hasParent: true)
    CSVEncoding.appendField(activity.uuid, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    dates.append(activity.startDate, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    dates.append(activity.endDate, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    Self.appendFields([activity.duration, activity.durationUnit], to: &table.buffer, trailingComma: false)
    try table.endRow(budget: &budget)
    if parent == currentWorkout { sideFiles.noteActivity(id, activity) }
    try writeExtras(activity.extraAttributes, of: id)
    for child in activity.children {
      switch child {
      case .metadata(let entry): try write(entry, parent: id)
      case .event(let event): try write(event, parent: id)
      case .statistics(let statistics): try write(statistics, parent: id)
      case .other(let node): try writeNode(node, parent: id)
      }
    }
  }

  private func write(_ statistics: WorkoutStatistics, parent: Int) throws {
    let table = self.table(.workoutStatistics)
    let id = startRow(table, parent: parent, hasParent: true)
    CSVEncoding.appendField(statistics.type, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    dates.append(statistics.startDate, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    dates.append(statistics.endDate, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    Self.appendFields(
      [statistics.average, statistics.minimum, statistics.maximum, statistics.sum, statistics.unit],
      to: &table.buffer, trailingComma: false)
    try table.endRow(budget: &budget)
    try writeExtras(statistics.extraAttributes, of: id)
    for node in statistics.extraChildren { try writeNode(node, parent: id) }
  }

  private func write(_ route: WorkoutRoute, parent: Int) throws {
    let table = self.table(.workoutRoutes)
    let id = startRow(table, parent: parent, hasParent: true)
    Self.appendFields([route.sourceName, route.sourceVersion, route.sourceProduct, route.device], to: &table.buffer)
    appendDates(route.creationDate, route.startDate, route.endDate, to: &table.buffer)
    try table.endRow(budget: &budget)
    sideFiles.noteRoute(id)
    try writeExtras(route.extraAttributes, of: id)
    for child in route.children {
      switch child {
      case .metadata(let entry): try write(entry, parent: id)
      case .fileReference(let reference):
        let references = self.table(.fileReferences)
        let referenceID = startRow(references, parent: id, hasParent: true)
        CSVEncoding.appendField(reference.path, to: &references.buffer)
        try references.endRow(budget: &budget)
        try writeExtras(reference.extraAttributes, of: referenceID)
        for node in reference.extraChildren { try writeNode(node, parent: referenceID) }
      case .location(let node), .other(let node): try writeNode(node, parent: id)
      }
    }
    let locations = route.children.compactMap { if case .location(let node) = $0 { node } else { nil } }
    if !locations.isEmpty { try sideFiles.writeInline(locations, routeID: id, budget: &budget) }
  }

  private func write(_ entry: MetadataEntry, parent: Int) throws {
    if entry.text != nil { return try writeNode(NodeEmitter.node { $0.emit(entry) }, parent: parent) }
    let table = self.table(.metadata)
    let id = startRow(table, parent: parent, hasParent: true)
    CSVEncoding.appendField(entry.key, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    CSVEncoding.appendField(entry.value, to: &table.buffer)
    try table.endRow(budget: &budget)
    if !entry.extraAttributes.isEmpty || !entry.extraChildren.isEmpty {
      try writeExtras(entry.extraAttributes, of: id)
      for node in entry.extraChildren { try writeNode(node, parent: id) }
    }
  }

  private func write(_ list: HeartRateVariabilityList, parent: Int) throws {
    let lists = self.table(.hrvLists)
    let id = startRow(lists, parent: parent, hasParent: true)
    lists.buffer.removeLast()  // no columns after parent_id
    try lists.endRow(budget: &budget)
    try writeExtras(list.extraAttributes, of: id)
    for child in list.children {
      switch child {
      case .beat(let beat):
        let beats = self.table(.hrvBeats)
        let beatID = startRow(beats, parent: id, hasParent: true)
        CSVEncoding.appendField(beat.bpm, to: &beats.buffer)
        beats.buffer.append(CSVEncoding.comma)
        CSVEncoding.appendField(beat.time, to: &beats.buffer)
        try beats.endRow(budget: &budget)
        if !beat.extraAttributes.isEmpty || !beat.extraChildren.isEmpty {
          try writeExtras(beat.extraAttributes, of: beatID)
          for node in beat.extraChildren { try writeNode(node, parent: beatID) }
        }
      case .other(let node): try writeNode(node, parent: id)
      }
    }
  }

  // MARK: Generic elements

  /// Writes a generic element to its kind's table when its attributes fit the table's columns
  /// (known names, in the table's order, no text); otherwise to `elements.csv` with its
  /// attributes in `attributes.csv`. Children follow, each by the same rule.
  private func writeNode(_ node: ElementNode, parent: Int?) throws {
    let id: Int
    if let kind = CSVSplitSchema.Table.genericKind(named: node.name), node.text == nil,
      let slots = Self.slots(of: node.attributes, in: kind.attributeColumns)
    {
      let table = self.table(kind)
      id = startRow(table, parent: parent, hasParent: true)
      if kind == .visionEyes {
        CSVEncoding.appendField(node.name, to: &table.buffer)
        table.buffer.append(CSVEncoding.comma)
      }
      let isDate = kind.attributeDates
      for (index, slot) in slots.enumerated() {
        if index > 0 { table.buffer.append(CSVEncoding.comma) }
        if isDate[index] {
          dates.append(text: slot >= 0 ? node.attributes[slot].value : nil, to: &table.buffer)
        } else if slot >= 0 {
          CSVEncoding.appendField(node.attributes[slot].value, to: &table.buffer)
        }
      }
      try table.endRow(budget: &budget)
    } else if node.name == "MetadataEntry", node.text == nil,
      let slots = Self.slots(of: node.attributes, in: ["key", "value"])
    {
      let table = self.table(.metadata)
      id = startRow(table, parent: parent, hasParent: true)
      if slots[0] >= 0 { CSVEncoding.appendField(node.attributes[slots[0]].value, to: &table.buffer) }
      table.buffer.append(CSVEncoding.comma)
      if slots[1] >= 0 { CSVEncoding.appendField(node.attributes[slots[1]].value, to: &table.buffer) }
      try table.endRow(budget: &budget)
    } else if parent == nil, node.name == "ExportDate", node.text == nil, node.attributes.count == 1,
      node.attributes[0].name == "value"
    {
      let table = self.table(.export)
      id = startRow(table, parent: nil, hasParent: false)
      CSVEncoding.appendField("ExportDate", to: &table.buffer)
      table.buffer.append(CSVEncoding.comma)
      dates.append(text: node.attributes[0].value, to: &table.buffer)
      table.buffer.append(",,,,")
      try table.endRow(budget: &budget)
    } else {
      let table = self.table(.elements)
      id = startRow(table, parent: parent, hasParent: true)
      CSVEncoding.appendField(node.name, to: &table.buffer)
      table.buffer.append(CSVEncoding.comma)
      CSVEncoding.appendField(node.text, to: &table.buffer)
      try table.endRow(budget: &budget)
      try writeExtras(node.attributes, of: id)
    }
    for child in node.children { try writeNode(child, parent: id) }
  }

  /// For each column, the index of the attribute that fills it (-1 for none); nil when the
  /// attributes are not a subsequence of the columns in order.
  static func slots(of attributes: [Attribute], in columns: [String]) -> [Int]? {
    var slots = Array(repeating: -1, count: columns.count)
    var column = 0
    for (index, attribute) in attributes.enumerated() {
      while column < columns.count, columns[column] != attribute.name { column += 1 }
      guard column < columns.count else { return nil }
      slots[column] = index
      column += 1
    }
    return slots
  }

  /// Attributes of an element that have no column (unknown attributes of typed elements, or
  /// every attribute of an `elements.csv` row), in order.
  private func writeExtras(_ attributes: [Attribute], of id: Int) throws {
    guard !attributes.isEmpty else { return }
    let table = self.table(.attributes)
    for attribute in attributes {
      CSVEncoding.appendInteger(id, to: &table.buffer)
      table.buffer.append(CSVEncoding.comma)
      CSVEncoding.appendField(attribute.name, to: &table.buffer)
      table.buffer.append(CSVEncoding.comma)
      CSVEncoding.appendField(attribute.value, to: &table.buffer)
      try table.endRow(budget: &budget)
    }
  }

  // MARK: Helpers

  @inline(__always)
  private static func appendFields(_ fields: [String?], to out: inout ByteBuffer, trailingComma: Bool = true) {
    for (index, field) in fields.enumerated() {
      if index > 0 { out.append(CSVEncoding.comma) }
      CSVEncoding.appendField(field, to: &out)
    }
    if trailingComma { out.append(CSVEncoding.comma) }
  }

  @inline(__always)
  private func appendDates(
    _ creation: HealthDate?, _ start: HealthDate, _ end: HealthDate, to out: inout ByteBuffer
  ) {
    dates.append(creation, to: &out)
    out.append(CSVEncoding.comma)
    dates.append(start, to: &out)
    out.append(CSVEncoding.comma)
    dates.append(end, to: &out)
  }
}
