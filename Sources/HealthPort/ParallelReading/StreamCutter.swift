#if canImport(Glibc)
  import Glibc
#endif

/// Reads a stream (a zip member being inflated, stdin, a pipe) on a thread of its own and cuts
/// it into ranges at candidate boundaries, as ``BoundaryScanner`` finds them in a file, for the
/// parsers of a ``ParallelExportReader``. It runs at most the board's window ahead of the reader,
/// so memory stays bounded by the window's ranges.
final class StreamCutter: @unchecked Sendable {
  private let source: ByteSource
  private let rangeSize: Int
  /// Bytes read from the stream at a time (with 256 KiB, a zip read with two threads peaked 4 MB higher).
  private static let block = 64 << 10
  /// Once a stretch went uncut, the rest is read in sequence: it is posted in pieces of this size,
  /// uncut, so the window holds a few of them (with four 4 MiB stretches, 20 MB of whitespace in
  /// a zip member peaked at 63 MB with two threads, 5 MB at 48 MB).
  private static let piece = 256 << 10

  /// The storage a range's bytes start with: cut at the first candidate after `rangeSize`
  /// bytes, it seldom holds more.
  static func capacity(rangeSize: Int) -> Int { rangeSize + 2 * block }

  init(source: ByteSource, rangeSize: Int) {
    self.source = source
    self.rangeSize = rangeSize
  }

  func run(_ board: RangeBoard) {
    // A range is cut off the end of `pending`, which then becomes its bytes; what followed the
    // cut goes into storage the board kept from a range taken before (or new storage).
    let capacity = Self.capacity(rangeSize: rangeSize)
    func emptyStorage() -> [UInt8] {
      if let spare = board.spareBytes.take() { return spare }
      var bytes: [UInt8] = []
      bytes.reserveCapacity(capacity)
      return bytes
    }
    var pending = emptyStorage()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.block, alignment: 64)
    defer { buffer.deallocate() }
    var start = 0
    var index = 0
    var ended = false
    var readError: (any Error)?
    var searched = rangeSize
    // Whether a stretch went uncut: the parsers fail it and all that follows is read in sequence.
    var sequential = false
    while true {
      var cut: Int?
      // A stretch with no candidate for too long (see ``RangePlan/maximumRangeBytes``) is posted
      // as it is, not to be parsed: the read goes on in sequence from its start.
      var uncut = sequential
      while true {
        if sequential {
          if pending.count >= Self.piece { cut = Self.piece }
          if cut != nil || ended { break }
        } else {
          cut = Self.candidate(in: pending, from: &searched)
          if cut != nil || ended { break }
        }
        if !sequential, pending.count > RangePlan.maximumRangeBytes {
          cut = pending.count
          uncut = true
          break
        }
        do {
          let count = try source.read(into: buffer)
          if count == 0 { ended = true } else { pending.append(contentsOf: buffer[0..<count]) }
        } catch {
          readError = error
          ended = true
        }
      }
      var raw = RawRange(start: start, bytes: [], isLast: cut == nil, isUncut: uncut)
      if uncut, cut == pending.count {
        // The stretch moves out whole (a copy would double it), and what follows needs a piece.
        raw.bytes = pending
        pending = []
        pending.reserveCapacity(Self.piece + Self.block)
      } else if let cut {
        var rest = emptyStorage()
        rest.append(contentsOf: pending[cut...])
        pending.removeSubrange(cut...)
        raw.bytes = pending
        pending = rest
      } else {
        raw.bytes = pending
        raw.readError = readError
        pending = []
      }
      raw.consumed = source.bytesConsumed
      raw.total = source.totalBytes
      start += raw.bytes.count
      searched = rangeSize
      sequential = uncut
      guard board.post(raw: raw, at: index), !raw.isLast else { return }
      index += 1
    }
  }

  /// The first candidate boundary at or after `rangeSize` in `bytes` whose four bytes are all
  /// there; `searched` remembers how far the search got, so that each byte is looked at once.
  static func candidate(in bytes: [UInt8], from searched: inout Int) -> Int? {
    bytes.withUnsafeBufferPointer { buffer -> Int? in
      guard let base = buffer.baseAddress else { return nil }
      var at = searched
      while at + 3 < buffer.count, let found = memchr(base + at, 0x0A, buffer.count - 3 - at) {
        let feed = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
        if base[feed + 1] == 0x20, base[feed + 2] == 0x3C, BoundaryScanner.isLetter(base[feed + 3]) { return feed }
        at = feed + 1
      }
      searched = max(searched, buffer.count - 3)
      return nil
    }
  }
}
