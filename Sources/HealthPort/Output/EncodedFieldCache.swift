#if canImport(Glibc)
  import Glibc
#endif

/// The encoded bytes (quoted, escaped) of the last string written in one field, reused while
/// the following rows carry the same string.
///
/// The reader interns the strings that repeat (type, source name and version, unit, the rest of
/// device strings), and Records come grouped by type and source, so most rows repeat the field's
/// last string, as the same String storage. The identity test compares the String's two words:
/// equal words mean the same storage and length (or, for a small string, the same bytes), so the
/// same text, as long as the storage lives on; the cache keeps the String, hence its storage,
/// alive. Equal text in other storage is a miss and is simply encoded again.
struct EncodedFieldCache {
  /// The two words of `string`; (0, 0) is no String's representation, so nothing matches at first.
  private var key: (UInt64, UInt64) = (0, 0)
  private var string = ""
  private var encoded: [UInt8] = []
  /// A fact about the encoding that the caller stores with it (e.g. "needs quotes").
  private(set) var flag = false
  /// Characters the encoding left out (``ByteAppender/noteRemovedCharacter()``), counted again
  /// each time it is replayed.
  private var removed = 0

  @inline(__always)
  static func words(_ text: String) -> (UInt64, UInt64) {
    unsafeBitCast(text, to: (UInt64, UInt64).self)
  }

  /// True when `text` is the string whose encoding is stored.
  @inline(__always)
  func holds(_ text: String) -> Bool { Self.words(text) == key }

  /// Stores `encoded` as the encoding of `text`.
  mutating func store(_ text: String, encoded bytes: UnsafeBufferPointer<UInt8>, flag: Bool = false) {
    key = Self.words(text)
    string = text
    encoded.removeAll(keepingCapacity: true)
    encoded.append(contentsOf: bytes)
    self.flag = flag
    removed = 0
  }

  /// Appends the stored encoding.
  @inline(__always)
  func append(to out: inout ByteBuffer) {
    encoded.withUnsafeBufferPointer { out.append(bytes: $0) }
    if removed != 0 { out.removedCharacters &+= removed }
  }

  /// Appends the encoding of `text`: the stored one when `text` is the stored string, else what
  /// `encode` appends (from the string's UTF-8), which is then stored.
  @inline(__always)
  mutating func append(
    _ text: String, to out: inout ByteBuffer, encode: (UnsafeBufferPointer<UInt8>, inout ByteBuffer) -> Void
  ) {
    if holds(text) {
      append(to: &out)
    } else {
      encodeAndStore(text, to: &out, encode: encode)
    }
  }

  @inline(never)
  private mutating func encodeAndStore(
    _ text: String, to out: inout ByteBuffer, encode: (UnsafeBufferPointer<UInt8>, inout ByteBuffer) -> Void
  ) {
    let start = out.count
    let removedBefore = out.removedCharacters
    text.withUTF8Bytes { encode($0, &out) }
    store(text, encoded: out.bytes(in: start..<out.count))
    removed = out.removedCharacters &- removedBefore
  }
}

/// The bytes an emitter wrote for a Record's `type`, `sourceName` and `sourceVersion`, replayed
/// for the next Records with the same three strings (the same storage, as in
/// ``EncodedFieldCache``): Records come in long runs of one type and source.
struct RecordHeadCache {
  private typealias Key = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
  private var key: Key = (0, 0, 0, 0, 0, 0)
  /// Keeps the storage of the key's strings alive.
  private var strings: (String, String, String?) = ("", "", nil)
  private var bytes: [UInt8] = []
  /// Characters left out of `bytes` (``ByteAppender/noteRemovedCharacter()``).
  private var removed = 0

  @inline(__always)
  private static func key(_ record: Record) -> Key {
    let type = EncodedFieldCache.words(record.type)
    let source = EncodedFieldCache.words(record.sourceName)
    let version = record.sourceVersion.map(EncodedFieldCache.words) ?? (0, 0)
    return (type.0, type.1, source.0, source.1, version.0, version.1)
  }

  /// Appends the stored bytes if they were written for the same three strings.
  @inline(__always)
  func replay(_ record: Record, to out: inout ByteBuffer) -> Bool {
    guard Self.key(record) == key else { return false }
    bytes.withUnsafeBufferPointer { out.append(bytes: $0) }
    if removed != 0 { out.removedCharacters &+= removed }
    return true
  }

  /// Stores what was written for the record's three strings, `removed` characters left out.
  mutating func store(_ record: Record, bytes written: UnsafeBufferPointer<UInt8>, removed: Int = 0) {
    self.removed = removed
    key = Self.key(record)
    strings = (record.type, record.sourceName, record.sourceVersion)
    bytes.removeAll(keepingCapacity: true)
    bytes.append(contentsOf: written)
  }
}

/// The encoded bytes of the last text written in one field, kept with that text's bytes and
/// reused while the following rows carry the same bytes: ``EncodedFieldCache`` for texts that
/// are bytes in the reader's buffer (a Record's start tag on a parsing thread) rather than Strings.
struct EncodedBytesCache {
  private var key: [UInt8] = []
  private var encoded: [UInt8] = []
  private var filled = false
  /// A fact about the encoding that the caller stores with it (e.g. "needs quotes").
  private(set) var flag = false

  /// True when `bytes` are the bytes whose encoding is stored.
  @inline(__always)
  func holds(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard filled, bytes.count == key.count else { return false }
    return bytes.isEmpty || key.withUnsafeBytes { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
  }

  /// Stores `encoded` as the encoding of `bytes`.
  mutating func store(_ bytes: UnsafeBufferPointer<UInt8>, encoded: UnsafeBufferPointer<UInt8>, flag: Bool = false) {
    key.removeAll(keepingCapacity: true)
    key.append(contentsOf: bytes)
    self.encoded.removeAll(keepingCapacity: true)
    self.encoded.append(contentsOf: encoded)
    self.flag = flag
    filled = true
  }

  /// Appends the stored encoding.
  @inline(__always)
  func append(to out: inout ByteBuffer) {
    encoded.withUnsafeBufferPointer { out.append(bytes: $0) }
  }
}
