import XMLStream
import ZipStream

#if canImport(Glibc)
  import Glibc
#endif

/// What an input turned out to be.
public enum InputFormat: String, Sendable {
  case xml, zip, folder
  /// A CSV table, or a `convert --split` folder of CSV tables.
  case csv
  case csvSplit = "csv-split"
  /// healthport's JSON Lines, or its JSON document.
  case jsonl, json
}

/// Opens an input (an `export.xml`, an `export.zip`, an unzipped `apple_health_export/`
/// folder, or stdin for `-`) and finds the Apple Health export in it **by content**: the XML
/// document whose root element is `HealthData`, whatever its name (`export.xml`, `导出.xml`,
/// `eksport.xml`, …).
enum InputOpener {
  static let sniffLimit = 4 << 20

  static func open(_ path: String?) throws -> (ByteSource, InputFormat) {
    guard let path, path != "-" else {
      return try openStream(fileDescriptor: 0, owns: false, name: "<stdin>", size: nil)
    }
    var info = stat()
    guard stat(path, &info) == 0 else {
      throw HealthPortError(.failure, "\(path): error: cannot open: \(String(cString: strerror(errno)))")
    }
    if (info.st_mode & S_IFMT) == S_IFDIR { return (try openFolder(path), .folder) }
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw HealthPortError(.failure, "\(path): error: cannot open: \(String(cString: strerror(errno)))")
    }
    return try openStream(fileDescriptor: fd, owns: true, name: path, size: Int64(info.st_size))
  }

  /// A file or stdin: a zip when it starts with a zip signature, else XML.
  private static func openStream(fileDescriptor: Int32, owns: Bool, name: String, size: Int64?) throws -> (
    ByteSource, InputFormat
  ) {
    let head = try readPrefix(fileDescriptor, count: 4, name: name)
    let isZip =
      head.count >= 4 && head[0] == 0x50 && head[1] == 0x4B && (head[2] == 3 || head[2] == 5)
      && (head[3] == 4 || head[3] == 6)
    guard isZip else {
      return (
        FileByteSource(
          fileDescriptor: fileDescriptor, ownsDescriptor: owns, prefix: head, displayName: name, totalBytes: size), .xml
      )
    }
    let archive: ZipArchiveReader
    do {
      if owns {
        close(fileDescriptor)
        archive = try ZipArchiveReader(path: name)
      } else {
        archive = try ZipArchiveReader(fileDescriptor: fileDescriptor, prefix: head, name: name)
      }
    } catch let error as ZipStreamError {
      throw HealthPortError(.malformed, error.message)
    }
    return (try findExport(in: archive, name: name, size: size), .zip)
  }

  private static func readPrefix(_ fd: Int32, count: Int, name: String) throws -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
      let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, count - filled) }
      if n == 0 { break }
      if n < 0 {
        if errno == EINTR { continue }
        throw HealthPortError(.failure, "\(name): error: cannot read: \(String(cString: strerror(errno)))")
      }
      filled += n
    }
    return Array(bytes[0..<filled])
  }

  /// Walks the zip's members and stops at the first whose root element is `HealthData`.
  private static func findExport(in archive: ZipArchiveReader, name: String, size: Int64?) throws -> ByteSource {
    var members = 0
    do {
      while let entry = try archive.nextEntry() {
        guard entry.isRegularFile else { continue }
        members += 1
        var prefix: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        sniffing: while prefix.count < sniffLimit {
          let n = try chunk.withUnsafeMutableBytes { try archive.read(into: $0) }
          if n == 0 { break }
          prefix.append(contentsOf: chunk[0..<n])
          switch XMLRootSniffer.sniff(prefix) {
          case .root("HealthData"):
            return ZipMemberByteSource(
              archive: archive, prefix: prefix, displayName: "\(name):\(entry.path)", totalBytes: size,
              consumed: { archive.compressedBytesRead })
          case .root, .notXML: break sniffing
          case .needMore: continue
          }
        }
      }
    } catch let error as ZipStreamError {
      throw HealthPortError(.malformed, error.message)
    }
    if members == 0 {
      throw HealthPortError(
        .malformed,
        "\(name): error: the zip archive is empty (the Health app sometimes writes an empty export; export again)")
    }
    throw HealthPortError(
      .malformed,
      "\(name): error: the zip archive holds no Apple Health export (no XML file whose root element is HealthData)")
  }

  /// An unzipped export folder: `apple_health_export/` itself or a folder containing it. A
  /// folder holding two exports is refused (naming both) rather than read by a guess; a folder
  /// holding a zip but no export points to the zip.
  private static func openFolder(_ path: String) throws -> ByteSource {
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
          .malformed,
          "\(path): error: the folder holds two Apple Health exports, \(found.displayName) and \(candidate); "
            + "name the one to read")
      }
      found = source
    }
    if let found { return found }
    if let zip = zips.sorted().first {
      throw HealthPortError(
        .malformed,
        "\(path): error: the folder holds no Apple Health export (no XML file whose root element is HealthData), "
          + "but it holds \(zip): read that (healthport reads zips directly)")
    }
    throw HealthPortError(
      .malformed,
      "\(path): error: the folder holds no Apple Health export (no XML file whose root element is HealthData)")
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
}
