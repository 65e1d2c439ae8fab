import CArchive

#if canImport(Glibc)
  import Glibc
#endif

/// A problem reading a zip archive, printed as `archive.zip: error: message`.
public struct ZipStreamError: Error, CustomStringConvertible, Sendable {
  /// The archive's name as given (a path or `<stdin>`).
  public let archiveName: String
  public let message: String

  public init(archiveName: String, message: String) {
    self.archiveName = archiveName
    self.message = message
  }

  public var description: String { "\(archiveName): error: \(message)" }
}

/// Reads the members of a zip archive one after the other, as streams, through libarchive
/// (`archive_read_next_header`, `archive_read_data`). Nothing is extracted to disk.
///
/// Each member is guarded against decompression bombs: past ``bombThreshold`` bytes of output,
/// a member may not inflate to more than ``maximumRatio`` times the compressed bytes read.
public final class ZipArchiveReader {
  private let archive: OpaquePointer
  private let feed: StreamFeed?
  public let archiveName: String

  /// Bytes of output after which the ratio check applies.
  public var bombThreshold = 64 << 20
  /// Largest allowed ratio of inflated to compressed bytes for one member.
  public var maximumRatio = 100

  private var memberOutput = 0
  /// The current member's path and whether it is encrypted, for messages about it.
  private var memberPath = ""
  private var memberEncrypted = false
  private var memberInputStart: Int64 = 0
  private var memberDeclaredSize: Int64?
  /// The current member's bytes were all read.
  private var memberFinished = true
  /// The position of the current member among all the archive's members (folders too), from 0.
  public private(set) var memberIndex = -1
  /// A zip file's layout, read before libarchive opens it (nil for a stream).
  private let layout: ZipLayout?
  /// Set when reading stopped because the archive ends before its members do: what was cut.
  public private(set) var truncation: ZipTruncation?

  /// Opens a zip file by path (seekable: the central directory is used when present).
  public init(path: String) throws {
    archiveName = path
    archive = archive_read_new()
    feed = nil
    layout = Self.layout(path: path)
    archive_read_support_format_zip(archive)
    // Compressed bytes read at a time (1 MiB held a megabyte more for the whole read).
    let rc = archive_read_open_filename(archive, path, 256 << 10)
    if rc != ARCHIVE_OK {
      // No archive_read_free here: every stored property is set, so deinit runs and frees it.
      let message = Self.errorString(archive)
      throw ZipStreamError(archiveName: path, message: "cannot open the zip archive: \(message)")
    }
  }

  /// Opens a zip streamed from a file descriptor (stdin), with `prefix` bytes already read from it.
  public init(fileDescriptor: Int32, prefix: [UInt8], name: String) throws {
    archiveName = name
    archive = archive_read_new()
    let feed = StreamFeed(fileDescriptor: fileDescriptor, prefix: prefix)
    self.feed = feed
    layout = nil
    archive_read_support_format_zip(archive)
    let rc = archive_read_open(
      archive, Unmanaged.passUnretained(feed).toOpaque(), nil,
      { _, clientData, buffer in
        let feed = Unmanaged<StreamFeed>.fromOpaque(clientData!).takeUnretainedValue()
        return feed.next(buffer)
      }, nil)
    if rc != ARCHIVE_OK {
      // No archive_read_free here: every stored property is set, so deinit runs and frees it.
      let message = Self.errorString(archive)
      throw ZipStreamError(archiveName: name, message: "cannot open the zip archive: \(message)")
    }
  }

  deinit {
    archive_read_free(archive)
  }

  /// True when `head` starts with a zip signature (`PK\3\4`, a local file header, or `PK\5\6`,
  /// the end record of an empty archive); nil when fewer than 4 bytes are given.
  public static func hasSignature(_ head: ArraySlice<UInt8>) -> Bool? {
    guard head.count >= 4 else { return nil }
    let start = head.startIndex
    return head[start] == 0x50 && head[start + 1] == 0x4B && (head[start + 2] == 3 || head[start + 2] == 5)
      && (head[start + 3] == 4 || head[start + 3] == 6)
  }

  /// Bytes of the archive itself read so far.
  public var compressedBytesRead: Int64 { archive_filter_bytes(archive, -1) }

  /// Moves to the next member and returns its path, or nil at the end of the archive.
  public func nextEntry() throws -> ZipEntry? {
    var entry: OpaquePointer?
    // libarchive converts member names to the current locale's character set; in the C locale
    // (a program that never calls setlocale) a name stored as UTF-8 (the zip's UTF-8 flag, e.g.
    // `导出.xml`) fails that conversion and comes out empty. Read headers in a UTF-8 locale, on
    // this thread only.
    let previous = Self.utf8Locale.map { uselocale($0) }
    defer { if let previous { uselocale(previous) } }
    // The rest of a member not read to its end is skipped here rather than inside
    // archive_read_next_header, so that a file that ends inside it is told from one that ends
    // after it.
    if !memberFinished, memberIndex >= 0 {
      if archive_read_data_skip(archive) != ARCHIVE_OK {
        if let cut = cutShort(insideMember: true) { throw cut }
        throw ZipStreamError(
          archiveName: archiveName, message: "damaged zip member \(memberPath): \(Self.errorString(archive))")
      }
      memberFinished = true
    }
    let rc = archive_read_next_header(archive, &entry)
    if rc == ARCHIVE_EOF { return nil }
    guard rc == ARCHIVE_OK || rc == ARCHIVE_WARN, let entry else {
      if let cut = cutShort(insideMember: !memberFinished) { throw cut }
      throw ZipStreamError(archiveName: archiveName, message: "damaged zip archive: \(Self.errorString(archive))")
    }
    memberIndex += 1
    memberFinished = false
    memberOutput = 0
    memberInputStart = archive_filter_bytes(archive, -1)
    var path =
      archive_entry_pathname_utf8(entry).map { String(cString: $0) }
      ?? archive_entry_pathname(entry).map { String(cString: $0) } ?? ""
    // The name as stored when libarchive turned its backslashes into slashes or cut it at a NUL
    // (a zip file only: a stream's names are not known beforehand).
    if let stored = layout?.storedNames[memberIndex], ZipLayout.asLibarchiveReads(stored) == path {
      path = stored
    }
    memberPath = path
    memberEncrypted = archive_entry_is_encrypted(entry) != 0
    let type = archive_entry_filetype(entry)
    let size: Int64? = archive_entry_size_is_set(entry) != 0 ? archive_entry_size(entry) : nil
    memberDeclaredSize = size
    let modified: Int64? = archive_entry_mtime_is_set(entry) != 0 ? Int64(archive_entry_mtime(entry)) : nil
    // A symbolic link's target is the member's data; libarchive reads it with the header (from
    // the central directory's Unix mode: a zip streamed from stdin shows the link as a regular
    // file holding its target).
    let target: String? =
      type == 0o120000
      ? archive_entry_symlink_utf8(entry).map { String(cString: $0) }
        ?? archive_entry_symlink(entry).map { String(cString: $0) } ?? "" : nil
    return ZipEntry(
      path: path, isRegularFile: type == 0o100000, declaredSize: size, isDirectory: type == 0o040000,
      modified: modified, symlinkTarget: target)
  }

  /// Reads the current member's next bytes; returns 0 at its end.
  public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    if memberEncrypted {
      throw ZipStreamError(
        archiveName: archiveName,
        message: "the member \(memberPath) is encrypted (the zip has a password; the Health app writes none): "
          + "unzip it with its password, then read the folder")
    }
    let count = archive_read_data(archive, buffer.baseAddress, buffer.count)
    if count < 0 {
      if let cut = cutShort(insideMember: true) { throw cut }
      throw ZipStreamError(
        archiveName: archiveName, message: "damaged zip member \(memberPath): \(Self.errorString(archive))")
    }
    if count == 0 { memberFinished = true }
    memberOutput += count
    if memberOutput > bombThreshold {
      let consumed = max(1, archive_filter_bytes(archive, -1) - memberInputStart)
      if Int64(memberOutput) / consumed > Int64(maximumRatio) {
        throw ZipStreamError(
          archiveName: archiveName,
          message: "the member \(memberPath) inflates more than \(maximumRatio):1 (a zip bomb?); stopped after "
            + "\(memberOutput >> 20) MB")
      }
    }
    return count
  }

  /// What the layout of a zip file shows cut (nil for a whole file or a stream): read before
  /// libarchive, so also when libarchive reads to the end without an error (a file cut inside
  /// its central directory, after every member).
  public var layoutCut: ZipTruncation? { layout?.cut }

  /// For a zip file whose layout shows it cut inside the current member: stops there, as reading
  /// it would, before any of it is handed on.
  public func stopAtKnownCut() throws {
    guard let cut = layout?.cut, cut.member != nil, memberIndex >= cut.wholeMembers else { return }
    truncation = cut
    throw ZipStreamError(archiveName: archiveName, message: cut.readMessage)
  }

  /// When libarchive failed because the archive ends before its members do (the layout of a
  /// file says so, or a stream reached its end), the error that says where, and ``truncation``
  /// set; else nil. `insideMember`: the current member was not read to its end.
  private func cutShort(insideMember: Bool) -> ZipStreamError? {
    guard layout?.truncated ?? feed?.reachedEnd ?? false else { return nil }
    // A member before the one the layout shows cut is damaged, not cut.
    if let known = layout?.cut, known.member != nil, memberIndex < known.wholeMembers { return nil }
    var cut =
      layout?.cut
      ?? ZipTruncation(
        member: insideMember && memberIndex >= 0 ? memberPath : nil,
        wholeMembers: insideMember ? max(0, memberIndex) : memberIndex + 1, totalMembers: layout?.totalMembers,
        declaredSize: memberDeclaredSize)
    if cut.member == memberPath, memberIndex >= 0 {
      cut.bytesRead = Int64(memberOutput)
      cut.declaredSize = cut.declaredSize ?? memberDeclaredSize
    }
    truncation = cut
    return ZipStreamError(archiveName: archiveName, message: cut.readMessage)
  }

  /// The layout of the zip file at `path` (nil when it cannot be opened: libarchive says why).
  private static func layout(path: String) -> ZipLayout? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    return ZipLayout.scan(descriptor: descriptor, size: Int64(info.st_size))
  }

  /// A UTF-8 `LC_CTYPE` locale for ``nextEntry()``, or nil when the system has none.
  nonisolated(unsafe) private static let utf8Locale: locale_t? = {
    for name in ["C.UTF-8", "C.utf8", "en_US.UTF-8"] {
      if let locale = newlocale(LC_CTYPE_MASK, name, nil) { return locale }
    }
    return nil
  }()

  private static func errorString(_ archive: OpaquePointer) -> String {
    archive_error_string(archive).map { String(cString: $0) } ?? "unknown libarchive error"
  }
}

/// One member of a zip archive.
public struct ZipEntry: Sendable {
  public let path: String
  public let isRegularFile: Bool
  public let declaredSize: Int64?
  public let isDirectory: Bool
  /// Modification time, Unix seconds.
  public let modified: Int64?
  /// For a symbolic link, its target (nil for any other member).
  public let symlinkTarget: String?

  public init(
    path: String, isRegularFile: Bool, declaredSize: Int64?, isDirectory: Bool, modified: Int64?,
    symlinkTarget: String? = nil
  ) {
    self.path = path
    self.isRegularFile = isRegularFile
    self.declaredSize = declaredSize
    self.isDirectory = isDirectory
    self.modified = modified
    self.symlinkTarget = symlinkTarget
  }
}

/// Serves libarchive's read callback from a prefix, then from a file descriptor.
private final class StreamFeed {
  let fileDescriptor: Int32
  var prefix: [UInt8]
  var buffer: UnsafeMutableRawPointer
  let capacity = 1 << 20
  /// The descriptor said end of file.
  var reachedEnd = false

  init(fileDescriptor: Int32, prefix: [UInt8]) {
    self.fileDescriptor = fileDescriptor
    self.prefix = prefix
    buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
  }

  deinit { buffer.deallocate() }

  func next(_ out: UnsafeMutablePointer<UnsafeRawPointer?>?) -> Int {
    if !prefix.isEmpty {
      let count = prefix.count
      prefix.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: count) }
      prefix = []
      out?.pointee = UnsafeRawPointer(buffer)
      return count
    }
    while true {
      let count = Glibc.read(fileDescriptor, buffer, capacity)
      if count < 0 && errno == EINTR { continue }
      if count == 0 { reachedEnd = true }
      out?.pointee = UnsafeRawPointer(buffer)
      return count
    }
  }
}
