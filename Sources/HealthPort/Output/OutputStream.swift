#if canImport(Glibc)
  import Glibc
#endif

/// Raised when the reader of stdout went away (`| head`): the command ends quietly.
public struct BrokenPipeError: Error {}

/// A buffered byte output to stdout or to a file written atomically.
///
/// Bytes are appended to a buffer and written in blocks of 256 KiB by a loop that writes
/// everything. A file output goes to a temporary file beside the target (`.name.tmp-PID`),
/// which ``commit()`` renames into place; ``abort()`` (or deinit without commit) removes it,
/// so no half-written file is ever left at the target path. The temporary file is registered in
/// ``TemporaryFiles`` meanwhile, so that an interrupted process removes it too.
public final class OutputStream {
  public static let blockSize = 256 << 10

  /// The pending bytes; append to it directly, then call ``flushIfNeeded()``.
  public var buffer: [UInt8] = []
  public let displayName: String
  private let fileDescriptor: Int32
  private let finalPath: String?
  private let temporaryPath: String?
  /// The temporary file in ``TemporaryFiles``, removed if the process is interrupted.
  private var registration: TemporaryFiles.Registration?
  private var committed = false
  public private(set) var bytesWritten: Int64 = 0
  /// Takes the bytes instead of a file descriptor (a zip member being written).
  private var consumer: ((UnsafeRawBufferPointer) throws -> Void)?

  /// Standard output.
  public init() {
    fileDescriptor = 1
    finalPath = nil
    temporaryPath = nil
    displayName = "<stdout>"
    buffer.reserveCapacity(Self.blockSize * 2)
  }

  /// Hands the bytes, in blocks, to `consumer` (which owns atomicity: a bundle's zip or folder).
  public init(name: String, consumer: @escaping (UnsafeRawBufferPointer) throws -> Void) {
    fileDescriptor = -1
    finalPath = nil
    temporaryPath = nil
    displayName = name
    self.consumer = consumer
    buffer.reserveCapacity(Self.blockSize * 2)
  }

  /// A file at `path`, created atomically. Refuses to write over `protectedPath` (the input).
  public init(path: String, protecting protectedPath: String? = nil) throws {
    if let protectedPath, OutputStream.sameFile(path, protectedPath) {
      throw HealthPortError(.usage, file: path, message: "the output would overwrite the input; choose another path")
    }
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { String(path[..<$0]) } ?? "."
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    let temporary = (directory.isEmpty ? "" : directory + "/") + ".\(name).tmp-\(getpid())"
    let registration = TemporaryFiles.registerFile(temporary)
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      TemporaryFiles.unregister(registration)
      throw HealthPortError(
        .failure, file: path, message: "cannot create the output: \(String(cString: strerror(errno)))")
    }
    fileDescriptor = fd
    finalPath = path
    temporaryPath = temporary
    self.registration = registration
    displayName = path
    buffer.reserveCapacity(Self.blockSize * 2)
  }

  deinit {
    if !committed { abort() }
  }

  @inline(__always)
  public func flushIfNeeded() throws {
    if buffer.count >= Self.blockSize { try flush() }
  }

  public func write(_ bytes: [UInt8]) throws {
    buffer.append(contentsOf: bytes)
    try flushIfNeeded()
  }

  public func write(_ text: String) throws {
    buffer.append(contentsOf: text.utf8)
    try flushIfNeeded()
  }

  /// Writes out everything buffered.
  public func flush() throws {
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
  }

  /// Flushes and, for a file, moves it into place.
  public func commit() throws {
    try flush()
    committed = true
    guard let finalPath, let temporaryPath else { return }
    defer { TemporaryFiles.unregister(registration) }
    if fsync(fileDescriptor) != 0 || close(fileDescriptor) != 0 {
      unlink(temporaryPath)
      throw HealthPortError(.failure, file: finalPath, message: "cannot write: \(String(cString: strerror(errno)))")
    }
    if rename(temporaryPath, finalPath) != 0 {
      let message = String(cString: strerror(errno))
      unlink(temporaryPath)
      throw HealthPortError(.failure, file: finalPath, message: "cannot move the output into place: \(message)")
    }
  }

  /// Drops a file output: the temporary file is removed and nothing appears at the target.
  public func abort() {
    guard !committed else { return }
    committed = true
    if let temporaryPath {
      close(fileDescriptor)
      unlink(temporaryPath)
      TemporaryFiles.unregister(registration)
    }
  }

  /// True when both paths name the same existing file.
  public static func sameFile(_ a: String, _ b: String) -> Bool {
    var first = stat()
    var second = stat()
    guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino
  }
}
