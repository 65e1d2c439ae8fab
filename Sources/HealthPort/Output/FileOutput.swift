#if canImport(Glibc)
  import Glibc
#endif

/// Where `-o PATH` writes one file, and how it appears there (the output table in
/// `docs/outputs.md`):
/// - `-`, `/dev/stdout` (and `/dev/fd/1`, `/proc/self/fd/1`): standard output;
/// - a character device or a FIFO (`/dev/null`, a named pipe): written in place, never replaced;
/// - a symbolic link: followed (a chain of them too); the file it names is replaced, the link stays;
/// - anything else: a temporary file beside the target (`.NAME.tmp-PID`), made durable and renamed
///   over it by ``commit()``; ``abort()`` (or dropping it uncommitted) removes it, so nothing
///   appears at PATH and an old file there is kept. An old file's permissions carry over.
///
/// No output may be a file the command reads (``ReadFiles``).
package final class FileOutput {
  package enum Placement: Sendable {
    case standardOutput
    /// A device or FIFO, opened as it is.
    case inPlace
    /// A temporary file, renamed over ``FileOutput/target`` by ``FileOutput/commit()``.
    case replacing(temporary: String)
  }

  /// The path as the user gave it, for messages.
  package let path: String
  /// The file that ends up written: `path` with symbolic links followed.
  package let target: String
  package let placement: Placement
  /// Where to write the bytes.
  package let descriptor: Int32
  private var registration: TemporaryFiles.Registration?
  private var ended = false

  /// True for the names that mean standard output.
  package static func isStandardOutput(_ path: String) -> Bool {
    ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"].contains(path)
  }

  /// Opens the output at `path`. Refuses (exit 64) a path that is a file the command reads
  /// (`reads`), a folder or a block device.
  package init(path: String, reads: ReadFiles) throws {
    self.path = path
    if Self.isStandardOutput(path) {
      target = path
      placement = .standardOutput
      descriptor = 1
      return
    }
    let target = try Self.followLinks(path)
    self.target = target
    if let conflict = reads.conflict(withFile: target) { throw conflict }
    var info = stat()
    let exists = stat(target, &info) == 0
    let type = info.st_mode & S_IFMT
    if exists && (type == S_IFCHR || type == S_IFIFO) {
      let fd = open(target, O_WRONLY | O_CLOEXEC)
      guard fd >= 0 else { throw Self.systemError(path, "cannot open the output") }
      placement = .inPlace
      descriptor = fd
      return
    }
    if exists && type == S_IFDIR {
      throw HealthPortError(.badRequest, file: path, message: "is a folder; name a file to write")
    }
    if exists && type == S_IFBLK {
      throw HealthPortError(.badRequest, file: path, message: "is a block device; healthport does not write to disks")
    }
    let temporary = Self.temporaryPath(beside: target)
    let registration = TemporaryFiles.registerFile(temporary)
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      TemporaryFiles.unregister(registration)
      throw Self.systemError(path, "cannot create the output")
    }
    if exists { _ = fchmod(fd, info.st_mode & 0o7777) }
    placement = .replacing(temporary: temporary)
    descriptor = fd
    self.registration = registration
  }

  /// The output at `path` for a command reading `input` (nil or `-`: stdin).
  package convenience init(path: String, protecting input: String?, wholeFolders: Bool = false) throws {
    try self.init(path: path, reads: ReadFiles([input], wholeFolders: wholeFolders))
  }

  deinit { abort() }

  /// True when the bytes can be rewound (a regular file), which the zip writer needs to start over.
  package var isSeekable: Bool {
    if case .replacing = placement { return true }
    return false
  }

  /// Makes the output appear: a temporary file is synced and renamed over the target.
  package func commit() throws {
    guard !ended else { return }
    ended = true
    switch placement {
    case .standardOutput: return
    case .inPlace:
      if close(descriptor) != 0 { throw Self.systemError(path, "cannot write") }
    case .replacing(let temporary):
      defer { TemporaryFiles.unregister(registration) }
      if fsync(descriptor) != 0 || close(descriptor) != 0 {
        let error = Self.systemError(path, "cannot write")
        unlink(temporary)
        throw error
      }
      if rename(temporary, target) != 0 {
        let error = Self.systemError(path, "cannot move the output into place")
        unlink(temporary)
        throw error
      }
    }
  }

  /// Drops the output: a temporary file is removed, the target stays as it was.
  package func abort() {
    guard !ended else { return }
    ended = true
    switch placement {
    case .standardOutput: return
    case .inPlace: close(descriptor)
    case .replacing(let temporary):
      close(descriptor)
      unlink(temporary)
      TemporaryFiles.unregister(registration)
    }
  }

  /// `.NAME.tmp-PID` in the folder of `path`.
  static func temporaryPath(beside path: String) -> String {
    var trimmed = path
    while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
    guard let slash = trimmed.lastIndex(of: "/") else { return ".\(trimmed).tmp-\(getpid())" }
    return String(trimmed[...slash]) + ".\(trimmed[trimmed.index(after: slash)...]).tmp-\(getpid())"
  }

  /// `path` with symbolic links followed to the file they name, which may not exist yet (a link
  /// to a new file is followed too).
  static func followLinks(_ path: String) throws -> String {
    var current = path
    for _ in 0..<40 {
      var info = stat()
      guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return current }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let count = readlink(current, &buffer, buffer.count - 1)
      guard count > 0 else { throw systemError(path, "cannot read the link") }
      let link = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      current = link.hasPrefix("/") ? link : ReadFiles.parent(of: current) + "/" + link
    }
    throw HealthPortError(.badRequest, file: path, message: "too many levels of symbolic links")
  }

  static func systemError(_ path: String, _ what: String) -> HealthPortError {
    HealthPortError(.failure, file: path, message: "\(what): \(String(cString: strerror(errno)))")
  }
}
