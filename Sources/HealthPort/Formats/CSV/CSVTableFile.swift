#if canImport(Glibc)
  import Glibc
#endif

/// One CSV file of a `--split` folder: a byte buffer flushed in blocks.
///
/// Many record types mean many tables, so a table keeps its file descriptor open only while the
/// writer's open-file budget allows; past it, each flush opens the file for appending, writes
/// and closes it again. Flushes happen every ``blockSize`` bytes, so that costs a few system
/// calls per 64 KiB.
final class CSVTableFile {
  static let blockSize = 64 << 10

  let path: String
  var buffer = ByteBuffer(capacity: CSVTableFile.blockSize + 4096)
  private(set) var rows = 0
  private var fileDescriptor: Int32 = -1
  private var created = false
  /// The file in ``TemporaryFiles`` from its creation until ``forget()``.
  private var registration: TemporaryFiles.Registration?

  /// Whether rows have a `parent_id` column after `id`.
  let hasParentColumn: Bool
  /// Whether rows have a `workout_id` column after `parent_id`.
  let hasWorkoutColumn: Bool

  init(path: String, header: [String], hasParentColumn: Bool = false, hasWorkoutColumn: Bool = false) {
    self.path = path
    self.hasParentColumn = hasParentColumn
    self.hasWorkoutColumn = hasWorkoutColumn
    CSVEncoding.appendHeader(header, to: &buffer)
  }

  deinit { if fileDescriptor >= 0 { close(fileDescriptor) } }

  /// Ends a row; flushes when the block is full.
  @inline(__always)
  func endRow(budget: inout Int) throws {
    buffer.append(CSVEncoding.newline)
    rows += 1
    if buffer.count >= Self.blockSize { try flush(budget: &budget) }
  }

  /// Writes out the buffer. `budget` is the number of descriptors the writer may still keep open.
  func flush(budget: inout Int) throws {
    guard !buffer.isEmpty else { return }
    var fd = fileDescriptor
    if fd < 0 {
      let flags = O_WRONLY | O_CLOEXEC | (created ? O_APPEND : (O_CREAT | O_TRUNC))
      if !created, registration == nil { registration = TemporaryFiles.registerFile(path) }
      fd = open(path, flags, 0o644)
      guard fd >= 0 else { throw Self.error(path, "cannot create") }
      created = true
      if budget > 0 {
        budget -= 1
        fileDescriptor = fd
      }
    }
    defer { if fileDescriptor < 0 { close(fd) } }
    try buffer.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 {
          if errno == EINTR { continue }
          throw Self.error(path, "cannot write")
        }
        offset += n
      }
    }
    buffer.removeAll()
  }

  /// Flushes and closes.
  func finish(budget: inout Int) throws {
    try flush(budget: &budget)
    if fileDescriptor >= 0 {
      let status = close(fileDescriptor)
      fileDescriptor = -1
      budget += 1
      guard status == 0 else { throw Self.error(path, "cannot write") }
    }
  }

  /// Unregisters the file once its folder was renamed into place or removed.
  func forget() {
    TemporaryFiles.unregister(registration)
    registration = nil
  }

  static func error(_ path: String, _ what: String) -> HealthPortError {
    HealthPortError(.failure, file: path, message: "\(what): \(String(cString: strerror(errno)))")
  }
}
