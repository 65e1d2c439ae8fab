import XMLStream

/// Storage a parallel read empties and fills again, instead of allocating it for each range:
/// taken by one thread, given back by another, at most `limit` kept.
///
/// glibc serves a block above its mmap threshold (128 KiB at first) with a mapping of its own,
/// and raises the threshold to the size of each such block freed; blocks made and freed once per
/// range (a range's bytes, its elements, its encoded rows, each over 512 KiB) then came from the
/// heap, and left holes in it that the read grew into: a 4.2 GB zip peaked at 47.8 MB to CSV and
/// 50.8 MB to JSON Lines, 8 to 11 MB over its unzipped export.
final class Spares<Item>: @unchecked Sendable {
  private let lock = ConditionLock()
  private var items: [Item] = []
  private let limit: Int

  /// `limit`: more than a read has in flight (its window's ranges and one per parsing thread).
  init(limit: Int = 64) { self.limit = limit }

  func take() -> Item? {
    lock.lock()
    defer { lock.unlock() }
    return items.popLast()
  }

  /// `item`, emptied: nothing else may hold its storage.
  func giveBack(_ item: consuming Item) {
    lock.lock()
    defer { lock.unlock() }
    if items.count < limit { items.append(item) }
  }
}
