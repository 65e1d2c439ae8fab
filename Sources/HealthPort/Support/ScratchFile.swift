#if canImport(Glibc)
  import Glibc
#endif

/// A temporary file in `$TMPDIR` (else `/tmp`) that has no name: it is unlinked as soon as it is
/// made, so the system removes it when it is closed, or when the process ends in any way (a
/// signal, even SIGKILL, included). For data that only this process reads back.
final class ScratchFile {
  /// What the file holds, for messages (`sorted runs of StepCount samples`).
  let purpose: String
  /// The folder it is in, for messages.
  let folder: String
  private let descriptor: Int32
  /// Bytes written so far: the offset of the next write.
  private(set) var size: Int64 = 0

  init(purpose: String) throws {
    self.purpose = purpose
    folder = SystemFile.temporaryFolder
    let made = try SystemFile.makeTemporary(
      "scratch", in: folder, orThrow: SystemFile.scratchFailure("create a temporary file for \(purpose)", in: folder))
    descriptor = made.descriptor
    unlink(made.path)
  }

  deinit { close(descriptor) }

  /// Appends `bytes`.
  func append(_ bytes: UnsafeRawBufferPointer) throws {
    let failure = SystemFile.scratchFailure("write a temporary file for \(purpose)", in: folder)
    try SystemFile.writeAll(descriptor, bytes, at: size, orThrow: failure)
    size += Int64(bytes.count)
  }

  /// Fills `buffer` from `offset`; fails unless every byte is there.
  func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws {
    var done = 0
    while done < buffer.count {
      let n = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
      if n < 0, errno == EINTR { continue }
      guard n > 0 else {
        let reason = n == 0 ? "it ended early" : String(cString: strerror(errno))
        throw HealthPortError(
          .failure, file: folder, message: "cannot read back a temporary file for \(purpose): \(reason)")
      }
      done += n
    }
  }
}
