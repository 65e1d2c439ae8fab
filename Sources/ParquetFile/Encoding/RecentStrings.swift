/// The last few large strings a byte-array column took and their dictionary entries, told apart
/// by their storage: a reader that interns its strings (types, sources, units, metadata keys)
/// hands the same storage again and again, so a repeat costs a pointer comparison instead of
/// hashing and comparing its bytes. Holding the strings keeps their storage alive, so an address
/// can never stand for another string meanwhile.
struct RecentStrings {
  /// Strings up to this many UTF-8 bytes are stored inline (no storage to recognise).
  static let smallStringLimit = 15
  private static let capacity = 8

  private var texts: [String] = []
  private var storages: [UnsafeRawPointer] = []
  private var counts: [Int] = []
  private var entries: [Int] = []
  private var next = 0

  /// The entry of the remembered string whose bytes are at `storage`.
  @inline(__always)
  func entry(storage: UnsafeRawPointer, count: Int) -> Int? {
    for index in storages.indices where storages[index] == storage && counts[index] == count {
      return entries[index]
    }
    return nil
  }

  /// Remembers `text` (whose bytes are at `storage`), in place of the oldest when full.
  mutating func remember(_ text: String, storage: UnsafeRawPointer, count: Int, entry: Int) {
    if texts.count < Self.capacity {
      texts.append(text)
      storages.append(storage)
      counts.append(count)
      entries.append(entry)
      return
    }
    texts[next] = text
    storages[next] = storage
    counts[next] = count
    entries[next] = entry
    next = (next + 1) % Self.capacity
  }

  /// Forgets every string (the dictionary they point into was reset or abandoned).
  mutating func removeAll() {
    guard !texts.isEmpty else { return }
    texts.removeAll(keepingCapacity: true)
    storages.removeAll(keepingCapacity: true)
    counts.removeAll(keepingCapacity: true)
    entries.removeAll(keepingCapacity: true)
    next = 0
  }
}
