/// Something bytes can be appended to: a `[UInt8]`, or the writers' `ByteBuffer`. The
/// escaping and formatting primitives are generic over it, so that they serve both the writers'
/// hot paths and the occasional `[UInt8]` of the other commands.
package protocol ByteAppender: ~Copyable {
  mutating func append(_ byte: UInt8)
  mutating func append(bytes: UnsafeBufferPointer<UInt8>)
  /// Lets `body` write up to `maxCount` bytes through a pointer; it returns how many it wrote.
  mutating func appendUnsafe(maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int)
  /// Told of each character an encoder left out because the format cannot hold it (a control
  /// character XML 1.0 forbids), so that the writer can warn; by default not counted.
  mutating func noteRemovedCharacter()
}

extension ByteAppender where Self: ~Copyable {
  @inline(__always)
  package mutating func noteRemovedCharacter() {}

  /// Appends a literal's bytes.
  @inline(__always)
  package mutating func append(_ text: StaticString) {
    append(bytes: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  @inline(__always)
  package mutating func append(bytes: [UInt8]) {
    bytes.withUnsafeBufferPointer { append(bytes: $0) }
  }

  @inline(__always)
  package mutating func append(bytes: UnsafeRawBufferPointer) {
    append(bytes: bytes.assumingMemoryBound(to: UInt8.self))
  }
}

extension Array: ByteAppender where Element == UInt8 {
  @inline(__always)
  package mutating func append(bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }

  package mutating func appendUnsafe(maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxCount) { scratch in
      let written = body(scratch.baseAddress!)
      append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<written]))
    }
  }
}

/// The writers' output buffer: a growable run of bytes where an append is a capacity check, a
/// store (or a `memcpy`) and a count update. `[UInt8]` costs several times that per append
/// (a uniqueness check and a generic copy loop), which adds up over the tens of appends of
/// each of millions of rows.
///
/// Not copyable: it owns its memory, freed on deinit.
struct ByteBuffer: ~Copyable, ByteAppender {
  private var base: UnsafeMutablePointer<UInt8>
  private(set) var count = 0
  private(set) var capacity: Int
  /// Characters the encoders left out (``ByteAppender/noteRemovedCharacter()``), kept across
  /// ``removeAll()``: the XML writer warns with the total.
  var removedCharacters = 0

  init(capacity: Int = 4096) {
    self.capacity = max(capacity, 16)
    base = .allocate(capacity: self.capacity)
  }

  deinit { base.deallocate() }

  var isEmpty: Bool { count == 0 }

  /// Makes room for at least `extra` more bytes.
  @inline(__always)
  mutating func reserve(_ extra: Int) {
    if capacity &- count < extra { grow(extra) }
  }

  @inline(never)
  private mutating func grow(_ extra: Int) {
    var newCapacity = capacity * 2
    while newCapacity - count < extra { newCapacity *= 2 }
    let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    newBase.update(from: base, count: count)
    base.deallocate()
    base = newBase
    capacity = newCapacity
  }

  @inline(__always)
  mutating func append(_ byte: UInt8) {
    if count == capacity { grow(1) }
    base[count] = byte
    count &+= 1
  }

  @inline(__always)
  mutating func append(bytes: UnsafeBufferPointer<UInt8>) {
    reserve(bytes.count)
    if let source = bytes.baseAddress { Self.copy(source, to: base + count, count: bytes.count) }
    count &+= bytes.count
  }

  /// Copies `count` bytes; up to 16 by two overlapping loads and stores instead of a call to
  /// `memcpy` (most fields and names are that short). Only bytes inside both ranges are touched.
  @inline(__always)
  static func copy(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count: Int) {
    let from = UnsafeRawPointer(source)
    let to = UnsafeMutableRawPointer(target)
    switch count {
    case 8...16:
      let head = from.loadUnaligned(as: UInt64.self)
      let tail = from.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
      to.storeBytes(of: head, as: UInt64.self)
      to.storeBytes(of: tail, toByteOffset: count &- 8, as: UInt64.self)
    case 4...7:
      let head = from.loadUnaligned(as: UInt32.self)
      let tail = from.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
      to.storeBytes(of: head, as: UInt32.self)
      to.storeBytes(of: tail, toByteOffset: count &- 4, as: UInt32.self)
    case 1...3:
      target[0] = source[0]
      target[count &- 1] = source[count &- 1]
      target[count >> 1] = source[count >> 1]
    case 0: break
    default: target.update(from: source, count: count)
    }
  }

  mutating func noteRemovedCharacter() { removedCharacters &+= 1 }

  @inline(__always)
  mutating func appendUnsafe(maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
    reserve(maxCount)
    count &+= body(base + count)
  }

  /// Appends a copy of bytes already in the buffer (`range` must lie below ``count``).
  @inline(__always)
  mutating func appendCopy(of range: Range<Int>) {
    reserve(range.count)
    Self.copy(base + range.lowerBound, to: base + count, count: range.count)
    count &+= range.count
  }

  /// Drops the last byte.
  @inline(__always)
  mutating func removeLast() { count -= 1 }

  /// Forgets the bytes, keeping the memory.
  @inline(__always)
  mutating func removeAll() { count = 0 }

  /// The bytes in `range`, which must lie below ``count``.
  @inline(__always)
  func bytes(in range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
  }

  func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try body(UnsafeRawBufferPointer(start: base, count: count))
  }

  /// The bytes as an array (tests, and the rare cold path).
  var array: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }
}
