import CLibPQ

#if canImport(Glibc)
  import Glibc
#endif

/// An error from libpq or the server: the server's SQLSTATE (empty for a connection failure) and
/// its primary message, without libpq's multi-line detail.
public struct PGError: Error, CustomStringConvertible, Sendable {
  /// The five-character SQLSTATE, or "" when the connection itself failed.
  public var sqlState: String
  /// The first line of the server's or libpq's message.
  public var message: String
  /// True when the connection could not be made or was lost.
  public var isConnection: Bool

  public init(sqlState: String, message: String, isConnection: Bool = false) {
    self.sqlState = sqlState
    self.message = message
    self.isConnection = isConnection
  }

  public var description: String { sqlState.isEmpty ? message : "\(message) (SQLSTATE \(sqlState))" }

  /// Class 28: invalid authorization (a wrong password, an unknown role).
  public var isAuthentication: Bool { sqlState.hasPrefix("28") }
  /// 42501: the role lacks a privilege.
  public var isPermission: Bool { sqlState == "42501" }
  /// 55P03: a lock could not be had in time.
  public var isLockTimeout: Bool { sqlState == "55P03" }

  /// The first line of a libpq message, trimmed.
  static func firstLine(_ text: String) -> String {
    let line = text.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? text
    return line.trimmingSpaces()
  }
}

extension String {
  fileprivate func trimmingSpaces() -> String {
    var scalars = Substring(self)
    while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
    while let last = scalars.last, last == " " || last == "\t" || last == "\r" { scalars = scalars.dropLast() }
    return String(scalars)
  }
}

/// libpq's functions, opened by the first connection rather than linked, so that no other command
/// maps libpq and the libraries it needs (Sources/CLibPQ/shim.h).
private let libPQ: Result<HPLibPQ, PGError> = {
  let table = UnsafeMutablePointer<HPLibPQ>.allocate(capacity: 1)
  defer { table.deallocate() }
  if let message = hp_libpq_open(table) {
    return .failure(PGError(sqlState: "", message: String(cString: message), isConnection: true))
  }
  return .success(table.move())
}()

/// One libpq connection. Not thread-safe: one thread at a time.
public final class PGConnection {
  private let handle: OpaquePointer
  private let pq: HPLibPQ

  /// Connects with a libpq connection string or URI (`postgresql://…`); passwords come from the
  /// URI, `PGPASSWORD` or `~/.pgpass`, as libpq finds them.
  public init(conninfo: String) throws {
    let pq = try libPQ.get()
    guard let handle = pq.PQconnectdb(conninfo) else {
      throw PGError(sqlState: "", message: "out of memory", isConnection: true)
    }
    guard pq.PQstatus(handle) == CONNECTION_OK else {
      let message = String(cString: pq.PQerrorMessage(handle)!)
      pq.PQfinish(handle)
      throw PGError(sqlState: "", message: Self.connectionMessage(message), isConnection: true)
    }
    self.handle = handle
    self.pq = pq
    _ = pq.PQsetClientEncoding(handle, "UTF8")
    // The server's notices and warnings are not for the user's terminal (libpq prints them on
    // stderr by default); errors come back as results.
    _ = pq.PQsetNoticeProcessor(handle, { _, _ in }, nil)
  }

  /// libpq's connection message, reduced to what a person needs: its first meaningful line,
  /// without libpq 15's `connection to server on socket "…" failed:` and the server's severity
  /// (`FATAL:  password authentication failed for user "me"` reads `password authentication …`).
  static func connectionMessage(_ text: String) -> String {
    let lines = text.split(separator: "\n").map { String($0) }.filter { !$0.isEmpty }
    guard var line = lines.first else { return "connection failed" }
    if let range = line.firstRange(of: "failed: ") { line = String(line[range.upperBound...]) }
    line = PGError.firstLine(line)
    for severity in ["FATAL:", "ERROR:", "PANIC:"] where line.hasPrefix(severity) {
      line = String(line.dropFirst(severity.count))
    }
    return PGError.firstLine(line)
  }

  deinit { pq.PQfinish(handle) }

  /// The server's name for a message: the socket folder or host, and port.
  public var serverName: String {
    let host = pq.PQhost(handle).map { String(cString: $0) } ?? ""
    let port = pq.PQport(handle).map { String(cString: $0) } ?? ""
    return port.isEmpty ? host : "\(host):\(port)"
  }

  /// The database connected to.
  public var databaseName: String { pq.PQdb(handle).map { String(cString: $0) } ?? "" }

  /// Runs one or more statements without parameters.
  public func execute(_ sql: String) throws {
    let result = pq.PQexec(handle, sql)
    defer { pq.PQclear(result) }
    try check(result)
  }

  /// Runs `sql` with text parameters; returns the rows as text (nil for NULL).
  public func query(_ sql: String, _ parameters: [String?] = []) throws -> [[String?]] {
    let result = try withParameters(parameters) { values in
      pq.PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
    }
    defer { pq.PQclear(result) }
    try check(result)
    var rows: [[String?]] = []
    let columns = pq.PQnfields(result)
    for row in 0..<pq.PQntuples(result) {
      rows.append(
        (0..<columns).map { column in
          pq.PQgetisnull(result, row, column) != 0 ? nil : String(cString: pq.PQgetvalue(result, row, column)!)
        })
    }
    return rows
  }

  /// The first column of the first row, or nil.
  public func scalar(_ sql: String, _ parameters: [String?] = []) throws -> String? {
    try query(sql, parameters).first?.first ?? nil
  }

  private func withParameters(
    _ parameters: [String?], _ body: ([UnsafePointer<CChar>?]) -> OpaquePointer?
  ) throws -> OpaquePointer? {
    let storage: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.map { strdup($0) } ?? nil }
    defer { for pointer in storage { free(pointer) } }
    return body(storage.map { UnsafePointer($0) })
  }

  private func check(_ result: OpaquePointer?) throws {
    let status = pq.PQresultStatus(result)
    switch status {
    case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_COPY_IN, PGRES_EMPTY_QUERY: return
    default: throw error(result)
    }
  }

  private func error(_ result: OpaquePointer?) -> PGError {
    let connectionLost = pq.PQstatus(handle) != CONNECTION_OK
    if let result, let state = pq.PQresultErrorField(result, Int32(UInt8(ascii: "C"))) {
      let primary = pq.PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) } ?? ""
      return PGError(sqlState: String(cString: state), message: primary, isConnection: connectionLost)
    }
    return PGError(
      sqlState: "", message: PGError.firstLine(String(cString: pq.PQerrorMessage(handle)!)),
      isConnection: connectionLost)
  }

  // MARK: COPY FROM STDIN

  /// Starts `COPY … FROM STDIN` (`sql` is the whole statement).
  public func beginCopy(_ sql: String) throws {
    let result = pq.PQexec(handle, sql)
    defer { pq.PQclear(result) }
    guard pq.PQresultStatus(result) == PGRES_COPY_IN else { throw error(result) }
  }

  /// Sends bytes of the COPY stream.
  public func putCopyData(_ bytes: UnsafeRawBufferPointer) throws {
    guard bytes.count > 0 else { return }
    let sent = bytes.withMemoryRebound(to: CChar.self) { pq.PQputCopyData(handle, $0.baseAddress, Int32($0.count)) }
    guard sent == 1 else { throw error(nil) }
  }

  /// Ends the COPY stream and checks the server's verdict.
  public func endCopy() throws {
    guard pq.PQputCopyEnd(handle, nil) == 1 else { throw error(nil) }
    var failure: PGError?
    while let result = pq.PQgetResult(handle) {
      if pq.PQresultStatus(result) != PGRES_COMMAND_OK, failure == nil { failure = error(result) }
      pq.PQclear(result)
    }
    if let failure { throw failure }
  }

  /// Starts `COPY … TO STDOUT`.
  func beginCopyOut(_ sql: String) throws {
    let result = pq.PQexec(handle, sql)
    defer { pq.PQclear(result) }
    guard pq.PQresultStatus(result) == PGRES_COPY_OUT else { throw error(result) }
  }

  /// The next bytes of a COPY OUT stream, nil at its end (after checking the server's verdict).
  func nextCopyChunk() throws -> [UInt8]? {
    var pointer: UnsafeMutablePointer<CChar>?
    let count = pq.PQgetCopyData(handle, &pointer, 0)
    if count > 0, let pointer {
      defer { pq.PQfreemem(pointer) }
      return Array(UnsafeRawBufferPointer(start: pointer, count: Int(count)).bindMemory(to: UInt8.self))
    }
    if count == -2 { throw error(nil) }
    var failure: PGError?
    while let result = pq.PQgetResult(handle) {
      if pq.PQresultStatus(result) != PGRES_COMMAND_OK, failure == nil { failure = error(result) }
      pq.PQclear(result)
    }
    if let failure { throw failure }
    return nil
  }

  /// Quotes an identifier for SQL.
  public static func quoteIdentifier(_ name: String) -> String {
    "\"" + name.replacingAll("\"", with: "\"\"") + "\""
  }

  /// Quotes a literal for SQL (standard_conforming_strings is on in every supported server).
  public static func quoteLiteral(_ text: String) -> String {
    "'" + text.replacingAll("'", with: "''") + "'"
  }
}

extension String {
  fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
    var out = ""
    out.reserveCapacity(utf8.count)
    for character in self {
      if character == target { out += replacement } else { out.append(character) }
    }
    return out
  }
}

// MARK: COPY TO STDOUT

extension PGConnection {
  /// Runs `sql` (a `COPY … TO STDOUT (FORMAT binary)`) and calls `row` with each row's fields
  /// (nil for NULL), as raw bytes in PostgreSQL's binary format, valid during the call only.
  public func copyOut(_ sql: String, row: ([UnsafeRawBufferPointer?]) throws -> Void) throws {
    try beginCopyOut(sql)
    var pending: [UInt8] = []
    var headerRead = false
    var ended = false
    var fields: [UnsafeRawBufferPointer?] = []
    while let chunk = try nextCopyChunk() {
      pending.append(contentsOf: chunk)
      var offset = 0
      try pending.withUnsafeBytes { bytes in
        func int16(_ at: Int) -> Int { Int(Int16(bitPattern: UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]))) }
        func int32(_ at: Int) -> Int {
          Int(
            Int32(
              bitPattern: UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8
                | UInt32(bytes[at + 3])))
        }
        if !headerRead {
          guard bytes.count >= 19 else { return }
          let extensionLength = int32(15)
          guard bytes.count >= 19 + extensionLength else { return }
          offset = 19 + extensionLength
          headerRead = true
        }
        while !ended, bytes.count - offset >= 2 {
          let count = int16(offset)
          if count == -1 {
            ended = true
            offset += 2
            break
          }
          var at = offset + 2
          fields.removeAll(keepingCapacity: true)
          var complete = true
          for _ in 0..<count {
            guard bytes.count - at >= 4 else {
              complete = false
              break
            }
            let length = int32(at)
            at += 4
            if length < 0 {
              fields.append(nil)
              continue
            }
            guard bytes.count - at >= length else {
              complete = false
              break
            }
            fields.append(UnsafeRawBufferPointer(rebasing: bytes[at..<at + length]))
            at += length
          }
          guard complete else { break }
          try row(fields)
          offset = at
        }
      }
      pending.removeFirst(offset)
    }
  }
}
