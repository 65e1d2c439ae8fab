#if canImport(Glibc)
  import Glibc
#endif

/// An export document that can be read at any offset: a regular file (`pread`) or bytes in memory.
protocol RandomAccessDocument: AnyObject, Sendable {
  var displayName: String { get }
  var size: Int { get }
  /// Reads up to `buffer.count` bytes at `offset`; fewer only at the end.
  func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// A regular file read with `pread`, safe from several threads at once.
final class FileDocument: RandomAccessDocument, @unchecked Sendable {
  let displayName: String
  let size: Int
  private let fileDescriptor: Int32

  /// Opens `path`; nil when it is not a regular file that can be opened.
  convenience init?(path: String) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    self.init(descriptor: descriptor, name: path)
  }

  /// Takes `descriptor` (closed when the document ends, or at once when nil is returned); nil when
  /// it is not a regular file.
  init?(descriptor: Int32, name: String) {
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      close(descriptor)
      return nil
    }
    fileDescriptor = descriptor
    displayName = name
    size = Int(info.st_size)
  }

  deinit { close(fileDescriptor) }

  func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    var done = 0
    while done < buffer.count {
      let count = pread(fileDescriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
      if count == 0 { break }
      if count < 0 {
        if errno == EINTR { continue }
        throw HealthPortError(
          .failure, file: displayName, message: "cannot read: \(String(cString: strerror(errno)))")
      }
      done += count
    }
    return done
  }
}

/// Bytes held in memory (``ExportReader/init(bytes:name:options:)``).
final class MemoryDocument: RandomAccessDocument, Sendable {
  let displayName: String
  let bytes: [UInt8]
  var size: Int { bytes.count }

  init(bytes: [UInt8], name: String) {
    self.bytes = bytes
    displayName = name
  }

  func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let count = max(0, min(buffer.count, bytes.count - offset))
    guard count > 0 else { return 0 }
    bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
    return count
  }
}

/// Finds candidate boundaries between top-level elements in the Health app's layout: a line
/// feed, one space, `<` and an ASCII letter. A candidate is only a guess (it may sit in a comment,
/// a CDATA section or text); ``ParallelExportReader`` verifies each one by parsing.
///
/// A range starts at the candidate's line feed, so that it begins on a line of its own.
struct BoundaryScanner {
  let document: RandomAccessDocument
  private static let block = 64 << 10
  /// The first read: a boundary is usually a line away (Records are a few hundred bytes), and
  /// reading a whole block for it read a quarter more of the file than the ranges themselves.
  private static let firstBlock = 4 << 10

  /// The offset of the first candidate at or after `offset`, or the document's size when none.
  func boundary(atOrAfter offset: Int) throws -> Int {
    try boundary(atOrAfter: offset, within: Int.max) ?? document.size
  }

  /// The same, but nil when none is found within `limit` bytes of `offset` (only about that
  /// many are read): a stretch without one is not cut into ranges.
  func boundary(atOrAfter offset: Int, within limit: Int) throws -> Int? {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.block, alignment: 16)
    defer { buffer.deallocate() }
    var position = offset
    var blockSize = Self.firstBlock
    while position < document.size {
      let wanted = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<blockSize])
      let count = try document.read(at: position, into: wanted)
      guard count > 0 else { break }
      let base = UnsafePointer(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
      var index = 0
      // Where the next read starts: after this block, or at a line feed too close to its end.
      var resume = count
      while index < count, let found = memchr(base + index, 0x0A, count - index) {
        let at = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
        if at + 3 >= count {
          resume = at
          break
        }
        if base[at + 1] == 0x20, base[at + 2] == 0x3C, Self.isLetter(base[at + 3]) { return position + at }
        index = at + 1
      }
      if count < blockSize { break }  // the end: no room for a candidate after `resume`
      position += resume
      blockSize = Self.block
      if position - offset > limit { return nil }
    }
    return document.size
  }

  @inline(__always)
  static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

  /// Line feeds in `bytes` (memchr from one to the next).
  static func lineFeeds(in bytes: UnsafeRawBufferPointer) -> Int {
    guard var at = bytes.baseAddress else { return 0 }
    let end = at + bytes.count
    var count = 0
    while at < end, let found = memchr(at, 0x0A, end - at) {
      count += 1
      at = UnsafeRawPointer(found) + 1
    }
    return count
  }
}
