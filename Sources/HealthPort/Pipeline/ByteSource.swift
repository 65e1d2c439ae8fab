import XMLStream
import ZipStream

#if canImport(Glibc)
  import Glibc
#endif

/// Bytes of one export document, from a file, stdin or a zip member.
protocol ByteSource: AnyObject {
  /// The name used in messages: a path, `<stdin>`, or `archive.zip:member.xml`.
  var displayName: String { get }
  /// Size of the underlying input in bytes, when known (for progress).
  var totalBytes: Int64? { get }
  /// Bytes of the underlying input consumed so far (compressed bytes for a zip).
  var bytesConsumed: Int64 { get }
  /// Reads the next bytes; 0 at the end.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// A source that reads another, ``base``, and passes on its name and progress.
protocol WrappingByteSource: ByteSource {
  var base: ByteSource { get }
}

extension WrappingByteSource {
  var displayName: String { base.displayName }
  var totalBytes: Int64? { base.totalBytes }
  var bytesConsumed: Int64 { base.bytesConsumed }
}

/// Reads a file descriptor, after serving bytes that were already read from it (`prefix`).
final class FileByteSource: ByteSource {
  let displayName: String
  let totalBytes: Int64?
  private(set) var bytesConsumed: Int64 = 0
  private let fileDescriptor: Int32
  private let ownsDescriptor: Bool
  private var prefix: ReadAhead

  init(fileDescriptor: Int32, ownsDescriptor: Bool, prefix: [UInt8], displayName: String, totalBytes: Int64?) {
    self.fileDescriptor = fileDescriptor
    self.ownsDescriptor = ownsDescriptor
    self.prefix = ReadAhead(prefix)
    self.displayName = displayName
    self.totalBytes = totalBytes
    bytesConsumed = Int64(prefix.count)
  }

  deinit { if ownsDescriptor { close(fileDescriptor) } }

  /// The same file as a document read by offset, when it is a regular file this stream reads from
  /// its first byte (what it has served so far is where the descriptor stands); nil otherwise.
  func document() -> RandomAccessDocument? {
    guard lseek(fileDescriptor, 0, SEEK_CUR) == off_t(bytesConsumed) else { return nil }
    let copy = dup(fileDescriptor)
    guard copy >= 0 else { return nil }
    return FileDocument(descriptor: copy, name: displayName)
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    if let count = prefix.read(into: buffer) { return count }
    while true {
      let count = Glibc.read(fileDescriptor, buffer.baseAddress, buffer.count)
      if count >= 0 {
        bytesConsumed += Int64(count)
        return count
      }
      if errno == EINTR { continue }
      throw HealthPortError(
        .failure, file: displayName, message: "cannot read: \(String(cString: strerror(errno)))")
    }
  }
}

/// Reads one member of a zip archive, after serving the bytes read while sniffing it.
final class ZipMemberByteSource: ByteSource {
  let displayName: String
  let totalBytes: Int64?
  private let archive: ZipArchiveReader
  private var prefix: ReadAhead
  private let consumed: () -> Int64

  init(
    archive: ZipArchiveReader, prefix: [UInt8], displayName: String, totalBytes: Int64?, consumed: @escaping () -> Int64
  ) {
    self.archive = archive
    self.prefix = ReadAhead(prefix)
    self.displayName = displayName
    self.totalBytes = totalBytes
    self.consumed = consumed
  }

  var bytesConsumed: Int64 { consumed() }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    if let count = prefix.read(into: buffer) { return count }
    do {
      return try archive.read(into: buffer)
    } catch let error as ZipStreamError {
      throw HealthPortError(.malformed, file: error.archiveName, message: error.message)
    }
  }
}

/// Bytes held in memory.
final class MemoryByteSource: ByteSource {
  let displayName: String
  let bytes: [UInt8]
  private var offset = 0

  init(bytes: [UInt8], name: String) {
    self.bytes = bytes
    displayName = name
  }

  var totalBytes: Int64? { Int64(bytes.count) }
  var bytesConsumed: Int64 { Int64(offset) }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let count = min(buffer.count, bytes.count - offset)
    guard count > 0 else { return 0 }
    bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
    offset += count
    return count
  }
}

/// Serves bytes that were read ahead (to recognise the format), then the rest of the underlying
/// source.
final class PrefixedByteSource: WrappingByteSource {
  private var prefix: ReadAhead
  let base: ByteSource

  init(prefix: [UInt8], base: ByteSource) {
    self.prefix = ReadAhead(prefix)
    self.base = base
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    if let count = prefix.read(into: buffer) { return count }
    return try base.read(into: buffer)
  }
}

/// Bytes already read from a source (to recognise its format), served again before the rest.
struct ReadAhead {
  private var bytes: [UInt8]
  private var offset = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// Copies the next of these bytes into `buffer` and returns how many; nil once all are served
  /// (their memory is then freed).
  mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
    guard offset < bytes.count else { return nil }
    let count = min(bytes.count - offset, buffer.count)
    bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
    offset += count
    if offset == bytes.count {
      bytes = []
      offset = 0
    }
    return count
  }
}
