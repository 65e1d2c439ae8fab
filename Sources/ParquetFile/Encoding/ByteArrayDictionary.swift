/// The distinct byte arrays of one column chunk, in first-seen order, kept already PLAIN-encoded
/// (4-byte little-endian length, then the bytes) so that the dictionary page is the buffer as it is.
///
/// Lookups hash the bytes once and probe an open-addressing table of entry numbers; no per-value allocation.
struct ByteArrayDictionary {
  /// The dictionary page's body.
  private(set) var plainBytes: [UInt8] = []
  /// Where each entry's bytes start in `plainBytes` (after its length).
  private var starts: [Int] = []
  private var lengths: [Int] = []
  private var hashes: [UInt64] = []
  /// Entry number + 1 per slot; 0 is empty. The count is a power of two, at most half full.
  private var slots: [Int32] = Array(repeating: 0, count: 1024)

  var count: Int { starts.count }

  /// The memory it holds: the entries' bytes, their positions, lengths and hashes, and the slots.
  var memoryBytes: Int {
    plainBytes.capacity + (starts.capacity + lengths.capacity + hashes.capacity) * 8 + slots.capacity * 4
  }

  /// The entry number of `bytes`, added if new; nil when it is new and adding it would take the
  /// PLAIN-encoded dictionary past `limit` bytes. Mutating so that the lookup works in place (a copy
  /// of the struct would retain its arrays on every value).
  mutating func entry(for bytes: UnsafeRawBufferPointer, limit: Int) -> Int? {
    let hash = Self.hash(bytes)
    let mask = slots.count - 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    while true {
      let stored = Int(slots[slot])
      if stored == 0 { break }
      let entry = stored - 1
      if hashes[entry] == hash && lengths[entry] == bytes.count && equalsEntry(entry, bytes) { return entry }
      slot = (slot + 1) & mask
    }
    guard plainBytes.count + 4 + bytes.count <= limit else { return nil }
    let entry = starts.count
    withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { plainBytes.append(contentsOf: $0) }
    starts.append(plainBytes.count)
    lengths.append(bytes.count)
    hashes.append(hash)
    plainBytes.append(contentsOf: bytes)
    slots[slot] = Int32(entry + 1)
    if starts.count * 2 > slots.count { grow() }
    return entry
  }

  /// Calls `body` with the bytes of entry `entry`.
  mutating func withEntry<Result>(_ entry: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    plainBytes.withUnsafeBytes { all in
      body(UnsafeRawBufferPointer(rebasing: all[starts[entry]..<(starts[entry] + lengths[entry])]))
    }
  }

  mutating func removeAll() {
    plainBytes.removeAll(keepingCapacity: true)
    starts.removeAll(keepingCapacity: true)
    lengths.removeAll(keepingCapacity: true)
    hashes.removeAll(keepingCapacity: true)
    for index in slots.indices { slots[index] = 0 }
  }

  @inline(__always)
  private mutating func equalsEntry(_ entry: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
    plainBytes.withUnsafeBytes { all in
      guard let base = all.baseAddress, let other = bytes.baseAddress, !bytes.isEmpty else { return true }
      return memcmp(base + starts[entry], other, bytes.count) == 0
    }
  }

  private mutating func grow() {
    slots = Array(repeating: 0, count: slots.count * 2)
    let mask = slots.count - 1
    for entry in hashes.indices {
      var slot = Int(truncatingIfNeeded: hashes[entry]) & mask
      while slots[slot] != 0 { slot = (slot + 1) & mask }
      slots[slot] = Int32(entry + 1)
    }
  }

  /// A fast 64-bit hash of the bytes, eight at a time (multiply and fold, in the manner of wyhash).
  static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
    var offset = 0
    while offset + 8 <= bytes.count {
      hash = mix(hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      offset += 8
    }
    if bytes.count >= 8 {
      // The last eight bytes, overlapping what was hashed: no byte loop.
      if offset < bytes.count {
        hash = mix(hash ^ bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
      }
    } else if !bytes.isEmpty {
      var tail: UInt64 = 0
      for index in 0..<bytes.count { tail |= UInt64(bytes[index]) << UInt64(8 * index) }
      hash = mix(hash ^ tail)
    }
    return mix(hash)
  }

  @inline(__always)
  private static func mix(_ value: UInt64) -> UInt64 {
    let product = value.multipliedFullWidth(by: 0xA076_1D64_78BD_642F)
    return product.high ^ product.low
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
