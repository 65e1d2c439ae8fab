import HealthPort
import ParquetFile

/// Writes an export as a Parquet dataset: the rows of `--split`'s tables, found by the shared
/// ``TableRowRouter`` (the same ids, the same routing of each element), typed, into one folder
/// per table (see ``ParquetTableLayout``).
final class ParquetDatasetSink: ExportSink, TableRowReceiver {
  let dataset: ParquetDataset
  private let partitionKeys: [PartitionKey]
  private var writers: [ParquetTableWriter?]
  private var router: TableRowRouter?
  private var header: ExportHeader?
  private let identifiers: IdentifierFilter?
  private let sideFiles: ParquetSideFileRows
  /// A device string's bytes, rendered without a `String` (the address differs on every record).
  private var deviceBytes: [UInt8] = []
  /// The extras of the row the router announces next.
  private var pendingExtras: TableRowExtras?

  init(dataset: ParquetDataset, partitionBy keys: [PartitionKey], dropIdentifiers: Bool) {
    self.dataset = dataset
    partitionKeys = keys
    writers = Array(repeating: nil, count: ParquetTables.all.count)
    identifiers = dropIdentifiers ? IdentifierFilter() : nil
    sideFiles = ParquetSideFileRows(identifiers: identifiers)
  }

  var interest: ElementInterest { .everything }
  var capabilities: SinkCapabilities { .sideFiles }
  var embedsExtras: Bool { true }

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
  private static let visionEyes = index(ColumnCatalog.visionEyes)
  private static let routePoints = index(ColumnCatalog.routePoints)

  /// Which of `parent_id` and `workout_id` follow each table's `id`.
  private static let hasParentColumn = ParquetTables.all.map { $0.definition.position(of: "parent_id") != nil }
  private static let hasWorkoutColumn = ParquetTables.all.map { $0.definition.position(of: "workout_id") != nil }

  /// A generic table: its index, and where `type` and `startDate` are among its attribute columns.
  private struct GenericTable {
    let index: Int
    let type: Int?
    let start: Int?
  }
  private static let genericTables: [String: GenericTable] = TableRowRouter.genericTables.mapValues { table in
    let columns = TableRowRouter.attributeColumns(of: table)
    return GenericTable(
      index: index(table), type: columns.firstIndex(of: "type"), start: columns.firstIndex(of: "startDate"))
  }

  @inline(__always)
  private func writer(_ index: Int) throws -> ParquetTableWriter {
    if let writer = writers[index] { return writer }
    return try makeWriter(index)
  }

  private func makeWriter(_ index: Int) throws -> ParquetTableWriter {
    let entry = ParquetTables.all[index]
    let layout: ParquetTableLayout
    do {
      layout = try ParquetTables.layout(entry, partitionBy: partitionKeys)
    } catch {
      throw HealthPortError(.failure, message: "\(error)")
    }
    let writer = ParquetTableWriter(layout, dataset: dataset)
    writers[index] = writer
    return writer
  }

  /// Starts a row of table `index` at `place`: its partition, then `id` and, when the table has
  /// them, `parent_id` and `workout_id`.
  @inline(__always)
  private func row(
    _ index: Int, _ place: TableRowPlace, type: String? = nil, start: HealthDate? = nil, startText: String? = nil
  ) throws -> ParquetTableWriter {
    let table = try writer(index)
    try table.startRow(type: type, start: start, startText: startText)
    if let extras = pendingExtras {
      table.extra = ParquetRowExtras.json(extras, identifiers: identifiers)
      pendingExtras = nil
    }
    try table.integer(place.id)
    if Self.hasParentColumn[index] { try table.integer(place.parent) }
    if Self.hasWorkoutColumn[index] { try table.integer(place.workout) }
    return table
  }

  // MARK: ExportSink

  func begin(_ header: ExportHeader) throws {
    self.header = header
    let router = TableRowRouter(self)
    self.router = router
    try converting { try router.begin(header) }
  }

  func consume(_ element: ExportElement) throws {
    guard let router else { return }
    try converting { try router.consume(element) }
  }

  func consumeSideFile(_ event: SideFileEvent) throws {
    try converting { try sideFiles.consume(event) { try writer(Self.index($0)) } }
  }

  func end(_ report: ReadReport) throws {
    if header == nil { try begin(ExportHeader(prolog: [], rootAttributes: [])) }
    for writer in writers.compactMap({ $0 }) { try writer.closeAll() }
    router = nil
  }

  /// Runs `body`, with the Parquet writer's errors made the command's.
  @inline(__always)
  private func converting(_ body: () throws -> Void) throws {
    do { try body() } catch let error as ParquetError { throw dataset.failure(error) }
  }

  // MARK: TableRowReceiver

  func root(_ header: ExportHeader) throws {
    let table = try writer(Self.export)
    try table.startRow()
    try table.integer(0)
    try table.text(header.rootName)
    try table.text(nil)
    try table.text(header.locale)
    try table.integer(header.exportVersion)
    try table.text(JSONPairs.encode(header.rootAttributes))
    try table.text(String(decoding: header.prolog, as: UTF8.self))
    try table.endRow()
  }

  func exportDate(_ value: String, at place: TableRowPlace) throws {
    let table = try row(Self.export, place)
    try table.text("ExportDate")
    try table.text(value)
    for _ in 0..<4 { try table.text(nil) }
    try table.endRow()
  }

  func record(_ record: Record, at place: TableRowPlace) throws {
    let index = place.parent == nil ? Self.records : Self.correlationRecords
    let table = try row(index, place, type: record.type, start: record.startDate)
    try table.text(record.type)
    try source(record.sourceName, record.sourceVersion, record.sourceProduct, record.deviceString, to: table)
    try table.text(record.unit)
    try table.text(record.value)
    try dates(record.creationDate, record.startDate, record.endDate, to: table)
  }

  func correlation(_ correlation: Correlation, at place: TableRowPlace) throws {
    let table = try row(Self.correlations, place, type: correlation.type, start: correlation.startDate)
    try table.text(correlation.type)
    try source(
      correlation.sourceName, correlation.sourceVersion, correlation.sourceProduct, correlation.deviceString,
      to: table)
    try dates(correlation.creationDate, correlation.startDate, correlation.endDate, to: table)
  }

  func workout(_ workout: Workout, at place: TableRowPlace) throws {
    sideFiles.noteWorkout(place.id)
    let table = try row(Self.workouts, place, start: workout.startDate)
    for text in [
      workout.workoutActivityType, workout.duration, workout.durationUnit, workout.totalDistance,
      workout.totalDistanceUnit, workout.totalEnergyBurned, workout.totalEnergyBurnedUnit,
    ] {
      try table.text(text)
    }
    try source(workout.sourceName, workout.sourceVersion, workout.sourceProduct, workout.deviceString, to: table)
    try dates(workout.creationDate, workout.startDate, workout.endDate, to: table)
  }

  func workoutEvent(_ event: WorkoutEvent, at place: TableRowPlace) throws {
    let table = try row(Self.workoutEvents, place, type: event.type)
    try endPartRow(event.type, [event.date], [event.duration, event.durationUnit], in: table)
  }

  func workoutActivity(_ activity: WorkoutActivity, at place: TableRowPlace) throws {
    if place.parent == place.workout { sideFiles.noteActivity(place.id, activity) }
    let table = try row(Self.workoutActivities, place, start: activity.startDate)
    try endPartRow(
      activity.uuid, [activity.startDate, activity.endDate], [activity.duration, activity.durationUnit], in: table)
  }

  func workoutStatistics(_ statistics: WorkoutStatistics, at place: TableRowPlace) throws {
    let table = try row(Self.workoutStatistics, place, type: statistics.type, start: statistics.startDate)
    try endPartRow(
      statistics.type, [statistics.startDate, statistics.endDate],
      [statistics.average, statistics.minimum, statistics.maximum, statistics.sum, statistics.unit], in: table)
  }

  func workoutRoute(_ route: WorkoutRoute, at place: TableRowPlace) throws {
    let table = try row(Self.workoutRoutes, place, start: route.startDate)
    try source(route.sourceName, route.sourceVersion, route.sourceProduct, route.deviceString, to: table)
    try dates(route.creationDate, route.startDate, route.endDate, to: table)
    sideFiles.noteRoute(place.id)
    let locations = route.children.compactMap { if case .location(let node) = $0 { node } else { nil } }
    if !locations.isEmpty {
      try sideFiles.writeInline(locations, routeID: place.id) { try writer(Self.routePoints) }
    }
  }

  func fileReference(_ reference: FileReference, at place: TableRowPlace) throws {
    let table = try row(Self.fileReferences, place)
    try table.text(reference.path)
    try table.endRow()
  }

  func metadata(key: String?, value: String?, at place: TableRowPlace) throws {
    let table = try row(Self.metadata, place)
    try table.text(key)
    try table.text(value)
    try table.endRow()
  }

  func hrvList(at place: TableRowPlace) throws {
    try row(Self.hrvLists, place).endRow()
  }

  func hrvBeat(_ beat: InstantaneousBeatsPerMinute, at place: TableRowPlace) throws {
    let table = try row(Self.hrvBeats, place)
    try table.text(beat.bpm)
    try table.text(beat.time)
    try table.endRow()
  }

  func genericRow(_ node: ElementNode, table definition: TableDefinition, slots: [Int], at place: TableRowPlace)
    throws
  {
    guard let generic = Self.genericTables[node.name] else { return }
    func value(_ column: Int?) -> String? {
      guard let column, slots[column] >= 0 else { return nil }
      return node.attributes[slots[column]].value
    }
    let table = try row(generic.index, place, type: value(generic.type), startText: value(generic.start))
    if generic.index == Self.visionEyes { try table.text(node.name) }
    for slot in slots {
      guard slot >= 0 else {
        try table.text(nil)
        continue
      }
      let attribute = node.attributes[slot]
      try table.text(identifiers.map { $0.value(of: attribute) } ?? attribute.value)
    }
    try table.endRow()
  }

  func otherElement(_ node: ElementNode, at place: TableRowPlace) throws {
    let table = try row(Self.elements, place)
    try table.text(node.name)
    try table.text(node.text)
    try table.endRow()
  }

  func rowExtras(_ extras: TableRowExtras) throws { pendingExtras = extras }

  /// Never called: the row's extras come with it (``embedsExtras``).
  func attribute(_ attribute: Attribute, of id: Int) throws {}

  // MARK: Shared columns

  /// `source_name, source_version, source_product, device`.
  @inline(__always)
  private func source(
    _ name: String, _ version: String?, _ product: String?, _ device: DeviceString?, to table: ParquetTableWriter
  ) throws {
    if let identifiers {
      try table.text(identifiers.sourceName(name))
      try table.text(version)
      try table.text(product)
      try table.text(device.map { identifiers.device($0.description) })
      return
    }
    try table.text(name)
    try table.text(version)
    try table.text(product)
    guard let device else { return try table.text(nil) }
    deviceBytes.removeAll(keepingCapacity: true)
    device.append(to: &deviceBytes)
    try table.bytes(deviceBytes)
  }

  /// The columns of a workout's part (an event, activity or statistics) after its place: its type
  /// (or uuid), its dates, then its `values`; and the row's end.
  private func endPartRow(
    _ lead: String?, _ partDates: [HealthDate?], _ values: [String?], in table: ParquetTableWriter
  ) throws {
    try table.text(lead)
    for date in partDates { try table.date(date) }
    for value in values { try table.text(value) }
    try table.endRow()
  }

  /// The three dates that end a row, and the row's end.
  @inline(__always)
  private func dates(_ creation: HealthDate?, _ start: HealthDate, _ end: HealthDate, to table: ParquetTableWriter)
    throws
  {
    try table.date(creation)
    try table.date(start)
    try table.date(end)
    try table.endRow()
  }
}

/// `[name, value]` pairs (the root's attributes, an ECG's header lines), as `--split` writes them.
enum JSONPairs {
  static func encode(_ attributes: [Attribute]) -> String {
    encode(attributes.map { ($0.name, $0.value) })
  }

  static func encode(_ pairs: [(String, String)]) -> String {
    var out: [UInt8] = []
    CSVMetadataJSON.appendPairs(pairs, to: &out)
    return String(decoding: out, as: UTF8.self)
  }
}
