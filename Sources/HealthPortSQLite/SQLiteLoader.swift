import HealthPort
import SQLiteStore

#if canImport(Glibc)
  import Glibc
#endif

/// Loads an export into a healthport SQLite database (``SQLiteSchema``), idempotently.
///
/// Every top-level element has a natural key enforced by a unique index (README, "Loading into SQLite"), so an
/// element already in the database is skipped with its children. Rows are written in batched
/// transactions that end only between top-level elements: a load killed at any moment leaves
/// whole elements, and running it again adds what is missing. Exact duplicates inside one load
/// collapse to one row whose `copies` is the most copies any single load saw.
public final class SQLiteLoader: ExportSink {
  /// The tables rows are counted for.
  public enum Table: Int, CaseIterable, Sendable {
    case sources, records, metadata, hrvBeats, correlations, correlationRecords, workouts, workoutEvents
    case workoutActivities, workoutStatistics, workoutRoutes, routeLocations, activitySummaries, me
    case otherElements, extras

    public var name: String {
      switch self {
      case .sources: "sources"
      case .records: "records"
      case .metadata: "metadata"
      case .hrvBeats: "hrv_beats"
      case .correlations: "correlations"
      case .correlationRecords: "correlation_records"
      case .workouts: "workouts"
      case .workoutEvents: "workout_events"
      case .workoutActivities: "workout_activities"
      case .workoutStatistics: "workout_statistics"
      case .workoutRoutes: "workout_routes"
      case .routeLocations: "route_locations"
      case .activitySummaries: "activity_summaries"
      case .me: "me"
      case .otherElements: "other_elements"
      case .extras: "extras"
      }
    }
  }

  /// What one load did.
  public struct Result: Sendable {
    public var exportID: Int64 = 0
    public var path: String = ""
    /// Rows added per table, indexed by ``Table``.
    public var added = [Int](repeating: 0, count: Table.allCases.count)
    public var inputBytes: Int64 = 0
    public var seconds = 0.0
    public var recordsRead = 0
    public var correlationsRead = 0
    public var workoutsRead = 0
    public var activitySummariesRead = 0
    public var otherElementsRead = 0
    /// Damaged elements passed over with `--skip-invalid` (the reader's ``ReadReport/skipped``).
    public var skipped = 0
    /// What the user should know about this load (a second person's export without `--person`).
    public var warnings: [String] = []

    public var rowsAdded: Int { added.reduce(0, +) }
    public func added(_ table: Table) -> Int { added[table.rawValue] }
  }

  /// Rows (inserted or updated) per transaction.
  public static let defaultBatchRows = 50_000

  let db: SQLiteConnection
  let person: String
  let batchRows: Int
  public private(set) var result = Result()
  /// True once ``begin(_:)`` has written this load's `exports` row.
  public private(set) var began = false
  private var pending = 0
  private var started = 0.0
  private let text = BindingText()
  private var sourceIDs: [SourceCacheKey: Int64] = [:]
  /// Told after each commit, when the WAL is checkpointed on another thread.
  var checkpointer: Checkpointer?
  // Optional so that ``close()`` can finalize the statements even if the loader outlives the load.
  private var s: Statements!

  /// A loader writing into `database` (opened with ``openDatabase(path:)``) for `person`
  /// (`""` when not given), reading the export at `inputPath` (for the `exports` row).
  public init(
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

  // MARK: Opening

  /// Opens the database at `path` in place (WAL journal), creating the schema in a new or empty
  /// file and migrating an older healthport schema. A file that is not a healthport database, or
  /// one of a later schema version, is refused before anything is written to it or beside it.
  public static func openDatabase(
    path: String, busyTimeoutMilliseconds: Int32 = SQLiteLoader.defaultBusyTimeoutMilliseconds
  ) throws -> SQLiteConnection {
    let state = try inspect(path: path)
    // Switching to WAL and the schema's transaction need locks that SQLite's busy handler does not
    // wait for while this connection holds a read lock: retry those until the timeout.
    let deadline = now() + Double(busyTimeoutMilliseconds) / 1000
    while true {
      do {
        return try open(path: path, state: state, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
      } catch let error as SQLiteError {
        guard error.isBusy, now() < deadline else { throw databaseError(error, path: path) }
        usleep(50_000)
      }
    }
  }

  private static func open(path: String, state: DatabaseState, busyTimeoutMilliseconds: Int32) throws
    -> SQLiteConnection
  {
    let db = try SQLiteConnection(path: path, mode: .readWriteCreate)
    do {
      db.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
      // A new database gets pages of 16 KiB instead of 4 (which only a new file can choose, before
      // it is in WAL mode): fewer, shallower B-tree pages and WAL frames make a 1 GB load's SQLite
      // thread about 13 % faster. Existing databases keep their page size.
      if state != .healthport { try db.execute("PRAGMA page_size = \(pageSize)") }
      try db.execute(
        """
        PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32768;
        PRAGMA temp_store = MEMORY; PRAGMA foreign_keys = OFF;
        """)
      // Checkpoint when the WAL reaches 64 MiB, whatever the page size (SQLite's default of 1,000
      // pages checkpoints far too often for a bulk load).
      let pageBytes = try db.scalarInt("PRAGMA page_size") ?? 4096
      try db.execute("PRAGMA wal_autocheckpoint = \(max(1000, walCheckpointBytes / pageBytes))")
      try prepareSchema(db, path: path)
    } catch {
      try? db.close()
      throw error
    }
    return db
  }

  /// Creates the schema in an empty database, or migrates an older one, in one transaction
  /// (re-checked inside it: another process may have done it meanwhile).
  static func prepareSchema(_ db: SQLiteConnection, path: String) throws {
    try db.withTransaction {
      let applicationID = try db.scalarInt("PRAGMA application_id") ?? 0
      let version = try db.scalarInt("PRAGMA user_version") ?? 0
      if applicationID != SQLiteSchema.applicationID {
        try db.execute(SQLiteSchema.create)
        try db.execute("PRAGMA application_id = \(SQLiteSchema.applicationID)")
        try db.execute("PRAGMA user_version = \(SQLiteSchema.version)")
        return
      }
      guard version <= SQLiteSchema.version else { throw laterVersion(path: path, version) }
      var from = version
      while from < SQLiteSchema.version {
        guard let step = SQLiteSchema.migrations[from + 1] else {
          throw HealthPortError(.failure, "\(path): error: no migration from schema version \(from)")
        }
        try db.execute(step)
        from += 1
      }
      if version != from { try db.execute("PRAGMA user_version = \(from)") }
    }
  }

  /// The page size of new databases.
  static let pageSize = 16_384
  /// The WAL size at which the loading connection checkpoints (see ``startCheckpointer(_:)``).
  static let walCheckpointBytes: Int64 = 64 << 20
  /// How long a load waits for another connection's write lock (another load) before giving up.
  public static let defaultBusyTimeoutMilliseconds: Int32 = 90_000

  enum DatabaseState { case missing, empty, healthport }

  /// Decides from the file's header alone (no SQLite connection, which could create `-wal` and
  /// `-shm` files beside a database it then refuses) what `path` is. Only a file whose header
  /// says neither healthport nor foreign needs its schema counted, through an immutable
  /// read-only connection, which creates nothing either.
  static func inspect(path: String) throws -> DatabaseState {
    var info = stat()
    if stat(path, &info) != 0 { return .missing }
    if (info.st_mode & S_IFMT) == S_IFDIR { throw HealthPortError(.failure, "\(path): error: is a directory") }
    // A WAL left by an interrupted writer may hold a newer header than the file: let SQLite read it.
    let hasWAL = stat(path + "-wal", &info) == 0 && info.st_size > 0
    var header = [UInt8](repeating: 0, count: 100)
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw HealthPortError(.failure, "\(path): error: cannot open: \(String(cString: strerror(errno)))")
    }
    let got = read(fd, &header, 100)
    Glibc.close(fd)
    if got == 0 && !hasWAL { return .empty }
    let magic = Array("SQLite format 3\u{0}".utf8)
    guard got == 100, Array(header[0..<16]) == magic else {
      throw HealthPortError(
        .failure, "\(path): error: not a SQLite database; refusing to overwrite it (choose another --db path)")
    }
    func word(_ at: Int) -> Int64 {
      Int64(Int32(bitPattern: header[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }))
    }
    var applicationID = word(68)
    var userVersion = word(60)
    var objects: Int64 = -1
    if hasWAL || applicationID != SQLiteSchema.applicationID {
      do {
        let probe = try SQLiteConnection(
          path: hasWAL ? path : immutableURI(path), mode: hasWAL ? .readOnly : .readOnlyURI)
        applicationID = try probe.scalarInt("PRAGMA application_id") ?? 0
        userVersion = try probe.scalarInt("PRAGMA user_version") ?? 0
        objects = try probe.scalarInt("SELECT count(*) FROM sqlite_master") ?? 0
        try probe.close()
      } catch let error as SQLiteError {
        if error.isNotADatabase {
          throw HealthPortError(
            .failure, "\(path): error: not a SQLite database; refusing to overwrite it (choose another --db path)")
        }
        throw HealthPortError(.failure, "\(path): error: cannot read the database: \(error)")
      }
    }
    if applicationID == SQLiteSchema.applicationID {
      // Older versions are migrated when the database is opened for writing.
      guard userVersion <= SQLiteSchema.version else { throw laterVersion(path: path, userVersion) }
      return .healthport
    }
    if applicationID == 0, userVersion == 0, objects == 0 { return .empty }
    throw HealthPortError(
      .failure,
      "\(path): error: this SQLite database was not created by healthport (application_id \(applicationID), "
        + "\(max(objects, 0)) schema objects); it was left unchanged. Load into a new file or a healthport database.")
  }

  static func laterVersion(path: String, _ version: Int64) -> HealthPortError {
    HealthPortError(
      .failure,
      "\(path): error: healthport database with schema version \(version); this healthport writes version "
        + "\(SQLiteSchema.version) and cannot read later ones. It was left unchanged: use a newer healthport "
        + "or a new --db file.")
  }

  /// `file:` URI of `path` opened immutable (no locks, no side files).
  static func immutableURI(_ path: String) -> String {
    var uri = "file:"
    for byte in path.utf8 {
      switch byte {
      case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"):
        let hex = Array("0123456789ABCDEF".utf8)
        uri += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
      default: uri += String(decoding: [byte], as: UTF8.self)
      }
    }
    return uri + "?immutable=1"
  }

  /// A SQLite error as the user reads it: a lock held past the busy timeout says who holds it.
  static func databaseError(_ error: SQLiteError, path: String) -> HealthPortError {
    if error.isBusy {
      return busyError(path: path)
    }
    return HealthPortError(.failure, "\(path): error: \(error)")
  }

  static func busyError(path: String) -> HealthPortError {
    HealthPortError(
      .failure,
      "\(path): error: another load (or another program writing to it) holds this database; waited for it "
        + "to finish, in vain. Run this load again once the other has finished.")
  }

  /// A database that does not exist yet, built under a temporary name beside it (no journal, no
  /// fsync until the end) and put in place by ``install()`` when the load is complete: nothing
  /// is ever seen at `path` half-built. The temporary file (`PATH.healthport-PID`) and SQLite's
  /// side files are registered in ``TemporaryFiles`` meanwhile, so that an interrupted load
  /// removes them (only SIGKILL or a crash can leave them). Without a journal there are no fsyncs per commit and
  /// no WAL to copy back: each page is written once.
  final class NewDatabase {
    let path: String
    let temporaryPath: String
    /// `path` was an empty file (replaced), not missing (which must not be replaced if another
    /// load creates it meanwhile).
    let replacesEmptyFile: Bool
    private var registrations: [TemporaryFiles.Registration] = []

    init(path: String, replacesEmptyFile: Bool) {
      self.path = path
      self.replacesEmptyFile = replacesEmptyFile
      temporaryPath = path + ".healthport-\(getpid())"
    }

    func open(busyTimeoutMilliseconds: Int32) throws -> SQLiteConnection {
      unlink(temporaryPath)
      if registrations.isEmpty { registrations = TemporaryFiles.registerDatabase(temporaryPath) }
      let created = Glibc.open(temporaryPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
      guard created >= 0 else {
        forget()
        throw HealthPortError(
          .failure, "\(path): error: cannot create the database: \(String(cString: strerror(errno)))")
      }
      Glibc.close(created)
      let db = try SQLiteConnection(path: temporaryPath, mode: .readWriteCreate)
      db.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
      try db.execute(
        """
        PRAGMA page_size = \(SQLiteLoader.pageSize); PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
        PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -32768; PRAGMA temp_store = MEMORY;
        PRAGMA foreign_keys = OFF;
        """)
      try SQLiteLoader.prepareSchema(db, path: path)
      return db
    }

    /// Makes the finished file durable, then gives it its name (refusing to replace a database
    /// that another load created meanwhile).
    func install() throws {
      defer { forget() }
      // A database that may not be on disk must not take the name: a power loss would leave a
      // database that says it holds what it does not.
      let fd = Glibc.open(temporaryPath, O_RDONLY | O_CLOEXEC)
      guard fd >= 0, fsync(fd) == 0 else {
        let code = errno
        if fd >= 0 { Glibc.close(fd) }
        discard()
        throw HealthPortError(
          .failure, "\(path): error: cannot write the new database to disk: \(String(cString: strerror(code)))")
      }
      Glibc.close(fd)
      if replacesEmptyFile {
        guard rename(temporaryPath, path) == 0 else { throw failure("cannot rename the new database") }
      } else {
        guard link(temporaryPath, path) == 0 else {
          let code = errno
          discard()
          if code == EEXIST {
            throw HealthPortError(
              .failure,
              "\(path): error: another load created this database while this one ran; nothing was added. Run "
                + "this load again to add its export.")
          }
          throw failure("cannot create the database")
        }
        unlink(temporaryPath)
      }
      let directory = path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) : "."
      let dirFD = Glibc.open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      if dirFD >= 0 {
        _ = fsync(dirFD)  // best effort: some file systems cannot sync a directory (EINVAL)
        Glibc.close(dirFD)
      }
    }

    func discard() {
      unlink(temporaryPath)
      forget()
    }

    /// Unregisters the temporary file once it was renamed into place or removed.
    private func forget() {
      TemporaryFiles.unregister(registrations)
      registrations = []
    }

    private func failure(_ what: String) -> HealthPortError {
      let reason = String(cString: strerror(errno))
      discard()
      return HealthPortError(.failure, "\(path): error: \(what): \(reason)")
    }
  }

  /// The database for a load: a ``NewDatabase`` when `path` is missing or an empty file with no
  /// WAL beside it, else the file itself (``openDatabase(path:busyTimeoutMilliseconds:)``).
  static func newDatabase(path: String) throws -> NewDatabase? {
    switch try inspect(path: path) {
    case .missing: return NewDatabase(path: path, replacesEmptyFile: false)
    case .empty:
      var info = stat()
      let sideFiles = ["-wal", "-journal", "-shm"].contains { stat(path + $0, &info) == 0 }
      return sideFiles ? nil : NewDatabase(path: path, replacesEmptyFile: true)
    case .healthport: return nil
    }
  }

  // MARK: One-call API

  /// Loads each export in `paths` into the database at `database` as `person`; one `exports`
  /// row per input that held at least one element. `readOptions` gives the reader's options for
  /// each input (progress bars); `wrap` puts stages (a filter) between the reader and the loader.
  /// A reader's error (a truncated or malformed input) stops the
  /// load after committing every whole element read before it, then is rethrown.
  @discardableResult
  public static func load(
    paths: [String?], database: String, person: String = "",
    readOptions: (String?) -> ReadOptions = { _ in ReadOptions() },
    wrap: (ExportSink) -> ExportSink = { $0 },
    batchRows: Int = defaultBatchRows, pipelined: Bool = true,
    busyTimeoutMilliseconds: Int32 = defaultBusyTimeoutMilliseconds
  ) throws -> [Result] {
    let new = try newDatabase(path: database)
    let db: SQLiteConnection
    do {
      db =
        try new?.open(busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        ?? openDatabase(path: database, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    } catch {
      new?.discard()
      if let error = error as? SQLiteError { throw databaseError(error, path: database) }
      throw error
    }
    var results: [Result] = []
    var readerError: Error?
    do {
      defer { try? db.close() }
      let checkpointer: Checkpointer?
      do { checkpointer = try new == nil ? startCheckpointer(db) : nil } catch let error as SQLiteError {
        throw databaseError(error, path: database)
      }
      // Runs before the connection closes (defers run in reverse order), so that it is the last one.
      defer { try? checkpointer?.finish() }
      for path in paths {
        let loader = try SQLiteLoader(database: db, person: person, inputPath: path ?? "-", batchRows: batchRows)
        loader.checkpointer = checkpointer
        defer { loader.close() }
        // Parsing on this thread, SQLite on another (a 2-core machine loads about twice as fast).
        let pipeline = pipelined ? LoaderPipeline(sink: loader) : nil
        do {
          try ExportReader(path: path, options: readOptions(path)).read(into: wrap(pipeline ?? loader))
        } catch {
          let sinkFailed = pipeline?.sinkFailed ?? (error is SQLiteError)
          if sinkFailed {
            pipeline?.cancel()
            loader.abort()
            if let error = error as? SQLiteError { throw databaseError(error, path: database) }
            throw error
          }
          // The input is damaged: keep every whole element read before the damage.
          do {
            if let pipeline { try pipeline.finishAfterReadError() } else { try loader.commitPartial() }
          } catch {
            pipeline?.cancel()
            loader.abort()
            if let error = error as? SQLiteError { throw databaseError(error, path: database) }
            throw error
          }
          if loader.began { results.append(loader.result) }
          readerError = error
          break
        }
        results.append(loader.result)
      }
      do {
        try checkpointer?.finish()
        // A new database leaves in WAL mode, as every later load leaves it (which then needs no
        // exclusive lock to switch).
        if new != nil, !results.isEmpty { _ = try db.scalarText("PRAGMA journal_mode = WAL") }
        try db.close()
      } catch let error as SQLiteError {
        throw databaseError(error, path: database)
      }
    } catch {
      new?.discard()
      throw error
    }
    if let new {
      // An input found empty before its first element creates nothing.
      if results.isEmpty { new.discard() } else { try new.install() }
    }
    if let readerError { throw readerError }
    return results
  }

  /// Checkpoints the WAL on a thread of its own (see ``Checkpointer``) when the database is in
  /// WAL mode. The loading connection still checkpoints at commits once the WAL has grown to
  /// ``walCheckpointBytes`` (`wal_autocheckpoint`), but by then the other thread has copied all but the last
  /// batch: what is left to copy is small, and only a checkpoint of the loading connection lets
  /// SQLite start the WAL over, which keeps the file small.
  static func startCheckpointer(_ db: SQLiteConnection) throws -> Checkpointer? {
    guard try db.scalarText("PRAGMA journal_mode") == "wal" else { return nil }
    return try Checkpointer(path: db.path)
  }

  /// Finalizes the prepared statements, so that the connection can close (and SQLite can
  /// checkpoint and remove the WAL file) when it is released.
  public func close() {
    s = nil
    beatInserts = [:]
    sourceIDs = [:]
  }

  /// Rolls back the open batch (what was committed stays; a rerun completes it).
  public func abort() {
    if !db.isAutocommit { try? db.execute("ROLLBACK") }
  }

  // MARK: ExportSink

  public func begin(_ header: ExportHeader) throws {
    started = Self.now()
    try db.execute("BEGIN IMMEDIATE")
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

  public func consume(_ element: ExportElement) throws {
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
      try db.execute("BEGIN IMMEDIATE")
      pending = 0
    }
  }

  /// After a reader's error: writes what was read and added into this load's `exports` row
  /// (`completed` stays 0) and commits it with every whole element before the damage.
  public func commitPartial() throws {
    guard began, !db.isAutocommit else { return }
    result.seconds = Self.now() - started
    var b = Binder(s.countExport, text)
    try recordCountsAndCommit(&b)
  }

  public func end(_ report: ReadReport) throws {
    result.inputBytes = report.documentBytes
    result.skipped = report.skipped.count
    // The reader's notes (a CSV with a header but no rows) go to stderr as for every command.
    result.warnings.append(contentsOf: report.notes)
    result.seconds = Self.now() - started
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
    try db.execute("COMMIT")
    checkpointer?.request()
    pending = 0
  }

  // MARK: Elements

  private func count(_ table: Table, _ rows: Int = 1) {
    result.added[table.rawValue] += rows
    pending += rows
  }

  private func insert(_ record: Record) throws {
    let sourceID = try self.sourceID(record.sourceName, record.sourceVersion, record.deviceString, record.sourceProduct)
    let hash = ContentHash.of(record)
    var b = Binder(s.insertRecord, text)
    try b.add(person)
    try b.add(record.type)
    try b.add(sourceID)
    try b.add(record.unit)
    try b.add(record.value)
    try b.add(record.value.flatMap(DecimalText.double))
    try b.add(date: record.creationDate)
    try b.add(Self.creationKey(record.creationDate))
    try b.add(date: record.startDate, localDay: true)
    try b.add(date: record.endDate)
    try b.add(hash)
    try b.add(result.exportID)
    guard try b.run() == 1 else {
      try seen(
        s.seenRecord, record.type, record.startDate.secondsSince1970, record.endDate.secondsSince1970, sourceID,
        Self.creationKey(record.creationDate), hash)
      return
    }
    count(.records)
    let id = db.lastInsertRowID
    try insertExtras(record.extraAttributes, owner: "record", id)
    for (position, child) in record.children.enumerated() {
      switch child {
      case .metadata(let entry): try insertMetadata(entry, owner: "record", id, position)
      case .heartRateVariability(let list):
        try insertExtras(list.extraAttributes, owner: "hrv_list", id)
        if let beats = Self.plainBeats(list) {
          try insertBeats(beats, recordID: id)
          continue
        }
        for (beatPosition, item) in list.children.enumerated() {
          switch item {
          case .beat(let beat):
            var b = Binder(s.insertBeat, text)
            try b.add(person)
            try b.add(id)
            try b.add(beatPosition)
            try b.add(beat.bpm)
            try b.add(beat.time)
            try b.run()
            count(.hrvBeats)
            let beatID = db.lastInsertRowID
            try insertExtras(beat.extraAttributes, owner: "hrv_beat", beatID)
            for (n, node) in beat.extraChildren.enumerated() { try insertExtra(node, owner: "hrv_beat", beatID, n) }
          case .other(let node): try insertExtra(node, owner: "hrv_list", id, beatPosition)
          }
        }
      case .other(let node): try insertExtra(node, owner: "record", id, position)
      }
    }
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
  private var beatInserts: [Int: SQLiteStatement] = [:]

  /// Inserts plain beats (see ``plainBeats(_:)``) up to ``beatsPerInsert`` rows per statement:
  /// a heart-rate-variability record has dozens, and one statement per beat costs SQLite as much
  /// again in statement overhead as in inserting. The rows and their ids are the same as one by one.
  private func insertBeats(_ beats: [InstantaneousBeatsPerMinute], recordID: Int64) throws {
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
      for position in start..<(start + rows) {
        try b.add(person)
        try b.add(recordID)
        try b.add(position)
        try b.add(beats[position].bpm)
        try b.add(beats[position].time)
      }
      try b.run()
      count(.hrvBeats, rows)
      start += rows
    }
  }

  private func insert(_ correlation: Correlation) throws {
    let sourceID = try self.sourceID(
      correlation.sourceName, correlation.sourceVersion, correlation.deviceString, correlation.sourceProduct)
    let hash = ContentHash.of(correlation)
    var b = Binder(s.insertCorrelation, text)
    try b.add(person)
    try b.add(correlation.type)
    try b.add(sourceID)
    try b.add(date: correlation.creationDate)
    try b.add(Self.creationKey(correlation.creationDate))
    try b.add(date: correlation.startDate)
    try b.add(date: correlation.endDate)
    try b.add(hash)
    try b.add(result.exportID)
    guard try b.run() == 1 else {
      try seen(
        s.seenCorrelation, correlation.type, correlation.startDate.secondsSince1970,
        correlation.endDate.secondsSince1970, sourceID, Self.creationKey(correlation.creationDate), hash)
      return
    }
    count(.correlations)
    let id = db.lastInsertRowID
    try insertExtras(correlation.extraAttributes, owner: "correlation", id)
    for (position, child) in correlation.children.enumerated() {
      switch child {
      case .metadata(let entry): try insertMetadata(entry, owner: "correlation", id, position)
      case .record(let record): try insertCorrelationRecord(record, correlationID: id, position)
      case .other(let node): try insertExtra(node, owner: "correlation", id, position)
      }
    }
  }

  private func insertCorrelationRecord(_ record: Record, correlationID: Int64, _ position: Int) throws {
    let sourceID = try self.sourceID(record.sourceName, record.sourceVersion, record.deviceString, record.sourceProduct)
    // The same Record at top level (the export writes both), if it is loaded already.
    var find = Binder(s.findRecord, text)
    try find.add(person)
    try find.add(record.type)
    try find.add(record.startDate.secondsSince1970)
    try find.add(record.endDate.secondsSince1970)
    try find.add(sourceID)
    try find.add(Self.creationKey(record.creationDate))
    try find.add(ContentHash.of(record))
    let recordID: Int64? = try s.findRecord.step() ? s.findRecord.int64(0) : nil
    s.findRecord.reset()

    var b = Binder(s.insertCorrelationRecord, text)
    try b.add(person)
    try b.add(correlationID)
    try b.add(position)
    try b.add(recordID)
    try b.add(record.type)
    try b.add(sourceID)
    try b.add(record.unit)
    try b.add(record.value)
    try b.add(record.value.flatMap(DecimalText.double))
    try b.add(date: record.creationDate)
    try b.add(date: record.startDate)
    try b.add(date: record.endDate)
    try b.run()
    count(.correlationRecords)
    let id = db.lastInsertRowID
    try insertExtras(record.extraAttributes, owner: "correlation_record", id)
    for (n, child) in record.children.enumerated() {
      switch child {
      case .metadata(let entry): try insertMetadata(entry, owner: "correlation_record", id, n)
      case .heartRateVariability(let list): try insertExtra(Self.node(of: list), owner: "correlation_record", id, n)
      case .other(let node): try insertExtra(node, owner: "correlation_record", id, n)
      }
    }
  }

  private func insert(_ workout: Workout) throws {
    let sourceID = try self.sourceID(
      workout.sourceName, workout.sourceVersion, workout.deviceString, workout.sourceProduct)
    var b = Binder(s.insertWorkout, text)
    try b.add(person)
    try b.add(workout.workoutActivityType)
    try b.add(workout.duration)
    try b.add(workout.durationUnit)
    try b.add(workout.totalDistance)
    try b.add(workout.totalDistanceUnit)
    try b.add(workout.totalEnergyBurned)
    try b.add(workout.totalEnergyBurnedUnit)
    try b.add(sourceID)
    try b.add(date: workout.creationDate)
    try b.add(Self.creationKey(workout.creationDate))
    try b.add(date: workout.startDate)
    try b.add(date: workout.endDate)
    let totals = WorkoutMeasures(workout)
    try b.add(totals.durationMinutes)
    try b.add(totals.distanceKilometres)
    try b.add(totals.energyKilocalories)
    try b.add(result.exportID)
    guard try b.run() == 1 else {
      var seen = Binder(s.seenWorkout, text)
      try seen.add(result.exportID)
      try seen.add(person)
      try seen.add(workout.workoutActivityType)
      try seen.add(workout.startDate.secondsSince1970)
      try seen.add(workout.endDate.secondsSince1970)
      try seen.add(sourceID)
      try seen.add(Self.creationKey(workout.creationDate))
      try seen.run()
      pending += 1
      return
    }
    count(.workouts)
    let id = db.lastInsertRowID
    try insertExtras(workout.extraAttributes, owner: "workout", id)
    for (position, child) in workout.children.enumerated() {
      switch child {
      case .metadata(let entry): try insertMetadata(entry, owner: "workout", id, position)
      case .event(let event): try insert(event, workoutID: id, activityID: nil, position)
      case .statistics(let statistics): try insert(statistics, workoutID: id, activityID: nil, position)
      case .route(let route): try insert(route, workoutID: id, position)
      case .activity(let activity): try insert(activity, workoutID: id, position)
      case .other(let node): try insertExtra(node, owner: "workout", id, position)
      }
    }
  }

  private func insert(_ activity: WorkoutActivity, workoutID: Int64, _ position: Int) throws {
    var b = Binder(s.insertActivity, text)
    try b.add(person)
    try b.add(workoutID)
    try b.add(position)
    try b.add(activity.uuid)
    try b.add(date: activity.startDate)
    try b.add(date: activity.endDate)
    try b.add(activity.duration)
    try b.add(activity.durationUnit)
    try b.run()
    count(.workoutActivities)
    let id = db.lastInsertRowID
    try insertExtras(activity.extraAttributes, owner: "workout_activity", id)
    for (n, child) in activity.children.enumerated() {
      switch child {
      case .metadata(let entry): try insertMetadata(entry, owner: "workout_activity", id, n)
      case .event(let event): try insert(event, workoutID: workoutID, activityID: id, n)
      case .statistics(let statistics): try insert(statistics, workoutID: workoutID, activityID: id, n)
      case .other(let node): try insertExtra(node, owner: "workout_activity", id, n)
      }
    }
  }

  private func insert(_ event: WorkoutEvent, workoutID: Int64, activityID: Int64?, _ position: Int) throws {
    var b = Binder(s.insertEvent, text)
    try b.add(person)
    try b.add(workoutID)
    try b.add(activityID)
    try b.add(position)
    try b.add(event.type)
    try b.add(date: event.date)
    try b.add(event.duration)
    try b.add(event.durationUnit)
    try b.run()
    count(.workoutEvents)
    let id = db.lastInsertRowID
    try insertExtras(event.extraAttributes, owner: "workout_event", id)
    for (n, child) in event.children.enumerated() {
      switch child {
      case .metadata(let entry): try insertMetadata(entry, owner: "workout_event", id, n)
      case .other(let node): try insertExtra(node, owner: "workout_event", id, n)
      }
    }
  }

  private func insert(_ statistics: WorkoutStatistics, workoutID: Int64, activityID: Int64?, _ position: Int)
    throws
  {
    var b = Binder(s.insertStatistics, text)
    try b.add(person)
    try b.add(workoutID)
    try b.add(activityID)
    try b.add(position)
    try b.add(statistics.type)
    try b.add(date: statistics.startDate)
    try b.add(date: statistics.endDate)
    try b.add(statistics.average)
    try b.add(statistics.minimum)
    try b.add(statistics.maximum)
    try b.add(statistics.sum)
    try b.add(statistics.unit)
    try b.run()
    count(.workoutStatistics)
    let id = db.lastInsertRowID
    try insertExtras(statistics.extraAttributes, owner: "workout_statistics", id)
    for (n, node) in statistics.extraChildren.enumerated() {
      try insertExtra(node, owner: "workout_statistics", id, n)
    }
  }

  private func insert(_ route: WorkoutRoute, workoutID: Int64, _ position: Int) throws {
    let sourceID = try self.sourceID(route.sourceName, route.sourceVersion, route.deviceString, route.sourceProduct)
    var filePath: String?
    for child in route.children {
      if case .fileReference(let reference) = child {
        filePath = reference.path
        break
      }
    }
    var b = Binder(s.insertRoute, text)
    try b.add(person)
    try b.add(workoutID)
    try b.add(position)
    try b.add(sourceID)
    try b.add(date: route.creationDate)
    try b.add(date: route.startDate)
    try b.add(date: route.endDate)
    try b.add(filePath)
    try b.run()
    count(.workoutRoutes)
    let id = db.lastInsertRowID
    try insertExtras(route.extraAttributes, owner: "workout_route", id)
    var firstFile = true
    for (n, child) in route.children.enumerated() {
      switch child {
      case .metadata(let entry): try insertMetadata(entry, owner: "workout_route", id, n)
      case .fileReference(let reference):
        // The first reference is `file_path`; any further one (and unknown attributes) go to extras.
        if !firstFile {
          try insertExtra(
            ElementNode(name: "FileReference", attributes: [Attribute("path", reference.path)]),
            owner: "workout_route", id, n)
        }
        firstFile = false
        try insertExtras(reference.extraAttributes, owner: "file_reference", id)
      case .location(let node): try insertLocation(node, routeID: id, n)
      case .other(let node): try insertExtra(node, owner: "workout_route", id, n)
      }
    }
  }

  private static let locationColumns = [
    "latitude", "longitude", "altitude", "horizontalAccuracy", "verticalAccuracy", "course", "speed",
  ]

  private func insertLocation(_ node: ElementNode, routeID: Int64, _ position: Int) throws {
    var b = Binder(s.insertLocation, text)
    try b.add(person)
    try b.add(routeID)
    try b.add(position)
    let date = node[attribute: "date"]
    try b.add(date)
    let parsed = date.flatMap(HealthDate.init)
    try b.add(parsed?.secondsSince1970)
    try b.add(parsed.map { Int64($0.offsetSeconds / 60) })
    for name in Self.locationColumns { try b.add(node[attribute: name]) }
    try b.run()
    count(.routeLocations)
    let id = db.lastInsertRowID
    let known = Set(["date"] + Self.locationColumns)
    try insertExtras(node.attributes.filter { !known.contains($0.name) }, owner: "route_location", id)
    for (n, child) in node.children.enumerated() { try insertExtra(child, owner: "route_location", id, n) }
  }

  private static let summaryColumns = [
    "dateComponents", "activeEnergyBurned", "activeEnergyBurnedGoal", "activeEnergyBurnedUnit", "appleMoveTime",
    "appleMoveTimeGoal", "appleExerciseTime", "appleExerciseTimeGoal", "appleStandHours", "appleStandHoursGoal",
    "appleMoveMinutes", "appleMoveMinutesGoal",
  ]
  private static let summaryColumnSet = Set(summaryColumns)

  private func insert(_ summary: ActivitySummary) throws {
    let hash = ContentHash.of(summary.node)
    var b = Binder(s.insertSummary, text)
    try b.add(person)
    for name in Self.summaryColumns { try b.add(summary[attribute: name]) }
    try b.add(hash)
    try b.add(result.exportID)
    guard try b.run() == 1 else {
      var seen = Binder(s.seenSummary, text)
      try seen.add(result.exportID)
      try seen.add(person)
      try seen.add(summary.dateComponents)
      try seen.add(hash)
      try seen.run()
      pending += 1
      return
    }
    count(.activitySummaries)
    let id = db.lastInsertRowID
    try insertExtras(
      summary.node.attributes.filter { !Self.summaryColumnSet.contains($0.name) }, owner: "activity_summary", id)
    for (n, child) in summary.node.children.enumerated() { try insertExtra(child, owner: "activity_summary", id, n) }
  }

  private static let meColumns = [
    "HKCharacteristicTypeIdentifierDateOfBirth", "HKCharacteristicTypeIdentifierBiologicalSex",
    "HKCharacteristicTypeIdentifierBloodType", "HKCharacteristicTypeIdentifierFitzpatrickSkinType",
    "HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse",
  ]

  private func insert(_ me: Me) throws {
    try checkPerson(me)
    var b = Binder(s.insertMe, text)
    try b.add(person)
    for name in Self.meColumns { try b.add(me[attribute: name]) }
    try b.add(ContentHash.of(me.node))
    try b.add(result.exportID)
    guard try b.run() == 1 else { return }
    count(.me)
    let id = db.lastInsertRowID
    let known = Set(Self.meColumns)
    try insertExtras(me.node.attributes.filter { !known.contains($0.name) }, owner: "me", id)
    for (n, child) in me.node.children.enumerated() { try insertExtra(child, owner: "me", id, n) }
  }

  /// Warns when the database holds this person's characteristics with another date of birth or
  /// sex than this export's: most likely someone else's export loaded without `--person`.
  private func checkPerson(_ me: Me) throws {
    let birth = me[attribute: Self.meColumns[0]].flatMap { $0.isEmpty ? nil : $0 }
    let sex = me[attribute: Self.meColumns[1]].flatMap {
      $0.isEmpty || $0 == "HKBiologicalSexNotSet" ? nil : $0
    }
    guard birth != nil || sex != nil else { return }
    let query = try db.prepare("SELECT date_of_birth, biological_sex FROM me WHERE person = ?")
    try query.bind(1, person)
    var differs = false
    while try query.step() {
      let oldBirth = query.text(0) ?? ""
      let oldSex = query.text(1) ?? ""
      if let birth, !oldBirth.isEmpty, oldBirth != birth { differs = true }
      if let sex, !oldSex.isEmpty, oldSex != "HKBiologicalSexNotSet", oldSex != sex { differs = true }
    }
    guard differs else { return }
    let who = person.isEmpty ? "without --person" : "as person '\(person)'"
    result.warnings.append(
      "\(result.path): the database already holds an export with another date of birth or biological sex "
        + "(the Me element) for the same person: this looks like someone else's export, loaded \(who). Load "
        + "each person's export with --person NAME to keep them apart.")
  }

  private func insertOther(_ node: ElementNode) throws {
    result.otherElementsRead += 1
    let hash = ContentHash.of(node)
    var b = Binder(s.insertOther, text)
    try b.add(person)
    try b.add(node.name)
    try b.add(XMLFragment.string(node))
    try b.add(hash)
    try b.add(result.exportID)
    guard try b.run() == 1 else {
      var seen = Binder(s.seenOther, text)
      try seen.add(result.exportID)
      try seen.add(person)
      try seen.add(node.name)
      try seen.add(hash)
      try seen.run()
      pending += 1
      return
    }
    count(.otherElements)
  }

  // MARK: Children

  private func insertMetadata(_ entry: MetadataEntry, owner: String, _ ownerID: Int64, _ position: Int) throws {
    var b = Binder(s.insertMetadata, text)
    try b.add(person)
    try b.add(owner)
    try b.add(ownerID)
    try b.add(position)
    try b.add(entry.key)
    try b.add(entry.value)
    try b.run()
    count(.metadata)
    if !entry.extraAttributes.isEmpty || !entry.extraChildren.isEmpty {
      let id = db.lastInsertRowID
      try insertExtras(entry.extraAttributes, owner: "metadata", id)
      for (n, node) in entry.extraChildren.enumerated() { try insertExtra(node, owner: "metadata", id, n) }
    }
  }

  /// Unknown attributes of an element, in input order.
  private func insertExtras(_ attributes: [Attribute], owner: String, _ ownerID: Int64) throws {
    for (position, attribute) in attributes.enumerated() {
      try insertExtraRow(owner: owner, ownerID, position, kind: "attribute", attribute.name, attribute.value)
    }
  }

  /// An unknown child element, kept as XML.
  private func insertExtra(_ node: ElementNode, owner: String, _ ownerID: Int64, _ position: Int) throws {
    try insertExtraRow(owner: owner, ownerID, position, kind: "element", node.name, XMLFragment.string(node))
  }

  private func insertExtraRow(
    owner: String, _ ownerID: Int64, _ position: Int, kind: String, _ name: String, _ value: String
  ) throws {
    var b = Binder(s.insertExtra, text)
    try b.add(person)
    try b.add(owner)
    try b.add(ownerID)
    try b.add(position)
    try b.add(kind)
    try b.add(name)
    try b.add(value)
    try b.run()
    count(.extras)
  }

  /// Counts one more copy of an element that is already in the database (see the type's notes).
  private func seen(
    _ statement: SQLiteStatement, _ type: String, _ start: Int64, _ end: Int64, _ sourceID: Int64,
    _ creationKey: Int64, _ hash: Int64
  ) throws {
    var b = Binder(statement, text)
    try b.add(result.exportID)
    try b.add(person)
    try b.add(type)
    try b.add(start)
    try b.add(end)
    try b.add(sourceID)
    try b.add(creationKey)
    try b.add(hash)
    try b.run()
    pending += 1
  }

  // MARK: Sources

  struct SourceCacheKey: Hashable {
    var name: String
    var version: String?
    /// The device string after its `<<HKDevice: 0x…>` head (the address changes per sample).
    var device: Substring?
  }

  // The last source seen: consecutive samples nearly always share it. The device is compared by
  // the part after its address (``DeviceString/rest``), which the reader shares between samples.
  private var lastSourceID: Int64 = -1
  private var lastSourceName = ""
  private var lastSourceVersion: String?
  private var lastDevice: DeviceString?

  private func sourceID(_ name: String, _ version: String?, _ device: DeviceString?, _ product: String?) throws
    -> Int64
  {
    if lastSourceID >= 0, name == lastSourceName, version == lastSourceVersion, Self.sameTail(device, lastDevice) {
      return lastSourceID
    }
    let id = try lookUpSourceID(name, version, device?.description, product)
    lastSourceID = id
    lastSourceName = name
    lastSourceVersion = version
    lastDevice = device
    return id
  }

  /// True when both devices have the same ``deviceTail(_:)`` (a function of whether the string
  /// has the canonical address and of what follows it), or both are absent.
  static func sameTail(_ a: DeviceString?, _ b: DeviceString?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    return (a.address == nil) == (b.address == nil) && a.rest == b.rest
  }

  private func lookUpSourceID(_ name: String, _ version: String?, _ device: String?, _ product: String?) throws
    -> Int64
  {
    let tail = device.map(Self.deviceTail)
    let key = SourceCacheKey(name: name, version: version, device: tail)
    if let id = sourceIDs[key] { return id }
    let info = device.flatMap(DeviceInfo.init(parsing:))
    // The natural key: name, version and the device fields except `creation date` (which newer
    // exporters add to old devices).
    var sourceKey = name + "\u{1F}" + (version ?? "\u{0}") + "\u{1F}"
    if let info {
      let fields = [
        info.name, info.manufacturer, info.model, info.hardware, info.firmware, info.software, info.localIdentifier,
        info.udiDeviceIdentifier,
      ]
      sourceKey += fields.map { $0 ?? "\u{0}" }.joined(separator: "\u{1E}")
    } else {
      sourceKey += tail.map(String.init) ?? "\u{0}"
    }
    var b = Binder(s.insertSource, text)
    try b.add(person)
    try b.add(name)
    try b.add(version)
    try b.add(product ?? SourceProduct.derive(device: info, sourceName: name))
    try b.add(device)
    for field in [
      info?.name, info?.manufacturer, info?.model, info?.hardware, info?.firmware, info?.software,
      info?.localIdentifier, info?.udiDeviceIdentifier, info?.creationDate,
    ] {
      try b.add(field)
    }
    try b.add(sourceKey)
    if try b.run() == 1 { count(.sources) }
    var find = Binder(s.findSource, text)
    try find.add(person)
    try find.add(sourceKey)
    guard try s.findSource.step() else {
      s.findSource.reset()
      throw SQLiteError(code: 1, message: "source row missing after insert", context: sourceKey)
    }
    let id = s.findSource.int64(0)
    s.findSource.reset()
    sourceIDs[key] = id
    return id
  }

  static func deviceTail(_ device: String) -> Substring {
    let utf8 = device.utf8
    if utf8.starts(with: "<<HKDevice:".utf8), let close = utf8.firstIndex(of: UInt8(ascii: ">")) {
      return device[device.index(after: close)...]
    }
    return device[...]
  }

  // MARK: Helpers

  /// The `creation_key` column: the creation instant, or the sentinel without one.
  static func creationKey(_ date: HealthDate?) -> Int64 { date?.secondsSince1970 ?? SQLiteSchema.noCreationKey }

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

  static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

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

/// The memory the loader binds text from: an arena for the values of the statement being bound
/// (see ``TextArena``), and the writers' date formatter.
final class BindingText {
  let arena = TextArena()
  var dates = ExportDateFormatter()
  /// For the rare value that does not fit in the arena (bound with a copy).
  var scratch: [UInt8] = []
}

/// Binds parameters in order, text without copies (SQLITE_STATIC, from ``BindingText/arena``).
///
/// Every run binds every parameter of its statement, and ``run()`` empties the arena only once
/// the statement has run, so no statement ever reads arena memory that another has reused.
struct Binder {
  let statement: SQLiteStatement
  let text: BindingText
  var index: Int32 = 1

  init(_ statement: SQLiteStatement, _ text: BindingText) {
    self.statement = statement
    self.text = text
  }

  /// Runs the statement to completion, then frees the arena; returns the rows changed.
  @discardableResult
  mutating func run() throws -> Int {
    defer { text.arena.reset() }
    return try statement.run()
  }

  mutating func add(_ value: String) throws {
    var value = value
    let stored = value.withUTF8 { text.arena.copy($0) }
    if let stored { try statement.bindStatic(index, utf8: stored) } else { try statement.bind(index, value) }
    index += 1
  }
  mutating func add(_ value: String?) throws {
    if let value { try add(value) } else { try addNull() }
  }
  mutating func addNull() throws {
    try statement.bindNull(index)
    index += 1
  }
  mutating func add(_ value: Int64) throws {
    try statement.bind(index, value)
    index += 1
  }
  mutating func add(_ value: Int64?) throws {
    try statement.bind(index, value)
    index += 1
  }
  mutating func add(_ value: Int) throws {
    try statement.bind(index, Int64(value))
    index += 1
  }
  mutating func add(_ value: Double) throws {
    try statement.bind(index, value)
    index += 1
  }
  mutating func add(_ value: Double?) throws {
    try statement.bind(index, value)
    index += 1
  }

  /// Three parameters: the date as written, Unix seconds, UTC offset in minutes (NULLs when absent);
  /// with `localDay`, a fourth: the local day as written (`YYYY-MM-DD`, the string's first 10 bytes).
  mutating func add(date: HealthDate?, localDay: Bool = false) throws {
    let dayIndex = index + 3
    if let date {
      if let room = text.arena.reserve(ExportDateFormatter.writeRoom),
        let count = text.dates.write(date, to: room.baseAddress!)
      {
        try statement.bindStatic(index, utf8: UnsafeBufferPointer(rebasing: room[..<count]))
        if localDay { try statement.bindStatic(dayIndex, utf8: UnsafeBufferPointer(rebasing: room[..<min(10, count)])) }
      } else {
        text.scratch.removeAll(keepingCapacity: true)
        date.append(to: &text.scratch)
        try statement.bindText(index, utf8: text.scratch)
        if localDay { try statement.bindText(dayIndex, utf8: Array(text.scratch.prefix(10))) }
      }
      try statement.bind(index + 1, date.secondsSince1970)
      try statement.bind(index + 2, Int64(date.offsetSeconds / 60))
    } else {
      try statement.bindNull(index)
      try statement.bindNull(index + 1)
      try statement.bindNull(index + 2)
      if localDay { try statement.bindNull(dayIndex) }
    }
    index += localDay ? 4 : 3
  }
}
