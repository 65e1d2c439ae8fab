#if canImport(Glibc)
  import Glibc
#endif

/// The 16 bytes every SQLite database starts with: the one place they are written down and read
/// without a connection (which could create `-wal` and `-shm` files beside the file it looks at).
package enum SQLiteHeader {
  /// `SQLite format 3` and a NUL.
  package static let magic = Array("SQLite format 3\u{0}".utf8)

  /// Whether the file at `path` is a regular file that starts with ``magic``. Anything else (no
  /// such file, a folder, a FIFO such as `<(cat export.xml)`, a terminal) is not opened, since
  /// reading it could block or take bytes its reader needs, and the answer is false.
  package static func startsDatabase(atPath path: String) -> Bool {
    var status = stat()
    guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return false }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var head = [UInt8](repeating: 0, count: magic.count)
    let count = head.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, magic.count) }
    return count == magic.count && head == magic
  }
}
