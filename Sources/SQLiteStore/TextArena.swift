/// Memory for the text parameters of the statements being bound, so that SQLite can read them
/// in place (``SQLiteStatement/bindStatic(_:utf8:)``) instead of allocating, copying and freeing
/// a buffer for every text parameter of every row.
///
/// Bytes are appended one parameter after the other and stay where they are until ``reset()``,
/// which the caller calls once the statements that point into the arena have run. The arena
/// never grows: a value that does not fit is reported as nil and bound with a copy instead.
public final class TextArena {
  /// The address bound for '' (SQLite needs a non-NULL pointer to store an empty text).
  @usableFromInline nonisolated(unsafe) static let empty: UnsafePointer<UInt8> = {
    let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    pointer.initialize(to: 0)
    return UnsafePointer(pointer)
  }()

  @usableFromInline let base: UnsafeMutablePointer<UInt8>
  public let capacity: Int
  @usableFromInline var usedBytes = 0
  /// Bytes in use.
  public var used: Int { usedBytes }

  public init(capacity: Int = 1 << 16) {
    self.capacity = capacity
    base = .allocate(capacity: capacity)
  }

  deinit { base.deallocate() }

  /// Room for `count` bytes, or nil when the arena is full. The caller fills all of them.
  @inlinable @inline(__always)
  public func reserve(_ count: Int) -> UnsafeMutableBufferPointer<UInt8>? {
    guard count <= capacity - usedBytes else { return nil }
    let slice = UnsafeMutableBufferPointer(start: base + usedBytes, count: count)
    usedBytes += count
    return slice
  }

  /// A copy of `bytes` in the arena, or nil when it does not fit.
  @inlinable @inline(__always)
  public func copy(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
    guard let slice = reserve(bytes.count) else { return nil }
    if let source = bytes.baseAddress { slice.baseAddress!.update(from: source, count: bytes.count) }
    return UnsafeBufferPointer(slice)
  }

  /// Makes all the memory available again: every statement bound from it must have run.
  @inlinable @inline(__always)
  public func reset() { usedBytes = 0 }
}
