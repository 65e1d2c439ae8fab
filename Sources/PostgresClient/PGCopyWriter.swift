/// Writes rows of `COPY … FROM STDIN (FORMAT binary)` into a buffer sent in chunks: the binary
/// format spares the server parsing text, and the client formatting numbers.
public final class PGCopyWriter {
  private let connection: PGConnection
  private var buffer: [UInt8] = []
  private let chunkBytes: Int
  /// Rows written so far.
  public private(set) var rows = 0

  /// Starts `sql` (a `COPY … FROM STDIN (FORMAT binary)`) on `connection`.
  public init(connection: PGConnection, sql: String, chunkBytes: Int = 1 << 18) throws {
    self.connection = connection
    self.chunkBytes = chunkBytes
    buffer.reserveCapacity(chunkBytes + 4096)
    try connection.beginCopy(sql)
    buffer.append(contentsOf: Array("PGCOPY\n".utf8))
    buffer.append(contentsOf: [0xFF, 0x0D, 0x0A, 0x00])
    append32(0)  // flags
    append32(0)  // header extension length
  }

  /// Starts a row of `fields` columns.
  public func beginRow(fields: Int) throws {
    if buffer.count >= chunkBytes { try flush() }
    append16(UInt16(fields))
    rows += 1
  }

  public func appendNull() { append32(UInt32(bitPattern: -1)) }

  /// An `int8` (bigint) field.
  public func append(_ value: Int64) {
    append32(8)
    append64(UInt64(bitPattern: value))
  }

  /// A `float8` (double precision) field.
  public func append(_ value: Double) {
    append32(8)
    append64(value.bitPattern)
  }

  /// A `text` field (UTF-8) or a `bytea` field.
  public func append(bytes: UnsafeRawBufferPointer) {
    append32(UInt32(bytes.count))
    buffer.append(contentsOf: bytes)
  }

  /// A `text` field.
  public func append(_ text: String) {
    var text = text
    text.withUTF8 { append(bytes: UnsafeRawBufferPointer($0)) }
  }

  /// A `jsonb` field: its binary form is a version byte (1) and the JSON text.
  public func append(json: String) {
    var text = json
    text.withUTF8 { bytes in
      append32(UInt32(bytes.count + 1))
      buffer.append(1)
      buffer.append(contentsOf: bytes)
    }
  }

  /// A `jsonb` field from the JSON text's UTF-8 bytes.
  package func append(json bytes: UnsafeRawBufferPointer) {
    append32(UInt32(bytes.count + 1))
    buffer.append(1)
    buffer.append(contentsOf: bytes)
  }

  /// Ends the stream; throws the server's error for any row.
  public func finish() throws {
    append16(0xFFFF)
    try flush()
    try connection.endCopy()
  }

  private func flush() throws {
    try buffer.withUnsafeBytes { try connection.putCopyData($0) }
    buffer.removeAll(keepingCapacity: true)
  }

  private func append16(_ value: UInt16) {
    buffer.append(UInt8(value >> 8))
    buffer.append(UInt8(value & 0xFF))
  }

  private func append32(_ value: UInt32) {
    withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
  }

  private func append64(_ value: UInt64) {
    withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
  }
}
