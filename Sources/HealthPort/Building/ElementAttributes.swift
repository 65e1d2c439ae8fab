#if canImport(Glibc)
  import Glibc
#endif

/// A borrowed run of UTF-8 bytes (an element or attribute name, a value, a piece of text)
/// handed to the ``ElementBuilder``; valid only during the call that receives it.
struct ByteView {
  let buffer: UnsafeBufferPointer<UInt8>

  @inline(__always)
  init(_ buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }

  @inline(__always)
  init(start: UnsafePointer<UInt8>, count: Int) { buffer = UnsafeBufferPointer(start: start, count: count) }

  @inline(__always) var count: Int { buffer.count }

  /// Compares with an ASCII name without allocating.
  @inline(__always)
  func equals(_ bytes: StaticBytes) -> Bool {
    guard buffer.count == bytes.count else { return false }
    return bytes.count == 0 || memcmp(buffer.baseAddress!, bytes.pointer, bytes.count) == 0
  }

  /// A new String with these bytes (invalid UTF-8 is repaired).
  @inline(__always)
  var string: String { String(decoding: buffer, as: UTF8.self) }
}

/// A name known at compile time, kept as bytes for fast comparison.
struct StaticBytes: @unchecked Sendable {
  let pointer: UnsafePointer<UInt8>
  let count: Int

  init(_ literal: StaticString) {
    pointer = literal.utf8Start
    count = literal.utf8CodeUnitCount
  }
}

/// The attributes of one start tag, as a reader hands them to the ``ElementBuilder``.
///
/// Readers conform with whatever holds their bytes (libxml2's buffers, a decoded JSON object,
/// ``OwnedAttributes`` for CSV cells); the builder is generic over the conformance, so each
/// reader's calls are specialised and direct.
protocol ElementAttributes {
  var count: Int { get }
  func name(at index: Int) -> ByteView
  /// Equal for equal names and never reused for another name while the builder that receives
  /// these attributes lives (as libxml2's interned names are), so that the builder can cache
  /// what a name means by this pointer instead of comparing bytes.
  func nameIdentity(at index: Int) -> UnsafeRawPointer
  /// The value of attribute `index`, decoded (no entities or escapes left).
  func value(at index: Int) -> ByteView
  /// How a Record's value is checked (``RecordValueRule/numberWithUnit`` unless a reader says).
  var recordValueRule: RecordValueRule { get }
  /// Whether a Record's dates may also be ISO 8601 (``HealthDate/flexible(_:)-(UnsafeRawBufferPointer)``);
  /// false unless a reader says.
  var acceptsISO8601Dates: Bool { get }
}

/// How the builder checks a Record's value, chosen by the reader: the export's rule for XML and
/// JSON Lines, or the rules healthport has always applied to CSV tables.
enum RecordValueRule {
  /// A value beside a non-empty unit must be a number as Health writes them (the export's rule).
  case numberWithUnit
  /// Not checked (healthport's own CSV table, read back as written).
  case unchecked
  /// A `HKQuantityTypeIdentifier…` Record needs a value that is a finite number once the spaces
  /// and tabs around it are left out; it is kept as written (CSV from other tools).
  case numberForQuantityTypes
}

extension ElementAttributes {
  // Constants for the XML and JSON Lines readers, so their specialised builder code is unchanged.
  @inline(__always) var recordValueRule: RecordValueRule { .numberWithUnit }
  @inline(__always) var acceptsISO8601Dates: Bool { false }
}

/// Attributes held in storage of their own, for readers whose values are not in one buffer
/// (CSV cells, values built from several pieces).
///
/// Reuse one instance for the whole read: ``removeAll()`` keeps the capacity, so a row that
/// fits allocates nothing, and names are interned once (``name(_:)``) for as long as the
/// instance lives, which keeps their identities valid for the builder.
final class OwnedAttributes: ElementAttributes {
  /// An interned attribute name: NUL-terminated bytes that live as long as the instance.
  struct Name {
    fileprivate let pointer: UnsafePointer<UInt8>
    fileprivate let count: Int
  }

  private struct Entry {
    let name: Name
    let valueStart: Int
    let valueCount: Int
  }

  private var entries: [Entry] = []
  /// Where borrowed values are (``appendBorrowed(_:value:)``): an entry's `valueStart` is then
  /// `~index` into this array.
  private var borrowed: [UnsafePointer<UInt8>] = []
  private var values: ByteBuffer
  private var names = ByteKeyedTable<Name>()
  private var nameAllocations: [UnsafeMutablePointer<UInt8>] = []

  private let initialCapacity: Int

  init(capacity: Int = 1024) {
    initialCapacity = max(capacity, 16)
    values = ByteBuffer(capacity: initialCapacity)
    entries.reserveCapacity(16)
  }

  deinit {
    for allocation in nameAllocations { allocation.deallocate() }
  }

  var count: Int { entries.count }

  /// Forgets the attributes, keeping the storage (unless a long value grew it past
  /// ``longestKeptStorage``) and the interned names.
  func removeAll() {
    entries.removeAll(keepingCapacity: true)
    if !borrowed.isEmpty { borrowed.removeAll(keepingCapacity: true) }
    values.removeAll()
    if values.capacity > Self.longestKeptStorage { values = ByteBuffer(capacity: initialCapacity) }
  }

  /// The most value storage kept from one set of attributes to the next.
  static let longestKeptStorage = 1 << 20

  /// The interned name for these bytes (one allocation per distinct name for the instance's life).
  func name(_ bytes: UnsafeBufferPointer<UInt8>) -> Name {
    let key = UnsafeRawBufferPointer(bytes)
    let hash = ByteKeyedTable<Name>.hash(key)
    if let known = names.lookup(key, hash: hash) { return known }
    let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count + 1)
    if let base = bytes.baseAddress { copy.initialize(from: base, count: bytes.count) }
    copy[bytes.count] = 0
    nameAllocations.append(copy)
    let name = Name(pointer: UnsafePointer(copy), count: bytes.count)
    names.insert(key, hash: hash, value: name)
    return name
  }

  func name(_ text: String) -> Name {
    var text = text
    return text.withUTF8 { name($0) }
  }

  /// Appends an attribute; the value is copied.
  func append(_ name: Name, value: UnsafeBufferPointer<UInt8>) {
    let start = values.count
    values.append(bytes: value)
    entries.append(Entry(name: name, valueStart: start, valueCount: value.count))
  }

  /// Appends an attribute whose value is not copied: its bytes must stay valid and unchanged
  /// until ``removeAll()`` (a reader's cell of megabytes, read where it is).
  func appendBorrowed(_ name: Name, value: UnsafeBufferPointer<UInt8>) {
    guard let base = value.baseAddress else { return append(name, value: value) }
    entries.append(Entry(name: name, valueStart: ~borrowed.count, valueCount: value.count))
    borrowed.append(base)
  }

  func append(_ name: Name, value: String) {
    var value = value
    value.withUTF8 { append(name, value: $0) }
  }

  func append(name: String, value: String) { append(self.name(name), value: value) }

  @inline(__always)
  func name(at index: Int) -> ByteView {
    let name = entries[index].name
    return ByteView(start: name.pointer, count: name.count)
  }

  @inline(__always)
  func nameIdentity(at index: Int) -> UnsafeRawPointer { UnsafeRawPointer(entries[index].name.pointer) }

  @inline(__always)
  func value(at index: Int) -> ByteView {
    let entry = entries[index]
    if entry.valueStart < 0 { return ByteView(start: borrowed[~entry.valueStart], count: entry.valueCount) }
    return ByteView(values.bytes(in: entry.valueStart..<(entry.valueStart + entry.valueCount)))
  }
}
