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

  init(capacityLimit: Int = 1 << 12) {
    self.capacityLimit = capacityLimit
    slots = Array(repeating: -1, count: 1024)
    mask = 1023
  }

  var count: Int { entries.count }

  /// A fast non-cryptographic hash: eight bytes at a time (multiply and fold), then the tail.
  @inline(__always)
  static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
    guard let base = bytes.baseAddress else { return hash }
    var index = 0
    while index + 8 <= bytes.count {
      let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
      hash = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
      hash ^= hash >> 32
      index += 8
    }
    var tail: UInt64 = 0
    var shift: UInt64 = 0
    while index < bytes.count {
      tail |= UInt64(bytes[index]) << shift
      shift += 8
      index += 1
    }
    hash = (hash ^ tail) &* 0xC4CE_B9FE_1A85_EC53
    return hash ^ (hash >> 29)
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

  /// The number of distinct strings kept.
  var count: Int { table.count }

  /// The shared String for these bytes. Strings longer than `limit` are not shared.
  mutating func intern(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int = 256) -> String {
    let raw = UnsafeRawBufferPointer(bytes)
    // Strings of up to 15 UTF-8 bytes are stored inline by Swift: nothing to share.
    if raw.count <= 15 || raw.count > limit { return String(decoding: bytes, as: UTF8.self) }
    let hash = ByteKeyedTable<String>.hash(raw)
    if let found = table.lookup(raw, hash: hash) { return found }
    let string = String(decoding: bytes, as: UTF8.self)
    table.insert(raw, hash: hash, value: string)
    return string
  }
}

/// The String made for a field's previous value: consecutive records mostly repeat their type,
/// source, version, unit and device, so comparing with the previous bytes skips hashing.
struct RecentString {
  private var bytes: [UInt8] = []
  private(set) var string: String = ""

  /// The previous String when `value` has the same bytes, else nil.
  @inline(__always)
  func match(_ value: UnsafeBufferPointer<UInt8>) -> String? {
    matches(value) ? string : nil
  }

  /// The String of `value`: the previous one when the bytes repeat, else a new one (remembered).
  @inline(__always)
  mutating func text(_ value: UnsafeBufferPointer<UInt8>) -> String {
    if let same = match(value) { return same }
    let text = String(decoding: value, as: UTF8.self)
    remember(value, text)
    return text
  }

  /// True when `value` has the previous bytes (``match(_:)`` without the String).
  @inline(__always)
  func matches(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
    guard value.count == bytes.count, !bytes.isEmpty else { return matchesLong(value) }
    return bytes.withUnsafeBytes { memcmp($0.baseAddress!, value.baseAddress!, value.count) == 0 }
  }

  /// A long value is compared with the String's own bytes (equal when it was valid UTF-8).
  private func matchesLong(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
    guard value.count > Self.longestRemembered, string.utf8.count == value.count else { return false }
    return string.utf8.withContiguousStorageIfAvailable {
      memcmp($0.baseAddress!, value.baseAddress!, value.count) == 0
    } ?? false
  }

  /// The longest value whose bytes are copied: a longer one (a CSV cell of megabytes) is
  /// remembered by its String alone, so that its bytes are not kept a second time.
  static let longestRemembered = 4 << 10

  mutating func remember(_ value: UnsafeBufferPointer<UInt8>, _ string: String) {
    guard value.count <= Self.longestRemembered else {
      bytes = []
      self.string = string
      return
    }
    bytes.removeAll(keepingCapacity: true)
    bytes.append(contentsOf: value)
    self.string = string
  }
}

/// Shares Strings for values that may repeat or may be unique on every element (metadata values:
/// a heart-rate motion context repeats, an `HKExternalUUID` never does).
///
/// A fixed number of slots, each holding the last string whose hash fell on it: values that
/// repeat stay in their slot and are shared, unique ones only replace each other, so memory is
/// fixed (the slots plus at most one string and its bytes per slot) whatever the input holds.
/// ``StringInterner`` instead keeps every distinct string up to its limit, which unique values
/// would fill with strings never seen again.
struct StringCache {
  private struct Slot {
    var hash: UInt64 = 0
    var key: [UInt8] = []
    var string = ""
  }

  private var slots: [Slot]
  private let mask: Int

  /// The number of slots: at most this many strings are kept.
  var slotCount: Int { slots.count }

  /// `slotCount` is rounded up to a power of two.
  init(slotCount: Int = 4096) {
    var count = 1
    while count < slotCount { count <<= 1 }
    slots = Array(repeating: Slot(), count: count)
    mask = count - 1
  }

  /// The String for these bytes, shared with the previous one of the same bytes when it is still
  /// in its slot. Strings longer than `limit` are not kept.
  mutating func string(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int = 256) -> String {
    let raw = UnsafeRawBufferPointer(bytes)
    // Strings of up to 15 UTF-8 bytes are stored inline by Swift: nothing to share.
    if raw.count <= 15 || raw.count > limit { return String(decoding: bytes, as: UTF8.self) }
    let hash = ByteKeyedTable<String>.hash(raw)
    let index = Int(truncatingIfNeeded: hash) & mask
    return slots.withUnsafeMutableBufferPointer { slots in
      let same =
        slots[index].hash == hash && slots[index].key.count == raw.count
        && slots[index].key.withUnsafeBytes { memcmp($0.baseAddress!, raw.baseAddress!, raw.count) == 0 }
      if same { return slots[index].string }
      let string = String(decoding: bytes, as: UTF8.self)
      slots[index].hash = hash
      slots[index].key.removeAll(keepingCapacity: true)
      slots[index].key.append(contentsOf: bytes)
      slots[index].string = string
      return string
    }
  }
}
