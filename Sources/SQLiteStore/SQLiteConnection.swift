import CSQLite

/// A failed SQLite call: the result code, SQLite's message and what healthport was doing.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
  /// The primary or extended result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE`, …).
  public var code: Int32
  public var message: String
  /// The SQL or the operation that failed, when known.
  public var context: String?
  /// The system's error number behind an I/O error (`sqlite3_system_errno`), 0 when none.
  public var systemErrno: Int32 = 0

  public init(code: Int32, message: String, context: String? = nil, systemErrno: Int32 = 0) {
    self.code = code
    self.message = message
    self.context = context
    self.systemErrno = systemErrno
  }

  /// True for a failed read or write of the file (`SQLITE_IOERR_…`).
  public var isIOError: Bool { primaryCode == SQLITE_IOERR }

  /// The primary result code (`SQLITE_CONSTRAINT` for `SQLITE_CONSTRAINT_UNIQUE`).
  public var primaryCode: Int32 { code & 0xFF }

  /// True when the file is not a database (or is encrypted).
  public var isNotADatabase: Bool { primaryCode == SQLITE_NOTADB }

  /// True when another connection holds a lock this call needed (`SQLITE_BUSY`).
  public var isBusy: Bool { primaryCode == SQLITE_BUSY }

  /// True when the file's pages are damaged (`SQLITE_CORRUPT`).
  public var isCorrupt: Bool { primaryCode == SQLITE_CORRUPT }

  /// True when the file or its folder cannot be written (`SQLITE_READONLY`, or `SQLITE_CANTOPEN`
  /// for the `-wal` and `-shm` files beside it).
  public var isNotWritable: Bool { primaryCode == SQLITE_READONLY || primaryCode == SQLITE_CANTOPEN }

  /// True when the disk or the database is full.
  public var isFull: Bool { primaryCode == SQLITE_FULL }

  public var description: String {
    let name = String(cString: sqlite3_errstr(code))
    var text = "SQLite error \(code) (\(name)): \(message)"
    if let context { text += " [\(context)]" }
    return text
  }
}

/// How to open a database.
public struct SQLiteOpenMode: Sendable {
  public var flags: Int32
  public static let readOnly = SQLiteOpenMode(flags: SQLITE_OPEN_READONLY)
  public static let readWrite = SQLiteOpenMode(flags: SQLITE_OPEN_READWRITE)
  public static let readWriteCreate = SQLiteOpenMode(flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
  /// Read-only, the path being a `file:` URI (e.g. with `?immutable=1`).
  public static let readOnlyURI = SQLiteOpenMode(flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
}

/// One connection to a database file. Not thread-safe: use it from one thread.
public final class SQLiteConnection {
  let handle: OpaquePointer
  public let path: String

  /// Opens (and with `.readWriteCreate` creates) the database at `path`.
  public init(path: String, mode: SQLiteOpenMode = .readWriteCreate) throws {
    _ = Self.configureOnce
    var pointer: OpaquePointer?
    // A path is a path: `file:x.db` names the file `file:x.db`, not a URI (SQLite may be built
    // to read URIs everywhere), unless the mode asks for a URI.
    let name = (mode.flags & SQLITE_OPEN_URI) == 0 && path.hasPrefix("file:") ? "./" + path : path
    let rc = sqlite3_open_v2(name, &pointer, mode.flags | SQLITE_OPEN_NOMUTEX, nil)
    guard rc == SQLITE_OK, let pointer else {
      let message = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
      if let pointer { sqlite3_close_v2(pointer) }
      throw SQLiteError(code: rc, message: message, context: "open \(path)")
    }
    handle = pointer
    self.path = path
    sqlite3_extended_result_codes(handle, 1)
  }

  private var isClosed = false

  /// Process-wide settings that must precede the library's initialization.
  private static let configureOnce: Void = { _ = cx_sqlite_disable_memstatus() }()

  deinit { if !isClosed { sqlite3_close_v2(handle) } }

  /// Closes the connection now (the last one to close a WAL database checkpoints it and removes
  /// the `-wal` file). Finalize or release every statement first; later calls do nothing.
  public func close() throws {
    guard !isClosed else { return }
    let rc = sqlite3_close(handle)
    if rc == SQLITE_OK { isClosed = true }
    try check(rc, "close \(path)")
  }

  /// Turns a result code into a thrown ``SQLiteError`` (the one place that does).
  @inline(__always)
  func check(_ rc: Int32, _ context: @autoclosure () -> String? = nil) throws {
    guard rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE else { throw error(rc, context()) }
  }

  /// The error for a failed call, with SQLite's message for this connection.
  @usableFromInline func error(_ rc: Int32, _ context: String?) -> SQLiteError {
    SQLiteError(
      code: rc, message: String(cString: sqlite3_errmsg(handle)), context: context, systemErrno: systemErrno(rc))
  }

  /// The system's error number behind a failed read or write: SQLite's for the connection, else
  /// the main file's last one (kept by the file, where a rollback after the failure resets the
  /// connection's).
  private func systemErrno(_ rc: Int32) -> Int32 {
    guard rc & 0xFF == SQLITE_IOERR || rc & 0xFF == SQLITE_FULL else { return 0 }
    let connection = sqlite3_system_errno(handle)
    if connection > 0 { return connection }
    var last: Int32 = 0
    guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_LAST_ERRNO, &last) == SQLITE_OK else { return 0 }
    return last
  }

  /// Runs one or more statements that return no rows needed by the caller.
  public func execute(_ sql: String) throws {
    try check(sqlite3_exec(handle, sql, nil, nil, nil), sql)
  }

  /// Prepares a statement to be bound and stepped many times.
  public func prepare(_ sql: String) throws -> SQLiteStatement {
    var statement: OpaquePointer?
    try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil), sql)
    guard let statement else { throw SQLiteError(code: SQLITE_MISUSE, message: "empty statement", context: sql) }
    return SQLiteStatement(connection: self, handle: statement, sql: sql)
  }

  /// The first column of the first row of `sql`, as an integer (nil without a row or for NULL).
  public func scalarInt(_ sql: String) throws -> Int64? {
    let statement = try prepare(sql)
    guard try statement.step() else { return nil }
    return statement.isNull(0) ? nil : statement.int64(0)
  }

  /// The first column of the first row of `sql`, as text.
  public func scalarText(_ sql: String) throws -> String? {
    let statement = try prepare(sql)
    guard try statement.step() else { return nil }
    return statement.text(0)
  }

  /// Rows changed by the last INSERT, UPDATE or DELETE.
  public var changes: Int { Int(sqlite3_changes(handle)) }

  /// The rowid of the last successful INSERT.
  public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

  /// True outside an explicit transaction.
  public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

  /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; rolls back when it throws.
  public func withTransaction<T>(_ body: () throws -> T) throws -> T {
    try execute("BEGIN IMMEDIATE")
    do {
      let result = try body()
      try execute("COMMIT")
      return result
    } catch {
      if !isAutocommit { try? execute("ROLLBACK") }
      throw error
    }
  }

  /// Sets the busy timeout (milliseconds to wait for another connection's lock).
  public func setBusyTimeout(milliseconds: Int32) {
    sqlite3_busy_timeout(handle, milliseconds)
  }

  /// The SQLite library version, e.g. `3.40.1`.
  public static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}
