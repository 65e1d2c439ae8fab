import CSQLite

/// A prepared statement, prepared once and reused: bind, step, reset.
///
/// Parameters are 1-based as in SQLite. Text is bound straight from a Swift string's UTF-8
/// storage (no intermediate `[CChar]`); SQLite copies it before the call returns.
public final class SQLiteStatement {
  /// Strong: a statement keeps its connection open.
  @usableFromInline let connection: SQLiteConnection
  @usableFromInline let handle: OpaquePointer
  public let sql: String

  init(connection: SQLiteConnection, handle: OpaquePointer, sql: String) {
    self.connection = connection
    self.handle = handle
    self.sql = sql
  }

  deinit { sqlite3_finalize(handle) }

  @inlinable @inline(__always)
  func check(_ rc: Int32) throws {
    if rc != SQLITE_OK { throw connection.error(rc, sql) }
  }

  // MARK: Binding

  @inlinable
  public func bind(_ index: Int32, _ value: Int64) throws {
    try check(sqlite3_bind_int64(handle, index, value))
  }

  public func bind(_ index: Int32, _ value: Int) throws {
    try check(sqlite3_bind_int64(handle, index, Int64(value)))
  }

  @inlinable
  public func bind(_ index: Int32, _ value: Double) throws {
    try check(sqlite3_bind_double(handle, index, value))
  }

  public func bind(_ index: Int32, _ value: String) throws {
    var value = value
    let rc = value.withUTF8 { bytes -> Int32 in
      // An empty buffer may have a nil base address; SQLite needs a pointer for '' (not NULL).
      guard let base = bytes.baseAddress else { return cx_sqlite_bind_text_transient(handle, index, "", 0) }
      return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
        cx_sqlite_bind_text_transient(handle, index, $0, Int32(bytes.count))
      }
    }
    try check(rc)
  }

  /// Binds UTF-8 bytes as text.
  public func bindText(_ index: Int32, utf8 bytes: [UInt8]) throws {
    let rc = bytes.withUnsafeBufferPointer { buffer -> Int32 in
      guard let base = buffer.baseAddress else { return cx_sqlite_bind_text_transient(handle, index, "", 0) }
      return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
        cx_sqlite_bind_text_transient(handle, index, $0, Int32(buffer.count))
      }
    }
    try check(rc)
  }

  /// Binds UTF-8 bytes as text that SQLite reads in place, without copying them: the bytes
  /// must stay alive and unchanged until the statement has run and been reset, or the
  /// parameter is bound again (see ``TextArena``).
  @inlinable @inline(__always)
  public func bindStatic(_ index: Int32, utf8 bytes: UnsafeBufferPointer<UInt8>) throws {
    // A non-empty arena slice always has a base address; '' needs a pointer too (not NULL).
    let base = bytes.baseAddress ?? TextArena.empty
    let rc = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
      cx_sqlite_bind_text_static(handle, index, $0, Int32(bytes.count))
    }
    try check(rc)
  }

  public func bind(_ index: Int32, bytes: [UInt8]) throws {
    let rc = bytes.withUnsafeBytes { raw -> Int32 in
      cx_sqlite_bind_blob_transient(handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count))
    }
    try check(rc)
  }

  @inlinable
  public func bindNull(_ index: Int32) throws {
    try check(sqlite3_bind_null(handle, index))
  }

  public func bind(_ index: Int32, _ value: String?) throws {
    if let value { try bind(index, value) } else { try bindNull(index) }
  }

  @inlinable
  public func bind(_ index: Int32, _ value: Int64?) throws {
    if let value { try bind(index, value) } else { try bindNull(index) }
  }

  @inlinable
  public func bind(_ index: Int32, _ value: Double?) throws {
    if let value { try bind(index, value) } else { try bindNull(index) }
  }

  // MARK: Running

  /// Steps once: true when a row is available, false when done. Resets after done.
  @discardableResult
  public func step() throws -> Bool {
    let rc = sqlite3_step(handle)
    if rc == SQLITE_ROW { return true }
    if rc == SQLITE_DONE { return false }
    sqlite3_reset(handle)
    throw connection.error(rc, sql)
  }

  /// Runs the statement to completion and resets it; returns the rows it changed.
  @discardableResult
  public func run() throws -> Int {
    defer { sqlite3_reset(handle) }
    while try step() {}
    return connection.changes
  }

  /// Makes the statement ready to run again (bindings are kept).
  public func reset() {
    sqlite3_reset(handle)
  }

  public func clearBindings() {
    sqlite3_clear_bindings(handle)
  }

  // MARK: Columns (0-based)

  public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
  public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
  public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

  public func text(_ column: Int32) -> String? {
    guard let pointer = sqlite3_column_text(handle, column) else { return nil }
    let count = Int(sqlite3_column_bytes(handle, column))
    return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
  }

  /// The bytes of a text or blob column, valid only inside `body` (no copy, no UTF-8 check).
  package func withBytes<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    guard let pointer = sqlite3_column_text(handle, column) else {
      return try body(UnsafeRawBufferPointer(start: nil, count: 0))
    }
    return try body(UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column))))
  }

  public var columnCount: Int32 { sqlite3_column_count(handle) }
  public func columnName(_ column: Int32) -> String { String(cString: sqlite3_column_name(handle, column)) }
}
