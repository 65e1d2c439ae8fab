import CArchive

#if canImport(Glibc)
  import Glibc
#endif

/// Writes a zip archive member by member through libarchive's write API (`archive_write_header`,
/// `archive_write_data`), deflated, streaming: a member's size need not be known in advance
/// (libarchive then writes a data descriptor, with Zip64 sizes). The caller chooses the file;
/// ``finish()`` writes the central directory.
public final class ZipArchiveWriter {
  private let archive: OpaquePointer
  public let archiveName: String
  private var open = false

  /// Writes to the file descriptor `fileDescriptor` (not closed here); `name` is for messages.
  public init(fileDescriptor: Int32, name: String) throws {
    archiveName = name
    archive = archive_write_new()
    archive_write_set_format_zip(archive)
    archive_write_set_format_option(archive, "zip", "compression", "deflate")
    // Names are given as UTF-8 and marked so (the UTF-8 flag), whatever the locale: without it
    // a reader takes a name beyond ASCII for CP437.
    archive_write_set_format_option(archive, "zip", "hdrcharset", "UTF-8")
    // One block per write call: no padding of the archive's end.
    archive_write_set_bytes_in_last_block(archive, 1)
    if archive_write_open_fd(archive, fileDescriptor) != ARCHIVE_OK {
      throw ZipStreamError(archiveName: name, message: "cannot write the zip archive: \(Self.errorString(archive))")
    }
  }

  deinit { archive_write_free(archive) }

  /// Starts a member: a regular file (`isDirectory` false) or a folder entry, named `path`
  /// (UTF-8), with its modification time (Unix seconds) when known.
  public func beginEntry(path: String, isDirectory: Bool = false, modified: Int64? = nil, size: Int64? = nil) throws {
    try endEntryIfOpen()
    guard let entry = archive_entry_new() else {
      throw ZipStreamError(archiveName: archiveName, message: "cannot write the zip archive: out of memory")
    }
    defer { archive_entry_free(entry) }
    archive_entry_set_pathname_utf8(entry, path)
    archive_entry_set_filetype(entry, isDirectory ? 0o040000 : 0o100000)
    archive_entry_set_perm(entry, isDirectory ? 0o755 : 0o644)
    if let modified { archive_entry_set_mtime(entry, time_t(modified), 0) }
    if let size { archive_entry_set_size(entry, size) }
    try check(archive_write_header(archive, entry))
    open = true
  }

  /// Writes a symbolic link member named `path` (UTF-8) pointing at `target`, as `zip --symlinks`
  /// stores one: the Unix mode says link, the data is the target.
  public func symlinkEntry(path: String, target: String, modified: Int64? = nil) throws {
    try endEntryIfOpen()
    guard let entry = archive_entry_new() else {
      throw ZipStreamError(archiveName: archiveName, message: "cannot write the zip archive: out of memory")
    }
    defer { archive_entry_free(entry) }
    archive_entry_set_pathname_utf8(entry, path)
    archive_entry_set_filetype(entry, 0o120000)
    archive_entry_set_perm(entry, 0o777)
    archive_entry_set_symlink_utf8(entry, target)
    if let modified { archive_entry_set_mtime(entry, time_t(modified), 0) }
    try check(archive_write_header(archive, entry))
    open = true
  }

  public func write(_ bytes: UnsafeRawBufferPointer) throws {
    var offset = 0
    while offset < bytes.count {
      let n = archive_write_data(archive, bytes.baseAddress! + offset, bytes.count - offset)
      if n < 0 {
        throw ZipStreamError(
          archiveName: archiveName, message: "cannot write the zip archive: \(Self.errorString(archive))")
      }
      offset += n
    }
  }

  /// Ends the archive: the last member and the central directory.
  public func finish() throws {
    try endEntryIfOpen()
    try check(archive_write_close(archive))
  }

  private func endEntryIfOpen() throws {
    guard open else { return }
    open = false
    try check(archive_write_finish_entry(archive))
  }

  private func check(_ rc: Int32) throws {
    guard rc == ARCHIVE_OK || rc == ARCHIVE_WARN else {
      throw ZipStreamError(
        archiveName: archiveName, message: "cannot write the zip archive: \(Self.errorString(archive))")
    }
  }

  /// libarchive's message and the system's cause behind it (`Write error: No space left on
  /// device`), either alone when that is all there is.
  private static func errorString(_ archive: OpaquePointer) -> String {
    let text = archive_error_string(archive).map { String(cString: $0) }
    let code = archive_errno(archive)
    let cause = code > 0 ? String(cString: strerror(code)) : nil
    switch (text, cause) {
    case (let text?, let cause?) where !text.contains(cause): return "\(text): \(cause)"
    case (let text?, _): return text
    case (nil, let cause?): return cause
    case (nil, nil): return "libarchive gave no reason"
    }
  }
}
