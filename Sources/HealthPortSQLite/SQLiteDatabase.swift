import HealthPort
import SQLiteStore

#if canImport(Glibc)
  import Glibc
#endif

/// Opening a healthport database: inspecting what a path holds, creating or migrating the schema,
/// building a new database under a temporary name, and the errors a person reads about it.
package enum SQLiteDatabase {
  /// Opens the database at `path` in place (WAL journal), creating the schema in a new or empty
  /// file and migrating an older healthport schema. A file that is not a healthport database, or
  /// one of a later schema version, is refused before anything is written to it or beside it.
  package static func open(
    path: String, busyTimeoutMilliseconds: Int32 = defaultBusyTimeoutMilliseconds
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

  /// The page cache of a loading connection, in KiB. A 100 MB export's database already fills it,
  /// so `load`'s peak is the same at every size (with 32 MiB: 77 MB at 100 MB, 106 MB at 1 GB);
  /// what does not fit is read back from the operating system's cache.
  static let cacheKiB = 16384

  private static func open(path: String, state: DatabaseState, busyTimeoutMilliseconds: Int32) throws
    -> SQLiteConnection
  {
    let db = try SQLiteConnection(path: path, mode: .readWriteCreate)
    do {
      db.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
      if state == .healthport { try checkIntegrity(db, path: path) }
      // A new database gets pages of 16 KiB instead of 4 (which only a new file can choose, before
      // it is in WAL mode): fewer, shallower B-tree pages and WAL frames make a 1 GB load's SQLite
      // thread about 13 % faster. Existing databases keep their page size.
      if state != .healthport { try db.execute("PRAGMA page_size = \(pageSize)") }
      try db.execute(
        """
        PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -\(cacheKiB);
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

  /// Opens the existing healthport database at `path`, a private copy thrown away after any
  /// failure (``SQLiteLoadJob/scratch``), without a journal, fsyncs or an integrity check; when
  /// `shared`, in WAL mode (still without fsyncs) for a reader beside the load.
  static func openScratch(path: String, shared: Bool = false) throws -> SQLiteConnection {
    let db = try SQLiteConnection(path: path, mode: .readWrite)
    do {
      try db.execute(shared ? sharedScratchPragmas : scratchPragmas)
      try prepareSchema(db, path: path)
    } catch {
      try? db.close()
      throw error
    }
    return db
  }

  /// No journal, no fsync, one connection: a database nobody else reads until it is complete.
  static let scratchPragmas = """
    PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;
    PRAGMA cache_size = -\(cacheKiB); PRAGMA temp_store = MEMORY; PRAGMA foreign_keys = OFF;
    """

  /// A scratch database that another connection reads while it is loaded.
  static let sharedScratchPragmas = """
    PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA cache_size = -\(cacheKiB);
    PRAGMA temp_store = MEMORY; PRAGMA foreign_keys = OFF;
    """

  /// Refuses a damaged database before anything is written to it: `PRAGMA quick_check` reads
  /// every page (0.07 s on a 47 MB database here), so that a load never adds to a b-tree it would only
  /// damage further, and the user learns of it from healthport rather than from a raw SQLite error
  /// later.
  static func checkIntegrity(_ db: SQLiteConnection, path: String) throws {
    let verdict: String?
    do {
      verdict = try db.scalarText("PRAGMA quick_check(1)")
    } catch let error as SQLiteError where error.isCorrupt || error.isNotADatabase {
      verdict = error.message
    }
    guard let verdict, verdict != "ok" else { return }
    throw HealthPortError(.damagedDatabase(verdict: verdict), file: path)
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
      guard version < SQLiteSchema.version else { return }
      try migrate(db, from: version)
    }
  }

  /// Brings a healthport database of an earlier `version` to the current one (inside the
  /// caller's transaction): drops the views, runs every later step in order, creates the views.
  static func migrate(_ db: SQLiteConnection, from version: Int64) throws {
    try db.execute(SQLiteSchema.viewNames.map { "DROP VIEW IF EXISTS \($0);" }.joined(separator: "\n"))
    for step in SQLiteSchema.migrationSteps where step.version > version { try step.run(db) }
    try db.execute(SQLiteSchema.allViews)
    try db.execute("PRAGMA user_version = \(SQLiteSchema.version)")
  }

  /// The page size of new databases.
  static let pageSize = 16_384
  /// The WAL size at which the loading connection checkpoints (see ``startCheckpointer(_:)``).
  static let walCheckpointBytes: Int64 = 64 << 20
  /// How long a load waits for another connection's write lock (another load) before giving up.
  package static let defaultBusyTimeoutMilliseconds: Int32 = 90_000

  enum DatabaseState { case missing, empty, healthport }

  /// Decides from the file's header alone (no SQLite connection, which could create `-wal` and
  /// `-shm` files beside a database it then refuses) what `path` is. Only a file whose header
  /// says neither healthport nor foreign needs its schema counted, through an immutable
  /// read-only connection, which creates nothing either.
  static func inspect(path: String) throws -> DatabaseState {
    var info = stat()
    if stat(path, &info) != 0 { return .missing }
    if (info.st_mode & S_IFMT) == S_IFDIR { throw HealthPortError(.failure, file: path, message: "is a directory") }
    // A WAL left by an interrupted writer may hold a newer header than the file: let SQLite read it.
    let hasWAL = stat(path + "-wal", &info) == 0 && info.st_size > 0
    var header = [UInt8](repeating: 0, count: 100)
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw HealthPortError(.failure, file: path, message: "cannot open: \(String(cString: strerror(errno)))")
    }
    let got = read(fd, &header, 100)
    Glibc.close(fd)
    if got == 0 && !hasWAL { return .empty }
    guard got == 100, Array(header[0..<16]) == SQLiteHeader.magic else {
      throw HealthPortError(.notSQLiteDatabase, file: path)
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
          throw HealthPortError(.notSQLiteDatabase, file: path)
        }
        throw HealthPortError(.failure, file: path, message: "cannot read the database: \(error)")
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
      file: path,
      message: "this SQLite database was not created by healthport (application_id \(applicationID), "
        + "\(max(objects, 0)) schema objects); it was left unchanged. Load into a new file or a healthport database.")
  }

  static func laterVersion(path: String, _ version: Int64) -> HealthPortError {
    HealthPortError(.laterSchemaVersion(version, supported: SQLiteSchema.version), file: path)
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
    if error.isNotWritable {
      return HealthPortError(
        .failure, file: path,
        message: "cannot write the database: it, or its folder, is read-only (a load writes the database and "
          + "the -wal and -shm files SQLite keeps beside it); it was left unchanged")
    }
    // A full disk, a file size limit, a failing device: the system's cause, not SQLite's codes.
    if error.isIOError || error.isFull {
      let cause =
        error.systemErrno > 0
        ? String(cString: strerror(error.systemErrno))
        : error.isFull ? "the disk is full" : "the system refused a read or write (\(error.message))"
      return HealthPortError(
        .failure, file: path, message: "cannot write the database: \(cause)")
    }
    return HealthPortError(.failure, file: path, message: "\(error)")
  }

  static func busyError(path: String) -> HealthPortError {
    HealthPortError(
      .failure,
      file: path,
      message: "another load (or another program writing to it) holds this database; waited for it "
        + "to finish, in vain. Run this load again once the other has finished.")
  }

  /// Another load created the database while this one built it under its temporary name: this
  /// load's rows were not added. ``SQLiteLoadJob`` then loads its inputs again, into that database.
  struct CreatedMeanwhile: Error, CustomStringConvertible {
    let path: String

    var error: HealthPortError {
      HealthPortError(
        .failure, file: path,
        message: "another load created this database while this one ran; nothing was added. Run this load "
          + "again to add its export.")
    }

    var description: String { error.description }
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
          .failure, file: path, message: "cannot create the database: \(String(cString: strerror(errno)))")
      }
      Glibc.close(created)
      let db = try SQLiteConnection(path: temporaryPath, mode: .readWriteCreate)
      db.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
      try db.execute("PRAGMA page_size = \(SQLiteDatabase.pageSize); " + SQLiteDatabase.scratchPragmas)
      try SQLiteDatabase.prepareSchema(db, path: path)
      return db
    }

    /// Makes the finished file durable (unless not `durable`: a scratch copy), then gives it its
    /// name (refusing to replace a database that another load created meanwhile).
    func install(durable: Bool = true) throws {
      defer { forget() }
      // A database that may not be on disk must not take the name: a power loss would leave a
      // database that says it holds what it does not.
      let fd = Glibc.open(temporaryPath, O_RDONLY | O_CLOEXEC)
      guard fd >= 0, !durable || fsync(fd) == 0 else {
        let code = errno
        if fd >= 0 { Glibc.close(fd) }
        discard()
        throw HealthPortError(
          .failure, file: path, message: "cannot write the new database to disk: \(String(cString: strerror(code)))")
      }
      Glibc.close(fd)
      if replacesEmptyFile {
        guard rename(temporaryPath, path) == 0 else { throw failure("cannot rename the new database") }
      } else {
        guard link(temporaryPath, path) == 0 else {
          let code = errno
          discard()
          if code == EEXIST { throw CreatedMeanwhile(path: path) }
          throw failure("cannot create the database")
        }
        unlink(temporaryPath)
      }
      guard durable else { return }
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
      return HealthPortError(.failure, file: path, message: "\(what): \(reason)")
    }
  }

  /// The database for a load: a ``NewDatabase`` when `path` is missing or an empty file with no
  /// WAL beside it, else the file itself (``open(path:busyTimeoutMilliseconds:)``).
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

  /// Checkpoints the WAL on a thread of its own (see ``Checkpointer``) when the database is in
  /// WAL mode. The loading connection still checkpoints at commits once the WAL has grown to
  /// ``walCheckpointBytes`` (`wal_autocheckpoint`), but by then the other thread has copied all but the last
  /// batch: what is left to copy is small, and only a checkpoint of the loading connection lets
  /// SQLite start the WAL over, which keeps the file small.
  static func startCheckpointer(_ db: SQLiteConnection) throws -> Checkpointer? {
    guard try db.scalarText("PRAGMA journal_mode") == "wal" else { return nil }
    return try Checkpointer(path: db.path)
  }

  /// Seconds on the monotonic clock (busy-wait deadlines, a load's duration).
  static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}
