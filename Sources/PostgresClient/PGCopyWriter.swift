/// Writes rows of `COPY … FROM STDIN (FORMAT binary)` into a buffer sent in chunks: the binary
/// format spares the server parsing text, and the client formatting numbers. Fields are stored
/// straight into raw memory (one capacity check per field): through `Array.append(contentsOf:)`
/// the encoding took a fifth of the streaming thread's time.
public final class PGCopyWriter {
  private let connection: PGConnection
  /// The bytes not sent yet: `count` of `capacity` (which grows for a field longer than a chunk).
  private var storage: UnsafeMutableRawPointer
  private var capacity: Int
  private var count = 0
  private let chunkBytes: Int
  /// Rows written so far.
  public private(set) var rows = 0

  /// Starts `sql` (a `COPY … FROM STDIN (FORMAT binary)`) on `connection`.
  public init(connection: PGConnection, sql: String, chunkBytes: Int = 1 << 18) throws {
    self.connection = connection
    self.chunkBytes = chunkBytes
    capacity = chunkBytes + 4096
    try connection.beginCopy(sql)
    storage = .allocate(byteCount: capacity, alignment: 16)
    let signature: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00]
    signature.withUnsafeBytes { append(raw: $0) }
    append32(0)  // flags
    append32(0)  // header extension length
  }

  deinit { storage.deallocate() }

  /// Starts a row of `fields` columns.
  public func beginRow(fields: Int) throws {
    if count >= chunkBytes { try flush() }
    append16(UInt16(fields))
    rows += 1
  }

  public func appendNull() { append32(UInt32(bitPattern: -1)) }

  /// An `int8` (bigint) field.
  public func append(_ value: Int64) { append8Bytes(UInt64(bitPattern: value)) }

  /// A `float8` (double precision) field.
  public func append(_ value: Double) { append8Bytes(value.bitPattern) }

  /// A `text` field (UTF-8) or a `bytea` field.
  public func append(bytes: UnsafeRawBufferPointer) {
    reserve(4 + bytes.count)
    store32(UInt32(bytes.count))
    append(raw: bytes)
  }

  /// A `text` field.
  public func append(_ text: String) {
    var text = text
    text.withUTF8 { append(bytes: UnsafeRawBufferPointer($0)) }
  }

  /// A `jsonb` field: its binary form is a version byte (1) and the JSON text.
  public func append(json: String) {
    var text = json
    text.withUTF8 { append(json: UnsafeRawBufferPointer($0)) }
  }

  /// A `jsonb` field from the JSON text's UTF-8 bytes.
  package func append(json bytes: UnsafeRawBufferPointer) {
    reserve(5 + bytes.count)
    store32(UInt32(bytes.count + 1))
    storage.storeBytes(of: 1, toByteOffset: count, as: UInt8.self)
    count += 1
    append(raw: bytes)
  }

  /// Ends the stream; throws the server's error for any row.
  public func finish() throws {
    append16(0xFFFF)
    try flush()
    try connection.endCopy()
  }

  private func flush() throws {
    try connection.putCopyData(UnsafeRawBufferPointer(start: storage, count: count))
    count = 0
  }

  /// Makes room for `bytes` more bytes.
  @inline(__always)
  private func reserve(_ bytes: Int) {
    if count + bytes > capacity { grow(to: count + bytes) }
  }

  private func grow(to needed: Int) {
    let larger = max(capacity * 2, needed)
    let moved = UnsafeMutableRawPointer.allocate(byteCount: larger, alignment: 16)
    moved.copyMemory(from: storage, byteCount: count)
    storage.deallocate()
    storage = moved
    capacity = larger
  }

  /// Bytes copied as they are (room already reserved by the caller, or reserved here).
  private func append(raw bytes: UnsafeRawBufferPointer) {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
    reserve(bytes.count)
    (storage + count).copyMemory(from: base, byteCount: bytes.count)
    count += bytes.count
  }

  /// A field of 8 bytes: its length (8), then `value`, big-endian.
  @inline(__always)
  private func append8Bytes(_ value: UInt64) {
    reserve(12)
    store32(8)
    storage.storeBytes(of: value.bigEndian, toByteOffset: count, as: UInt64.self)
    count += 8
  }

  private func append16(_ value: UInt16) {
    reserve(2)
    storage.storeBytes(of: value.bigEndian, toByteOffset: count, as: UInt16.self)
    count += 2
  }

  private func append32(_ value: UInt32) {
    reserve(4)
    store32(value)
  }

  /// Four bytes, big-endian, into room already reserved.
  @inline(__always)
  private func store32(_ value: UInt32) {
    storage.storeBytes(of: value.bigEndian, toByteOffset: count, as: UInt32.self)
    count += 4
  }
}
