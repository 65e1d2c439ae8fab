/// The finished pages of a column chunk, in blocks that are never moved or regrown.
///
/// In one growing array, a chunk of megabytes doubled its allocation at once (and copied itself,
/// both buffers live), so the memory the open files held jumped by megabytes between two of the
/// dataset's budget checks. A new block holds as much as the blocks before it, at least what is
/// appended and at most `largestBlock`: a chunk's blocks hold at most twice its bytes, and at most
/// `largestBlock` more once it is large.
struct PageBuffer {
  static let largestBlock = 1 << 20
  private var blocks: [[UInt8]] = []
  /// Bytes appended.
  private(set) var count = 0
  /// Bytes allocated.
  private(set) var capacity = 0

  mutating func append(_ bytes: [UInt8]) {
    guard !bytes.isEmpty else { return }
    if let last = blocks.indices.last, blocks[last].capacity - blocks[last].count >= bytes.count {
      blocks[last].append(contentsOf: bytes)
    } else {
      var block: [UInt8] = []
      block.reserveCapacity(Swift.max(bytes.count, Swift.min(count, Self.largestBlock)))
      block.append(contentsOf: bytes)
      capacity += block.capacity
      blocks.append(block)
    }
    count += bytes.count
  }

  /// Writes every block, in order.
  func write(to output: inout FileOutput) throws(ParquetError) {
    for block in blocks { try output.write(block) }
  }

  mutating func removeAll() {
    blocks = []
    count = 0
    capacity = 0
  }
}
