#if canImport(Glibc)
  import Glibc
#endif

/// An open-addressing hash table keyed by byte strings, looked up without allocating.
///
/// The reader uses it to intern repeated strings (types, source names, units, metadata keys)
/// so that millions of records share a few hundred String buffers, and to cache per-device
/// results. It stops taking new keys past `capacityLimit` so that hostile input with endless
/// distinct values cannot grow it without bound.
struct ByteKeyedTable<Value> {
  private struct Entry {
    var hash: UInt64
    var key: [UInt8]
    var value: Value
  }

  private var slots: [Int32]
  private var entries: [Entry] = []
  private var mask: Int
  let capacityLimit: Int

  init(capacityLimit: Int = 1 << 16) {
    self.capacityLimit = capacityLimit
    slots = Array(repeating: -1, count: 1024)
    mask = 1023
  }

  var count: Int { entries.count }

  @inline(__always)
  static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
    return hash
  }

  /// The value stored for these bytes, if any.
  func lookup(_ bytes: UnsafeRawBufferPointer, hash: UInt64) -> Value? {
    var slot = Int(truncatingIfNeeded: hash) & mask
    while true {
      let index = Int(slots[slot])
      if index < 0 { return nil }
      let entry = entries[index]
      if entry.hash == hash, entry.key.count == bytes.count,
        entry.key.withUnsafeBytes({ bytes.count == 0 || memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 })
      {
        return entry.value
      }
      slot = (slot + 1) & mask
    }
  }

  /// Stores a value (no-op when the table is full).
  mutating func insert(_ bytes: UnsafeRawBufferPointer, hash: UInt64, value: Value) {
    guard entries.count < capacityLimit else { return }
    if (entries.count + 1) * 2 > slots.count { grow() }
    var slot = Int(truncatingIfNeeded: hash) & mask
    while slots[slot] >= 0 { slot = (slot + 1) & mask }
    slots[slot] = Int32(entries.count)
    entries.append(Entry(hash: hash, key: Array(bytes), value: value))
  }

  private mutating func grow() {
    slots = Array(repeating: -1, count: slots.count * 2)
    mask = slots.count - 1
    for (index, entry) in entries.enumerated() {
      var slot = Int(truncatingIfNeeded: entry.hash) & mask
      while slots[slot] >= 0 { slot = (slot + 1) & mask }
      slots[slot] = Int32(index)
    }
  }
}

/// Shares one String per distinct byte string.
struct StringInterner {
  private var table = ByteKeyedTable<String>()

  mutating func intern(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    let raw = UnsafeRawBufferPointer(bytes)
    // Strings of up to 15 UTF-8 bytes are stored inline by Swift: nothing to share.
    if raw.count <= 15 || raw.count > 256 { return String(decoding: bytes, as: UTF8.self) }
    let hash = ByteKeyedTable<String>.hash(raw)
    if let found = table.lookup(raw, hash: hash) { return found }
    let string = String(decoding: bytes, as: UTF8.self)
    table.insert(raw, hash: hash, value: string)
    return string
  }
}
