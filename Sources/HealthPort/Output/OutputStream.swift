#if canImport(Glibc)
  import Glibc
#endif

/// Raised when the reader of stdout went away (`| head`): the command ends quietly.
package struct BrokenPipeError: Error {}

/// A buffered byte output to stdout or to a file (a ``FileOutput``: atomic, or a device in place).
///
/// Bytes are appended to a buffer and written in blocks of 256 KiB by a loop that writes
/// everything. ``commit()`` flushes and makes a file output appear; ``abort()`` (or deinit
/// without commit) drops it, so no half-written file is ever left at the target path.
package final class OutputStream {
  package static let blockSize = 256 << 10

  /// The pending bytes; append to it directly, then call ``flushIfNeeded()``.
  package var buffer: [UInt8] = []
  package let displayName: String
  private let fileDescriptor: Int32
  /// The file written, nil for stdout or a consumer.
  private let file: FileOutput?
  private var committed = false
  package private(set) var bytesWritten: Int64 = 0
  /// A file replaced at commit: its pages go to disk as it is written.
  private var writeback: Writeback?
  /// Takes the bytes instead of a file descriptor (a zip member being written).
  private var consumer: ((UnsafeRawBufferPointer) throws -> Void)?

  /// Standard output.
  package init() {
    fileDescriptor = 1
    file = nil
    displayName = "<stdout>"
    buffer.reserveCapacity(Self.blockSize * 2)
  }

  /// Hands the bytes, in blocks, to `consumer` (which owns atomicity: a bundle's zip or folder).
  package init(name: String, consumer: @escaping (UnsafeRawBufferPointer) throws -> Void) {
    fileDescriptor = -1
    file = nil
    displayName = name
    self.consumer = consumer
    buffer.reserveCapacity(Self.blockSize * 2)
  }

  /// The output `-o path` names (see ``FileOutput``), never a file the command reads (`reads`).
  package init(path: String, reads: ReadFiles) throws {
    let file = try FileOutput(path: path, reads: reads)
    self.file = file
    fileDescriptor = file.descriptor
    if case .replacing = file.placement { writeback = Writeback(descriptor: file.descriptor) }
    displayName = FileOutput.isStandardOutput(path) ? "<stdout>" : path
    buffer.reserveCapacity(Self.blockSize * 2)
  }

  /// The output `-o path` names, for a command that reads `protectedPath` (nil or `-`: stdin).
  package convenience init(path: String, protecting protectedPath: String? = nil) throws {
    try self.init(path: path, reads: ReadFiles([protectedPath]))
  }

  deinit {
    if !committed { abort() }
  }

  @inline(__always)
  package func flushIfNeeded() throws {
    if buffer.count >= Self.blockSize { try flush() }
  }

  package func write(_ bytes: [UInt8]) throws {
    buffer.append(contentsOf: bytes)
    try flushIfNeeded()
  }

  package func write(_ text: String) throws {
    buffer.append(contentsOf: text.utf8)
    try flushIfNeeded()
  }

  /// Writes out everything buffered.
  package func flush() throws {
    guard !buffer.isEmpty else { return }
    try buffer.withUnsafeBytes { try writeAll($0) }
    buffer.removeAll(keepingCapacity: true)
  }

  /// Writes a writer's buffer straight out, after what is pending (no copy into ``buffer``).
  func write(_ bytes: borrowing ByteBuffer) throws {
    try flush()
    try bytes.withUnsafeBytes { try writeAll($0) }
  }

  /// Writes bytes straight out, after what is pending.
  func write(_ bytes: UnsafeRawBufferPointer) throws {
    try flush()
    try writeAll(bytes)
  }

  private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
    if let consumer {
      try consumer(bytes)
      bytesWritten += Int64(bytes.count)
      return
    }
    var offset = 0
    while offset < bytes.count {
      let n = Glibc.write(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
      if n < 0 {
        if errno == EINTR { continue }
        if errno == EPIPE { throw BrokenPipeError() }
        throw HealthPortError(.failure, file: displayName, message: "cannot write: \(String(cString: strerror(errno)))")
      }
      offset += n
    }
    bytesWritten += Int64(bytes.count)
    writeback?.wrote(upTo: bytesWritten)
  }

  /// Flushes and, for a file, moves it into place.
  package func commit() throws {
    try flush()
    committed = true
    try file?.commit()
  }

  /// Drops a file output: the temporary file is removed and nothing appears at the target.
  package func abort() {
    guard !committed else { return }
    committed = true
    file?.abort()
  }
}
