import XMLStream
import ZipStream

#if canImport(Glibc)
  import Glibc
#endif

/// Finds the Apple Health export inside a container **by content**: the XML document whose root
/// element is `HealthData`, whatever its name (`export.xml`, `导出.xml`, `eksport.xml`, …), in a
/// zip archive or an unzipped `apple_health_export/` folder.
enum ExportFinder {
  static let sniffLimit = 4 << 20

  /// Reads the export of the zip archive `stream` was recognised as with `read`: the archive
  /// opened by path (seekable: the central directory is used when present), or streamed from
  /// stdin after its head. The members after the export are then looked at too, so that a zip
  /// holding two exports is refused, as a folder holding two is.
  static func readExportMember(of stream: RecognisedStream, _ read: (ByteSource) throws -> ReadReport) throws
    -> ReadReport
  {
    let name = stream.source.displayName
    do {
      let archive: ZipArchiveReader
      if let path = stream.path {
        archive = try ZipArchiveReader(path: path)
      } else {
        archive = try ZipArchiveReader(
          fileDescriptor: stream.fileDescriptor ?? 0, prefix: stream.head.bytes, name: name)
      }
      var members = 0
      while let entry = try archive.nextEntry() {
        guard entry.isRegularFile else { continue }
        members += 1
        guard let member = try sniffExport(archive, entry: entry, name: name, size: stream.size) else { continue }
        var report = try read(member)
        do {
          while let later = try archive.nextEntry() {
            try archive.stopAtKnownCut()
            _ = try refuseSecondExport(archive, entry: later, first: entry.path, name: name)
          }
        } catch {
          // The export is whole: an answer from it stands, with a warning for what is cut.
          guard let cut = archive.truncation else { throw error }
          report.notes.append(truncatedWarning(name, cut))
        }
        if archive.truncation == nil, let cut = archive.layoutCut, cut.membersAllWhole {
          report.notes.append(truncatedWarning(name, cut))
        }
        return report
      }
      throw noExport(name, members: members)
    } catch let error as ZipStreamError {
      throw HealthPortError(.malformed, file: error.archiveName, message: error.message)
    }
  }

  /// `export.zip is truncated: it ends inside member '…/route_….gpx' (N of M members whole)`.
  static func truncatedWarning(_ name: String, _ cut: ZipTruncation) -> String {
    "\(name) is truncated: \(cut.archiveMessage)"
  }

  /// Looks at a member after the export: one named like an export (`.xml`, not a side file)
  /// whose root element is `HealthData` too is refused, naming both. Returns the bytes read to
  /// tell (none for a member not looked at).
  static func refuseSecondExport(_ archive: ZipArchiveReader, entry: ZipEntry, first: String, name: String) throws
    -> [UInt8]
  {
    guard entry.isRegularFile, entry.path.lowercased().hasSuffix(".xml"), SideFilePath(entry.path) == nil else {
      return []
    }
    let (root, prefix) = try sniffRoot(archive)
    if root == .root("HealthData") {
      throw HealthPortError(
        .malformed, file: name,
        message: "the zip archive holds two Apple Health exports, \(first) and \(entry.path); unzip it and "
          + "name the one to read")
    }
    return prefix
  }

  /// Reads the current member's first bytes until its root element is known, or at most
  /// ``sniffLimit`` of them: what the root is, and the bytes read to tell.
  static func sniffRoot(_ archive: ZipArchiveReader) throws -> (root: XMLRootSniffer.Result, prefix: [UInt8]) {
    var prefix: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    while prefix.count < sniffLimit {
      let n = try chunk.withUnsafeMutableBytes { try archive.read(into: $0) }
      if n == 0 { break }
      prefix.append(contentsOf: chunk[0..<n])
      let root = XMLRootSniffer.sniff(prefix)
      if root != .needMore { return (root, prefix) }
    }
    return (.needMore, prefix)
  }

  /// The current member as the export's source when its root element is `HealthData`, else nil
  /// (its first bytes are then consumed).
  static func sniffExport(_ archive: ZipArchiveReader, entry: ZipEntry, name: String, size: Int64?) throws
    -> ByteSource?
  {
    let (root, prefix) = try sniffRoot(archive)
    guard root == .root("HealthData") else { return nil }
    return ZipMemberByteSource(
      archive: archive, prefix: prefix, displayName: "\(name):\(entry.path)", totalBytes: size,
      consumed: { archive.compressedBytesRead })
  }

  /// The error for a zip without an export: empty, or holding other files only.
  static func noExport(_ name: String, members: Int) -> HealthPortError {
    if members == 0 {
      return HealthPortError(
        .malformed, file: name,
        message: "the zip archive is empty (the Health app sometimes writes an empty export; export again)")
    }
    return HealthPortError(
      .malformed, file: name,
      message: "the zip archive holds no Apple Health export (no XML file whose root element is HealthData)")
  }

  /// The export in an unzipped export folder: `apple_health_export/` itself or a folder
  /// containing it. A folder holding two exports is refused (naming both) rather than read by a
  /// guess; a folder holding a zip but no export points to the zip.
  static func exportFile(inFolder path: String) throws -> ByteSource {
    var candidates: [String] = []
    var zips: [String] = []
    for folder in [path, path + "/apple_health_export"] {
      guard let dir = opendir(folder) else { continue }
      defer { closedir(dir) }
      while let entry = readdir(dir) {
        let fileName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
          String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
        let lowercased = fileName.lowercased()
        if lowercased.hasSuffix(".xml") { candidates.append(folder + "/" + fileName) }
        if lowercased.hasSuffix(".zip") { zips.append(folder + "/" + fileName) }
      }
    }
    var found: FileByteSource?
    for candidate in candidates.sorted() {
      guard let source = try openIfExport(candidate) else { continue }
      if let found {
        throw HealthPortError(
          .malformed, file: path,
          message: "the folder holds two Apple Health exports, \(found.displayName) and \(candidate); "
            + "name the one to read")
      }
      found = source
    }
    if let found { return found }
    if let zip = zips.sorted().first {
      throw HealthPortError(
        .malformed, file: path,
        message: "the folder holds no Apple Health export (no XML file whose root element is HealthData), "
          + "but it holds \(zip): read that (healthport reads zips directly)")
    }
    throw HealthPortError(
      .malformed, file: path,
      message: "the folder holds no Apple Health export (no XML file whose root element is HealthData)")
  }

  /// The file at `candidate` as a source when its root element is `HealthData`, else nil.
  private static func openIfExport(_ candidate: String) throws -> FileByteSource? {
    let fd = Glibc.open(candidate, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    var info = stat()
    fstat(fd, &info)
    var prefix: [UInt8] = []
    var result = XMLRootSniffer.Result.needMore
    while result == .needMore, prefix.count < sniffLimit {
      let more: [UInt8]
      do { more = try readPrefix(fd, count: 64 << 10, name: candidate) } catch {
        close(fd)
        throw error
      }
      if more.isEmpty { break }
      prefix += more
      result = XMLRootSniffer.sniff(prefix)
    }
    guard result == .root("HealthData") else {
      close(fd)
      return nil
    }
    return FileByteSource(
      fileDescriptor: fd, ownsDescriptor: true, prefix: prefix, displayName: candidate, totalBytes: Int64(info.st_size))
  }

  private static func readPrefix(_ fd: Int32, count: Int, name: String) throws -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
      let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, count - filled) }
      if n == 0 { break }
      if n < 0 {
        if errno == EINTR { continue }
        throw HealthPortError(.failure, file: name, message: "cannot read: \(String(cString: strerror(errno)))")
      }
      filled += n
    }
    return Array(bytes[0..<filled])
  }
}
