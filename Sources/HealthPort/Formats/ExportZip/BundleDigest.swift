/// A 128-bit digest of a byte stream, the same whatever the chunks it arrives in: two 64-bit
/// multiply–xor lanes over 8-byte words, plus the length. It tells whether export.xml's
/// rendering in the Health app's layout equals the bytes read, when the two are produced on
/// different threads at different paces (so they cannot be compared byte by byte).
struct StreamDigest: Equatable {
  private var first: UInt64 = 0xcbf2_9ce4_8422_2325
  private var second: UInt64 = 0x9e37_79b9_7f4a_7c15
  private var tail: UInt64 = 0
  private var tailCount = 0
  private(set) var count: Int64 = 0

  mutating func update(_ bytes: UnsafeRawBufferPointer) {
    count += Int64(bytes.count)
    var index = 0
    while tailCount > 0, index < bytes.count {
      push(bytes[index])
      index += 1
    }
    let words = (bytes.count - index) / 8
    for word in 0..<words {
      mix(bytes.loadUnaligned(fromByteOffset: index + word * 8, as: UInt64.self))
    }
    index += words * 8
    while index < bytes.count {
      push(bytes[index])
      index += 1
    }
  }

  /// The digest with the last partial word mixed in.
  var final: StreamDigest {
    var copy = self
    if copy.tailCount > 0 { copy.mix(copy.tail ^ UInt64(copy.tailCount) << 56) }
    copy.tail = 0
    copy.tailCount = 0
    return copy
  }

  @inline(__always)
  private mutating func push(_ byte: UInt8) {
    tail |= UInt64(byte) << (8 * UInt64(tailCount))
    tailCount += 1
    if tailCount == 8 {
      mix(tail)
      tail = 0
      tailCount = 0
    }
  }

  @inline(__always)
  private mutating func mix(_ word: UInt64) {
    first = (first ^ word) &* 0x0000_0100_0000_01b3
    second = ((second ^ word) &* 0xff51_afd7_ed55_8ccd)
    second = (second << 31) | (second >> 33)
  }
}

/// A source that digests every byte read from it (and, for a stream that cannot be read again,
/// keeps a copy), for the export of a bundle that is written back.
final class DigestByteSource: WrappingByteSource {
  let base: ByteSource
  let copy: StagedBytes?
  private(set) var digest = StreamDigest()

  init(_ base: ByteSource, keeping copy: StagedBytes?) {
    self.base = copy.map { TeeByteSource(base, into: $0) } ?? base
    self.copy = copy
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let count = try base.read(into: buffer)
    let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
    digest.update(bytes)
    return count
  }
}

/// Renders the export's elements in the Health app's layout (``XMLExportWriter``) into a
/// digest, to compare with the digest of the bytes read: equal means `--to zip` gives
/// export.xml back from its elements; otherwise its raw bytes travel with them.
final class ExportLayoutCheck {
  private var digest = StreamDigest()
  private var output: OutputStream?
  private var writer: XMLExportWriter?

  func begin(_ header: ExportHeader) throws {
    let output = OutputStream(name: "export.xml") { [unowned self] bytes in digest.update(bytes) }
    self.output = output
    writer = XMLExportWriter(output: output)
    try writer?.begin(header)
  }

  func consume(_ element: ExportElement) throws { try writer?.consume(element) }

  /// The rendering's digest, once the last element is in.
  func finish(_ report: ReadReport) throws -> StreamDigest {
    try writer?.end(report)
    try output?.flush()
    writer = nil
    output = nil
    return digest.final
  }
}
