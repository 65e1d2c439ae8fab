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
package final class CSVSplitWriter: ExportSink, TableRowReceiver {
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
  private var budget = CSVSplitWriter.openFileBudget
  private var finished = false
  private var scratch: [UInt8] = []
  private var dates = CSVSplitDates()
  private var recordFields = CSVRecordFields()
  private var header: ExportHeader?
  /// Decides each row's table, id, parent and workout; calls back this writer's row methods.
  private var router: TableRowRouter!
  /// `route_points.csv`, `ecg_recordings.csv`, `ecg_samples.csv`.
  private let sideFiles: CSVSideFileTables

  /// Prepares the temporary folder. `protectedPath` (the input) may not be the target.
  package init(directory: String, protecting protectedPath: String? = nil) throws {
    folder = try FolderOutput(path: directory, protecting: protectedPath, writes: .split)
    tables = Array(repeating: nil, count: CSVSplitSchema.Table.allCases.count)
    sideFiles = CSVSideFileTables(folder: folder.root)
    router = TableRowRouter(self)
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
    try router.begin(header)
  }

  package func consume(_ element: ExportElement) throws { try router.consume(element) }

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
      path: temporaryDirectory + "/" + kind.fileName, header: kind.columns, hasParentColumn: kind.hasParentColumn,
      hasWorkoutColumn: kind.hasWorkoutColumn)
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

  /// Starts a row of `kind` at `place`.
  @inline(__always)
  private func startRow(_ kind: CSVSplitSchema.Table, _ place: TableRowPlace) -> CSVTableFile {
    let table = self.table(kind)
    startRow(table, place)
    return table
  }

  /// Appends `id,` and, when the table has them, `parent_id,` and `workout_id,`.
  @inline(__always)
  private func startRow(_ table: CSVTableFile, _ place: TableRowPlace) {
    CSVEncoding.appendInteger(place.id, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    if table.hasParentColumn {
      if let parent = place.parent { CSVEncoding.appendInteger(parent, to: &table.buffer) }
      table.buffer.append(CSVEncoding.comma)
    }
    if table.hasWorkoutColumn {
      if let workout = place.workout { CSVEncoding.appendInteger(workout, to: &table.buffer) }
      table.buffer.append(CSVEncoding.comma)
    }
  }

  // MARK: TableRowReceiver

  package func root(_ header: ExportHeader) throws {
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

  package func exportDate(_ value: String, at place: TableRowPlace) throws {
    let table = startRow(.export, place)
    CSVEncoding.appendField("ExportDate", to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    dates.append(text: value, to: &table.buffer)
    table.buffer.append(",,,,")
    try table.endRow(budget: &budget)
  }

  package func record(_ record: Record, at place: TableRowPlace) throws {
    let table: CSVTableFile
    if place.parent == nil {
      table = recordTable(for: record.type)
      startRow(table, place)
    } else {
      table = startRow(.correlationRecords, place)
    }
    recordFields.append(record, dates: &dates, to: &table.buffer)
    try table.endRow(budget: &budget)
  }

  package func correlation(_ correlation: Correlation, at place: TableRowPlace) throws {
    let table = startRow(.correlations, place)
    Self.appendFields(
      [
        correlation.type, correlation.sourceName, correlation.sourceVersion, correlation.sourceProduct,
        correlation.device,
      ], to: &table.buffer)
    appendDates(correlation.creationDate, correlation.startDate, correlation.endDate, to: &table.buffer)
    try table.endRow(budget: &budget)
  }

  package func workout(_ workout: Workout, at place: TableRowPlace) throws {
    let table = startRow(.workouts, place)
    Self.appendFields(
      [
        workout.workoutActivityType, workout.duration, workout.durationUnit, workout.totalDistance,
        workout.totalDistanceUnit, workout.totalEnergyBurned, workout.totalEnergyBurnedUnit, workout.sourceName,
        workout.sourceVersion, workout.sourceProduct, workout.device,
      ], to: &table.buffer)
    appendDates(workout.creationDate, workout.startDate, workout.endDate, to: &table.buffer)
    try table.endRow(budget: &budget)
    sideFiles.noteWorkout(place.id)
  }

  package func workoutEvent(_ event: WorkoutEvent, at place: TableRowPlace) throws {
    try endPartRow(
      event.type, [event.date], [event.duration, event.durationUnit], in: startRow(.workoutEvents, place))
  }

  package func workoutActivity(_ activity: WorkoutActivity, at place: TableRowPlace) throws {
    try endPartRow(
      activity.uuid, [activity.startDate, activity.endDate], [activity.duration, activity.durationUnit],
      in: startRow(.workoutActivities, place))
    if place.parent == place.workout { sideFiles.noteActivity(place.id, activity) }
  }

  package func workoutStatistics(_ statistics: WorkoutStatistics, at place: TableRowPlace) throws {
    try endPartRow(
      statistics.type, [statistics.startDate, statistics.endDate],
      [statistics.average, statistics.minimum, statistics.maximum, statistics.sum, statistics.unit],
      in: startRow(.workoutStatistics, place))
  }

  /// A route's inline `Location`s go to `route_points.csv` with the row (their own rows, in
  /// `locations.csv`, follow as its children's).
  package func workoutRoute(_ route: WorkoutRoute, at place: TableRowPlace) throws {
    let table = startRow(.workoutRoutes, place)
    Self.appendFields([route.sourceName, route.sourceVersion, route.sourceProduct, route.device], to: &table.buffer)
    appendDates(route.creationDate, route.startDate, route.endDate, to: &table.buffer)
    try table.endRow(budget: &budget)
    sideFiles.noteRoute(place.id)
    let locations = route.children.compactMap { if case .location(let node) = $0 { node } else { nil } }
    if !locations.isEmpty { try sideFiles.writeInline(locations, routeID: place.id, budget: &budget) }
  }

  package func fileReference(_ reference: FileReference, at place: TableRowPlace) throws {
    let table = startRow(.fileReferences, place)
    CSVEncoding.appendField(reference.path, to: &table.buffer)
    try table.endRow(budget: &budget)
  }

  package func metadata(key: String?, value: String?, at place: TableRowPlace) throws {
    try endRow(key, value, in: startRow(.metadata, place))
  }

  package func hrvList(at place: TableRowPlace) throws {
    let table = startRow(.hrvLists, place)
    table.buffer.removeLast()  // no columns after parent_id
    try table.endRow(budget: &budget)
  }

  package func hrvBeat(_ beat: InstantaneousBeatsPerMinute, at place: TableRowPlace) throws {
    try endRow(beat.bpm, beat.time, in: startRow(.hrvBeats, place))
  }

  /// A generic element whose attributes fit its kind's table: its values in the columns' order,
  /// each date followed by its ISO and UTC forms.
  package func genericRow(_ node: ElementNode, table definition: TableDefinition, slots: [Int], at place: TableRowPlace)
    throws
  {
    guard let kind = CSVSplitSchema.Table.genericKind(named: node.name) else { return }
    let table = startRow(kind, place)
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
  }

  package func otherElement(_ node: ElementNode, at place: TableRowPlace) throws {
    try endRow(node.name, node.text, in: startRow(.elements, place))
  }

  /// An attribute without a column: a row of `attributes.csv`.
  package func attribute(_ attribute: Attribute, of id: Int) throws {
    let table = self.table(.attributes)
    CSVEncoding.appendInteger(id, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    try endRow(attribute.name, attribute.value, in: table)
  }

  /// The last two cells of a row (a key and its value, a name and its text), and the row's end.
  @inline(__always)
  private func endRow(_ first: String?, _ second: String?, in table: CSVTableFile) throws {
    CSVEncoding.appendField(first, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    CSVEncoding.appendField(second, to: &table.buffer)
    try table.endRow(budget: &budget)
  }

  /// The cells of a workout's part (an event, activity or statistics) after its place: its type
  /// (or uuid), its dates, then its `values`; and the row's end.
  private func endPartRow(
    _ lead: String?, _ partDates: [HealthDate?], _ values: [String?], in table: CSVTableFile
  ) throws {
    CSVEncoding.appendField(lead, to: &table.buffer)
    for date in partDates {
      table.buffer.append(CSVEncoding.comma)
      dates.append(date, to: &table.buffer)
    }
    table.buffer.append(CSVEncoding.comma)
    Self.appendFields(values, to: &table.buffer, trailingComma: false)
    try table.endRow(budget: &budget)
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
