import HealthPort

/// Writes an export as a Parquet dataset: the rows of `--split`'s tables (the same ids, the same
/// routing of each element), typed, into one folder per table (see ``ParquetTableLayout``).
final class ParquetDatasetSink: ExportSink {
  let dataset: ParquetDataset
  private let partitionKeys: [PartitionKey]
  private var writers: [ParquetTableWriter?]
  private var nextID = 1
  private var cells: [ParquetCell] = []
  /// The id of the `Workout` being written, for the `workout_id` column of its descendants.
  private var currentWorkout: Int?
  private var header: ExportHeader?
  private let identifiers: IdentifierFilter?
  /// The last device string and its text: a device repeats over thousands of records.
  private var lastDevice: DeviceString?
  private var lastDeviceText: String?

  init(dataset: ParquetDataset, partitionBy keys: [PartitionKey], dropIdentifiers: Bool) {
    self.dataset = dataset
    partitionKeys = keys
    writers = Array(repeating: nil, count: ParquetTables.all.count)
    identifiers = dropIdentifiers ? IdentifierFilter() : nil
  }

  var interest: ElementInterest { .everything }

  // MARK: Tables

  private static func index(_ definition: TableDefinition) -> Int {
    ParquetTables.all.firstIndex { $0.definition.name == definition.name }!
  }
  private static let export = index(ColumnCatalog.export)
  private static let records = index(ParquetTables.records)
  private static let correlations = index(ColumnCatalog.correlations)
  private static let correlationRecords = index(ColumnCatalog.correlationRecords)
  private static let workouts = index(ColumnCatalog.workouts)
  private static let workoutEvents = index(ColumnCatalog.workoutEvents)
  private static let workoutActivities = index(ColumnCatalog.workoutActivities)
  private static let workoutStatistics = index(ColumnCatalog.workoutStatistics)
  private static let workoutRoutes = index(ColumnCatalog.workoutRoutes)
  private static let fileReferences = index(ColumnCatalog.fileReferences)
  private static let metadata = index(ColumnCatalog.metadata)
  private static let hrvLists = index(ColumnCatalog.hrvLists)
  private static let hrvBeats = index(ColumnCatalog.hrvBeats)
  private static let elements = index(ColumnCatalog.elements)
  private static let attributes = index(ColumnCatalog.attributes)
  private static let generic: [String: (index: Int, columns: [String])] = ParquetTables.genericTables.mapValues {
    (index($0), ParquetTables.attributeColumns(of: $0))
  }

  private func writer(_ index: Int) throws -> ParquetTableWriter {
    if let writer = writers[index] { return writer }
    let entry = ParquetTables.all[index]
    let layout: ParquetTableLayout
    do {
      layout = try ParquetTableLayout(entry.definition, partitionBy: partitionKeys, generic: entry.isGeneric)
    } catch {
      throw HealthPortError(.failure, message: "\(error)")
    }
    let writer = ParquetTableWriter(layout, dataset: dataset)
    writers[index] = writer
    return writer
  }

  /// Starts a row with `id` and, when the table has them, `parent_id` and `workout_id`.
  @inline(__always)
  private func startRow(_ index: Int, parent: Int?, hasParent: Bool = true) -> Int {
    let id = nextID
    nextID += 1
    cells.removeAll(keepingCapacity: true)
    cells.append(.integer(id))
    if hasParent { cells.append(parent.map { .integer($0) } ?? .null) }
    if Self.hasWorkoutColumn[index] { cells.append(currentWorkout.map { .integer($0) } ?? .null) }
    return id
  }

  private static let hasWorkoutColumn = ParquetTables.all.map { $0.definition.position(of: "workout_id") != nil }

  @inline(__always)
  private func text(_ value: String?) -> ParquetCell { value.map { .text($0) } ?? .null }

  @inline(__always)
  private func date(_ value: HealthDate?) -> ParquetCell { value.map { .date($0) } ?? .null }

  private func endRow(_ index: Int) throws { try writer(index).append(cells) }

  /// Appends cells without building an array for them.
  @inline(__always)
  private func add(_ a: ParquetCell, _ b: ParquetCell, _ c: ParquetCell? = nil, _ d: ParquetCell? = nil) {
    cells.append(a)
    cells.append(b)
    if let c { cells.append(c) }
    if let d { cells.append(d) }
  }

  // MARK: ExportSink

  func begin(_ header: ExportHeader) throws {
    self.header = header
    cells.removeAll(keepingCapacity: true)
    add(.integer(0), .text(header.rootName), .null, text(header.locale))
    cells.append(header.exportVersion.map { .integer($0) } ?? .null)
    cells.append(.text(JSONPairs.encode(header.rootAttributes)))
    cells.append(.text(String(decoding: header.prolog, as: UTF8.self)))
    try endRow(Self.export)
  }

  func consume(_ element: ExportElement) throws {
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

  func end(_ report: ReadReport) throws {
    if header == nil { try begin(ExportHeader(prolog: [], rootAttributes: [])) }
    for writer in writers.compactMap({ $0 }) { try writer.closeAll() }
  }

  // MARK: Typed elements

  @inline(__always)
  private func appendSource(_ name: String, _ version: String?, _ product: String?, _ device: String?) {
    if let identifiers {
      add(.text(identifiers.sourceName(name)), text(version), text(product), text(device.map(identifiers.device)))
    } else {
      add(.text(name), text(version), text(product), text(device))
    }
  }

  @inline(__always)
  private func deviceText(_ device: DeviceString?) -> String? {
    guard let device else { return nil }
    if device != lastDevice {
      lastDevice = device
      lastDeviceText = device.description
    }
    return lastDeviceText
  }

  private func write(_ record: Record, parent: Int?) throws {
    let table = parent == nil ? Self.records : Self.correlationRecords
    let id = startRow(table, parent: parent, hasParent: parent != nil)
    cells.append(.text(record.type))
    appendSource(record.sourceName, record.sourceVersion, record.sourceProduct, deviceText(record.deviceString))
    add(text(record.unit), text(record.value), date(record.creationDate), .date(record.startDate))
    cells.append(.date(record.endDate))
    try endRow(table)
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
    let id = startRow(Self.correlations, parent: nil, hasParent: false)
    cells.append(.text(correlation.type))
    appendSource(correlation.sourceName, correlation.sourceVersion, correlation.sourceProduct, correlation.device)
    add(date(correlation.creationDate), .date(correlation.startDate), .date(correlation.endDate))
    try endRow(Self.correlations)
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
    let id = startRow(Self.workouts, parent: nil, hasParent: false)
    add(.text(workout.workoutActivityType), text(workout.duration), text(workout.durationUnit))
    add(text(workout.totalDistance), text(workout.totalDistanceUnit), text(workout.totalEnergyBurned))
    cells.append(text(workout.totalEnergyBurnedUnit))
    appendSource(workout.sourceName, workout.sourceVersion, workout.sourceProduct, workout.device)
    add(date(workout.creationDate), .date(workout.startDate), .date(workout.endDate))
    try endRow(Self.workouts)
    try writeExtras(workout.extraAttributes, of: id)
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
    let id = startRow(Self.workoutEvents, parent: parent)
    add(.text(event.type), .date(event.date), text(event.duration), text(event.durationUnit))
    try endRow(Self.workoutEvents)
    try writeExtras(event.extraAttributes, of: id)
    for child in event.children {
      switch child {
      case .metadata(let entry): try write(entry, parent: id)
      case .other(let node): try writeNode(node, parent: id)
      }
    }
  }

  private func write(_ activity: WorkoutActivity, parent: Int) throws {
    let id = startRow(Self.workoutActivities, parent: parent)
    add(.text(activity.uuid), .date(activity.startDate), date(activity.endDate), text(activity.duration))
    cells.append(text(activity.durationUnit))
    try endRow(Self.workoutActivities)
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
    let id = startRow(Self.workoutStatistics, parent: parent)
    add(.text(statistics.type), .date(statistics.startDate), .date(statistics.endDate))
    add(text(statistics.average), text(statistics.minimum), text(statistics.maximum), text(statistics.sum))
    cells.append(text(statistics.unit))
    try endRow(Self.workoutStatistics)
    try writeExtras(statistics.extraAttributes, of: id)
    for node in statistics.extraChildren { try writeNode(node, parent: id) }
  }

  private func write(_ route: WorkoutRoute, parent: Int) throws {
    let id = startRow(Self.workoutRoutes, parent: parent)
    appendSource(route.sourceName, route.sourceVersion, route.sourceProduct, route.device)
    add(date(route.creationDate), .date(route.startDate), .date(route.endDate))
    try endRow(Self.workoutRoutes)
    try writeExtras(route.extraAttributes, of: id)
    for child in route.children {
      switch child {
      case .metadata(let entry): try write(entry, parent: id)
      case .fileReference(let reference):
        let referenceID = startRow(Self.fileReferences, parent: id)
        cells.append(.text(reference.path))
        try endRow(Self.fileReferences)
        try writeExtras(reference.extraAttributes, of: referenceID)
        for node in reference.extraChildren { try writeNode(node, parent: referenceID) }
      case .location(let node), .other(let node): try writeNode(node, parent: id)
      }
    }
  }

  private func write(_ entry: MetadataEntry, parent: Int) throws {
    let id = startRow(Self.metadata, parent: parent)
    add(.text(entry.key), .text(entry.value))
    try endRow(Self.metadata)
    try writeExtras(entry.extraAttributes, of: id)
    for node in entry.extraChildren { try writeNode(node, parent: id) }
  }

  private func write(_ list: HeartRateVariabilityList, parent: Int) throws {
    let id = startRow(Self.hrvLists, parent: parent)
    try endRow(Self.hrvLists)
    try writeExtras(list.extraAttributes, of: id)
    for child in list.children {
      switch child {
      case .beat(let beat):
        let beatID = startRow(Self.hrvBeats, parent: id)
        add(.text(beat.bpm), .text(beat.time))
        try endRow(Self.hrvBeats)
        try writeExtras(beat.extraAttributes, of: beatID)
        for node in beat.extraChildren { try writeNode(node, parent: beatID) }
      case .other(let node): try writeNode(node, parent: id)
      }
    }
  }

  // MARK: Generic elements

  /// As `--split` does: a generic element goes to its kind's table when its attributes fit the
  /// table's columns (known names, in order, no text); otherwise to `elements` with its
  /// attributes in `attributes`. Children follow, each by the same rule.
  private func writeNode(_ node: ElementNode, parent: Int?) throws {
    let id: Int
    if let kind = Self.generic[node.name], node.text == nil,
      let slots = Self.slots(of: node.attributes, in: kind.columns)
    {
      id = startRow(kind.index, parent: parent)
      if kind.index == Self.generic["RightEye"]!.index { cells.append(.text(node.name)) }
      for slot in slots { cells.append(slot >= 0 ? attributeCell(node, slot) : .null) }
      try endRow(kind.index)
    } else if node.name == "MetadataEntry", node.text == nil,
      let slots = Self.slots(of: node.attributes, in: ["key", "value"])
    {
      id = startRow(Self.metadata, parent: parent)
      for slot in slots { cells.append(slot >= 0 ? .text(node.attributes[slot].value) : .null) }
      try endRow(Self.metadata)
    } else if parent == nil, node.name == "ExportDate", node.text == nil, node.attributes.count == 1,
      node.attributes[0].name == "value"
    {
      id = startRow(Self.export, parent: nil, hasParent: false)
      add(.text("ExportDate"), .text(node.attributes[0].value), .null, .null)
      add(.null, .null)
      try endRow(Self.export)
    } else {
      id = startRow(Self.elements, parent: parent)
      add(.text(node.name), text(node.text))
      try endRow(Self.elements)
      try writeExtras(node.attributes, of: id)
    }
    for child in node.children { try writeNode(child, parent: id) }
  }

  @inline(__always)
  private func attributeCell(_ node: ElementNode, _ slot: Int) -> ParquetCell {
    let attribute = node.attributes[slot]
    if let identifiers, node.name == "Me" { return identifiers.me(attribute) }
    return .text(attribute.value)
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

  /// Attributes without a column, one row each in `attributes`.
  private func writeExtras(_ attributes: [Attribute], of id: Int) throws {
    guard !attributes.isEmpty else { return }
    let table = try writer(Self.attributes)
    for attribute in attributes {
      cells.removeAll(keepingCapacity: true)
      add(.integer(id), .text(attribute.name), .text(attribute.value))
      try table.append(cells)
    }
  }
}

/// The root's attributes as `[name, value]` pairs, as `--split`'s `export` table holds them.
enum JSONPairs {
  static func encode(_ attributes: [Attribute]) -> String {
    var out: [UInt8] = [UInt8(ascii: "[")]
    for (index, attribute) in attributes.enumerated() {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      out.append(UInt8(ascii: "["))
      JSONEscaping.appendString(attribute.name, to: &out)
      out.append(UInt8(ascii: ","))
      JSONEscaping.appendString(attribute.value, to: &out)
      out.append(UInt8(ascii: "]"))
    }
    out.append(UInt8(ascii: "]"))
    return String(decoding: out, as: UTF8.self)
  }
}
