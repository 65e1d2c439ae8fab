#if canImport(Glibc)
  import Glibc
#endif

/// The two system calls every temporary file healthport makes goes through: creating it in
/// `$TMPDIR` and writing all of a buffer to it. Each caller keeps its own message: `failure` gets
/// the system's reason (`strerror`) and makes the error.
enum SystemFile {
  /// `$TMPDIR`, else `/tmp`.
  static var temporaryFolder: String { getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp" }

  /// Creates `healthport-<stem>-XXXXXX` in `folder` (`mkstemp`: a new file, mode 0600) and
  /// returns its descriptor and path.
  static func makeTemporary(
    _ stem: String, in folder: String, orThrow failure: (_ reason: String) -> HealthPortError
  ) throws -> (descriptor: Int32, path: String) {
    var template = Array("\(folder)/healthport-\(stem)-XXXXXX".utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard descriptor >= 0 else { throw failure(String(cString: strerror(errno))) }
    return (descriptor, template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
  }

  /// Writes every byte of `bytes` to `descriptor`, at `offset` when given (`pwrite`), else at the
  /// file's position; an interrupted call is made again.
  static func writeAll(
    _ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64? = nil,
    orThrow failure: (_ reason: String) -> HealthPortError
  ) throws {
    var written = 0
    while written < bytes.count {
      let start = bytes.baseAddress! + written
      let n =
        if let offset {
          pwrite(descriptor, start, bytes.count - written, off_t(offset) + off_t(written))
        } else {
          Glibc.write(descriptor, start, bytes.count - written)
        }
      if n < 0, errno == EINTR { continue }
      guard n > 0 else { throw failure(String(cString: strerror(errno))) }
      written += n
    }
  }

  /// The error of a scratch file that could not be made or written, `cannot <action>: <reason>
  /// (TMPDIR chooses another folder)`: it names the folder, since the file is healthport's own.
  static func scratchFailure(_ action: String, in folder: String) -> (_ reason: String) -> HealthPortError {
    { reason in
      HealthPortError(.failure, file: folder, message: "cannot \(action): \(reason) (TMPDIR chooses another folder)")
    }
  }
}
