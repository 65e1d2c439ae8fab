import HealthPort
import SQLiteStore

#if canImport(Glibc)
  import Glibc
#endif

/// The SQLite store as an ``ExportSink``: loads one export's elements into a healthport database
/// (``SQLiteSchema``), idempotently. It never reads an input itself: ``SQLiteLoadJob`` (the
/// `load` command and `convert --to sqlite`) or your own ``ExportReader`` feeds it.
///
/// Every top-level element has a natural key enforced by a unique index (README, "Loading into SQLite"), so an
/// element already in the database is skipped with its children. Rows are written in batched
/// transactions that end only between top-level elements: a load killed at any moment leaves
/// whole elements, and running it again adds what is missing. Exact duplicates inside one load
/// collapse to one row whose `copies` is the most copies any single load saw.
package final class SQLiteLoader: ExportSink {
  /// Rows (inserted or updated) per transaction.
  package static let defaultBatchRows = 50_000

  let db: SQLiteConnection
  let person: String
  let batchRows: Int
  package internal(set) var result = Result()
  /// True once ``begin(_:)`` has written this load's `exports` row.
  package private(set) var began = false
  /// Rows inserted or updated since the last commit.
  var pending = 0
  private var started = 0.0
  let text = BindingText()
  /// Told after each commit, when the WAL is checkpointed on another thread.
  var checkpointer: Checkpointer?
  /// Told after each full batch's commit (``SQLiteLoadJob/afterBatch``).
  var afterBatch: (@Sendable () throws -> Void)?
  // Optional so that ``close()`` can finalize the statements even if the loader outlives the load.
  var s: Statements!
  /// Multi-row beat inserts by row count (``insertBeats(_:recordID:)``).
  var beatInserts: [Int: SQLiteStatement] = [:]
  var sourceIDs: [SourceCacheKey: Int64] = [:]
  // The last source seen: consecutive samples nearly always share it. The device is compared by
  // the part after its address (``DeviceString/rest``), which the reader shares between samples.
  var lastSourceID: Int64 = -1
  var lastSourceName = ""
  var lastSourceVersion: String?
  var lastDevice: DeviceString?
  /// The side files' join and progress (``consumeSideFile(_:)``).
  let sideFiles = SideFileLoadState()
  /// Whether this export looks like the same person's as the database's (set by ``begin(_:)``).
  var personCheck: PersonCheck?
  /// True once a warning said this export looks like someone else's (one is enough).
  var warnedAboutPerson = false

  /// Opens the database at `path` for a loader (see ``SQLiteDatabase/open(path:busyTimeoutMilliseconds:)``).
  package static func openDatabase(
    path: String, busyTimeoutMilliseconds: Int32 = SQLiteDatabase.defaultBusyTimeoutMilliseconds
  ) throws -> SQLiteConnection {
    try SQLiteDatabase.open(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
  }

  /// How long a load waits for another connection's write lock (``SQLiteDatabase/defaultBusyTimeoutMilliseconds``).
  package static let defaultBusyTimeoutMilliseconds = SQLiteDatabase.defaultBusyTimeoutMilliseconds

  /// A loader writing into `database` (opened with ``openDatabase(path:busyTimeoutMilliseconds:)``) for `person`
  /// (`""` when not given), reading the export at `inputPath` (for the `exports` row).
  package init(
    database: SQLiteConnection, person: String = "", inputPath: String,
    batchRows: Int = SQLiteLoader.defaultBatchRows
  ) throws {
    db = database
    self.person = person
    self.batchRows = max(1, batchRows)
    result.path = inputPath
    s = try Statements(db)
    text.scratch.reserveCapacity(64)
  }

  /// Finalizes the prepared statements, so that the connection can close (and SQLite can
  /// checkpoint and remove the WAL file) when it is released.
  package func close() {
    s = nil
    sideFiles.statements = nil
    beatInserts = [:]
    sourceIDs = [:]
  }

  /// Rolls back the open batch (what was committed stays; a rerun completes it).
  package func abort() {
    if !db.isAutocommit { try? db.execute("ROLLBACK") }
  }

  // MARK: ExportSink

  package func begin(_ header: ExportHeader) throws {
    started = SQLiteDatabase.now()
    try db.execute("BEGIN IMMEDIATE")
    personCheck = try PersonCheck(db, person: person)
    var b = Binder(s.insertExport, text)
    try b.add(person)
    try b.add(result.path)
    try b.add(header.exportVersion.map(Int64.init))
    try b.add(header.locale)
    try b.add(Self.timestamp())
    try b.run()
    result.exportID = db.lastInsertRowID
    began = true
  }

  package func consume(_ element: ExportElement) throws {
    switch element {
    case .exportDate(let exportDate):
      var b = Binder(s.updateExportDate, text)
      try b.add(exportDate.value)
      try b.add(exportDate.date?.secondsSince1970)
      try b.add(result.exportID)
      try b.run()
    case .me(let me): try insert(me)
    case .record(let record):
      result.recordsRead += 1
      try insert(record)
    case .correlation(let correlation):
      result.correlationsRead += 1
      try insert(correlation)
    case .workout(let workout):
      result.workoutsRead += 1
      try insert(workout)
    case .activitySummary(let summary):
      result.activitySummariesRead += 1
      try insert(summary)
    case .clinicalRecord(let element): try insertOther(element.node)
    case .audiogram(let element): try insertOther(element.node)
    case .visionPrescription(let element): try insertOther(element.node)
    case .other(let node): try insertOther(node)
    }
    if pending >= batchRows {
      try db.execute("COMMIT")
      checkpointer?.request()
      try afterBatch?()
      try db.execute("BEGIN IMMEDIATE")
      pending = 0
    }
  }

  /// After a reader's error: writes what was read and added into this load's `exports` row
  /// (`completed` stays 0) and commits it with every whole element before the damage.
  package func commitPartial() throws {
    guard began, !db.isAutocommit else { return }
    result.seconds = SQLiteDatabase.now() - started
    var b = Binder(s.countExport, text)
    try recordCountsAndCommit(&b)
  }

  package func end(_ report: ReadReport) throws {
    result.inputBytes = report.documentBytes
    result.skipped = report.skipped.count
    // The reader's notes (a CSV with a header but no rows) go to stderr as for every command.
    result.warnings.append(contentsOf: report.notes.map(LoadWarning.text))
    result.seconds = SQLiteDatabase.now() - started
    if !warnedAboutPerson,
      let warning = personCheck?.warning(
        path: result.path, person: person, sourceNames: Set(sourceIDs.keys.map(\.name)))
    {
      result.warnings.append(warning)
    }
    var b = Binder(s.finishExport, text)
    try b.add(Self.timestamp())
    try b.add(result.seconds)
    try b.add(report.documentBytes)
    try recordCountsAndCommit(&b)
  }

  /// Binds what this load read and added (the column order of `countExport` and `finishExport`) and
  /// the export's id, runs the statement, recomputes the de-duplicated step days and commits.
  private func recordCountsAndCommit(_ statement: inout Binder) throws {
    for value in [
      result.recordsRead, result.correlationsRead, result.workoutsRead, result.activitySummariesRead,
      result.otherElementsRead, result.rowsAdded, result.added(.records), result.added(.correlations),
      result.added(.workouts), result.added(.activitySummaries), result.added(.metadata),
      result.added(.otherElements),
    ] {
      try statement.add(Int64(value))
    }
    try statement.add(result.exportID)
    try statement.run()
    try StepDays.recompute(db, person: person)
    try WorkoutMeasureColumns.fill(db, person: person)
    try db.execute("COMMIT")
    checkpointer?.request()
    pending = 0
  }

  /// Counts rows added to `table` (and towards the batch).
  func count(_ table: Table, _ rows: Int = 1) {
    result.added[table.rawValue] += rows
    pending += rows
  }

  /// The `creation_key` column: the creation instant, or the sentinel without one.
  static func creationKey(_ date: HealthDate?) -> Int64 { date?.secondsSince1970 ?? SQLiteSchema.noCreationKey }

  /// The current time as `YYYY-MM-DDTHH:MM:SSZ`.
  static func timestamp() -> String {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    let seconds = Int64(time.tv_sec)
    let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
    let secondOfDay = Int(seconds - Int64(days) * 86_400)
    let (year, month, day) = HealthDate.civil(fromDays: days)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):"
      + "\(two(secondOfDay % 60))Z"
  }
}
