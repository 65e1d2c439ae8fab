import XMLStream
import ZipStream

#if canImport(Glibc)
  import Glibc
#endif

/// Reads a whole export bundle for a sink that wants side files (has ``SinkCapabilities/sideFiles``):
/// export.xml first, then every GPX route and ECG recording, whatever order a zip holds them in,
/// then the sink's `end`. A zip is streamed, never extracted: side files stored before the
/// export are read in a second pass over the zip file, or, for a zip on stdin, spooled to
/// temporary files as they pass. Only one side file is in memory at a time, in batches.
enum BundleReader {
  /// Reads the zip `stream` was recognised as. For a sink that has ``SinkCapabilities/bundleMembers``,
  /// every member (folders too) is handed on in the zip's order, numbered by its position: the
  /// export before the elements, the others after them, read in a second pass (or spooled) when
  /// they come before the export.
  static func readZip(_ stream: RecognisedStream, options: ReadOptions, into sink: ExportSink) throws -> ReadReport {
    let name = stream.source.displayName
    let bundle = BundleSink(next: sink)
    let sides = SideFileReader(options: options, bundle: bundle)
    defer { sides.stop() }
    let members = MemberEvents(sink: sink, sides: sides)
    let archive: ZipArchiveReader
    do { archive = try openArchive(stream) } catch let error as ZipStreamError {
      throw HealthPortError(.malformed, file: error.archiveName, message: error.message)
    }
    /// Where the archive ends before its members do, once the export is whole.
    var cut: ZipTruncation?
    do {
      var files = 0
      var ordinal = -1
      var readExport = false
      /// The export's member path, for the error when a later member is an export too.
      var exportPath = ""
      var later: Set<Int> = []
      var spooled: [(BundleMember, SpoolFile?, String)] = []
      defer { for (_, file, _) in spooled { file?.remove() } }
      reading: while true {
        do {
          guard let entry = try archive.nextEntry() else { break reading }
          if readExport { try archive.stopAtKnownCut() }
          guard members.counts(entry) else { continue }
          ordinal += 1
          let member = MemberEvents.member(entry, index: ordinal)
          // Members before the export are read in a second pass (spooled, from stdin); those after
          // it then wait for that pass too, so that members reach the sink in the zip's order whatever the command (route
          // ids follow it), and a writer keeping that order does not hold every later one, a
          // temporary file each, until the pass comes.
          if readExport, !later.isEmpty || !spooled.isEmpty {
            if entry.isRegularFile { files += 1 }
            let prefix = try ExportFinder.refuseSecondExport(archive, entry: entry, first: exportPath, name: name)
            guard members.lossless || SideFilePath(entry.path) != nil else { continue }
            if stream.path != nil {
              later.insert(ordinal)
            } else if !entry.isRegularFile {
              spooled.append((member, nil, ""))
            } else {
              let source = memberSource(archive, entry: entry, name: name)
              let file = try SpoolFile(
                copying: prefix.isEmpty ? source : PrefixedByteSource(prefix: prefix, base: source))
              spooled.append((member, file, source.displayName))
            }
            continue
          }
          if !entry.isRegularFile {
            if readExport {
              try members.deliver(member, from: nil)
            } else if stream.path != nil {
              later.insert(ordinal)
            } else {
              spooled.append((member, nil, ""))
            }
            continue
          }
          files += 1
          let source = memberSource(archive, entry: entry, name: name)
          if readExport {
            let prefix = try ExportFinder.refuseSecondExport(archive, entry: entry, first: exportPath, name: name)
            if SideFilePath(entry.path) != nil || members.lossless {
              try members.deliver(
                member, from: .stream(prefix.isEmpty ? source : PrefixedByteSource(prefix: prefix, base: source)))
            }
            continue
          }
          if SideFilePath(entry.path) == nil {
            switch try sniff(archive, entry: entry, name: name, size: stream.size) {
            case .export(let export):
              exportPath = entry.path
              try members.beginExport(
                BundleMember(index: ordinal, path: entry.path, kind: .export, modified: entry.modified))
              let digested =
                members.lossless ? DigestByteSource(export, keeping: stream.path == nil ? StagedBytes() : nil) : nil
              bundle.layoutCheck = digested.map { _ in ExportLayoutCheck() }
              _ = try XMLExportReader(options: options).read(digested ?? export, format: .zip, into: bundle)
              readExport = true
              if let digested {
                let exportOrdinal = ordinal
                try members.exportRaw(bundle, digested) {
                  if let copy = digested.copy { return try copy.replay($0) }
                  let again = try ZipArchiveReader(path: stream.path!)
                  var index = -1
                  while let entry = try again.nextEntry() {
                    guard entry.isRegularFile || entry.isDirectory || entry.symlinkTarget != nil else { continue }
                    index += 1
                    guard index == exportOrdinal else { continue }
                    try MemberEvents.copy(memberSource(again, entry: entry, name: name), $0)
                    return
                  }
                }
              }
              continue
            case .other(let prefix):
              guard members.lossless else { continue }
              if stream.path != nil {
                later.insert(ordinal)
              } else {
                let file = try SpoolFile(copying: PrefixedByteSource(prefix: prefix, base: source))
                spooled.append((member, file, source.displayName))
              }
              continue
            }
          }
          if stream.path != nil {
            later.insert(ordinal)
          } else {
            spooled.append((member, try SpoolFile(copying: source), source.displayName))
          }
        } catch  where readExport && archive.truncation != nil {
          cut = try acceptCut(archive, options: options)
          break
        }
      }
      guard readExport, let exportReport = bundle.exportReport else {
        throw ExportFinder.noExport(name, members: files)
      }
      if let path = stream.path, !later.isEmpty {
        let again = try ZipArchiveReader(path: path)
        var second = -1
        while let entry = try again.nextEntry() {
          if let cut, again.memberIndex >= cut.wholeMembers { break }
          guard members.counts(entry) else { continue }
          second += 1
          guard later.contains(second) else { continue }
          try members.deliver(
            MemberEvents.member(entry, index: second),
            from: entry.isRegularFile ? .stream(memberSource(again, entry: entry, name: name)) : nil)
        }
      }
      for (member, file, displayName) in spooled {
        try members.deliver(member, from: file.map { .file(path: $0.path, displayName: displayName) })
      }
      try sides.drain()
      var report = sides.finish(exportReport, cutShort: cut.map { !$0.membersAllWhole } ?? false)
      if let cut = cut ?? archive.layoutCut.flatMap({ $0.membersAllWhole ? $0 : nil }) {
        report.notes.append(ExportFinder.truncatedWarning(name, cut))
      }
      try sink.end(report)
      return report
    } catch let error as ZipStreamError {
      throw HealthPortError(.malformed, file: error.archiveName, message: error.message)
    }
  }

  /// Where the archive ends, when the export was read whole and the archive ends inside a later
  /// member: the members before it are read when the command answers from the export (`info`)
  /// or `--skip-invalid` is given; an output that carries the members stops with the error.
  private static func acceptCut(_ archive: ZipArchiveReader, options: ReadOptions) throws -> ZipTruncation {
    let truncation = archive.truncation!
    // Only the central directory cut off: every member was read.
    guard options.skipInvalid || options.answersFromExport || truncation.membersAllWhole else {
      throw HealthPortError(.truncatedArchive(detail: truncation.archiveMessage), file: archive.archiveName)
    }
    return truncation
  }

  private enum Sniffed {
    case export(ByteSource)
    /// Not the export: the bytes read to tell.
    case other([UInt8])
  }

  /// The current member as the export when its root element is `HealthData` (as
  /// ``ExportFinder/sniffExport(_:entry:name:size:)`` tells it), else the bytes read.
  private static func sniff(_ archive: ZipArchiveReader, entry: ZipEntry, name: String, size: Int64?) throws
    -> Sniffed
  {
    let (root, prefix) = try ExportFinder.sniffRoot(archive)
    guard root == .root("HealthData") else { return .other(prefix) }
    return .export(
      ZipMemberByteSource(
        archive: archive, prefix: prefix, displayName: "\(name):\(entry.path)", totalBytes: size,
        consumed: { archive.compressedBytesRead }))
  }

  /// Reads an unzipped export folder: the export `source` found in it, then the files of the
  /// `workout-routes/` and `electrocardiograms/` folders beside it, in name order. For a sink
  /// that has ``SinkCapabilities/bundleMembers``, every file of the folder is a member (the export
  /// first, then the others by path), named under the folder's own name
  /// (`apple_health_export/export.xml`).
  static func readFolder(_ source: ByteSource, options: ReadOptions, into sink: ExportSink) throws -> ReadReport {
    let bundle = BundleSink(next: sink)
    let sides = SideFileReader(options: options, bundle: bundle)
    defer { sides.stop() }
    let members = MemberEvents(sink: sink, sides: sides)
    var folder = source.displayName
    var exportName = folder
    if let slash = folder.lastIndex(of: "/") {
      exportName = String(folder[folder.index(after: slash)...])
      folder = String(folder[..<slash])
    } else {
      folder = "."
    }
    let top =
      folder == "."
      ? "apple_health_export" : (folder.split(separator: "/").last.map(String.init) ?? "apple_health_export")
    try members.beginExport(BundleMember(index: 0, path: top + "/" + exportName, kind: .export))
    let digested = members.lossless ? DigestByteSource(source, keeping: nil) : nil
    bundle.layoutCheck = digested.map { _ in ExportLayoutCheck() }
    let reader = XMLExportReader(options: options)
    if let digested {
      _ = try reader.read(digested, format: .folder, into: bundle)
    } else {
      _ = try reader.read(file: source, format: .folder, into: bundle)
    }
    guard let exportReport = bundle.exportReport else {
      return ReadReport(documentName: source.displayName, format: .folder)
    }
    if let digested {
      try members.exportRaw(bundle, digested) {
        try MemberEvents.copy(try sides.open(.file(path: source.displayName, displayName: source.displayName)), $0)
      }
    }
    if members.lossless {
      var index = 0
      // The manifest of a folder healthport wrote (`--to xml -o DIR/`) is not a member.
      for relative in filePaths(in: folder) where relative != exportName && relative != FolderOutput.manifestName {
        index += 1
        let path = folder + "/" + relative
        try members.deliver(
          BundleMember(index: index, path: top + "/" + relative, kind: .other),
          from: .file(path: path, displayName: path))
      }
    } else {
      for sub in ["workout-routes", "electrocardiograms"] {
        for file in fileNames(in: folder + "/" + sub) {
          guard let side = SideFilePath(sub + "/" + file) else { continue }
          let path = folder + "/" + sub + "/" + file
          try sides.read(side, from: .file(path: path, displayName: path))
        }
      }
    }
    try sides.drain()
    let report = sides.finish(exportReport)
    try sink.end(report)
    return report
  }

  /// Reads one GPX route or ECG recording given on its own: a bundle of one file, with an empty
  /// header (no export.xml).
  static func readSingle(
    _ kind: SideFilePath.Kind, _ stream: RecognisedStream, format: InputFormat, options: ReadOptions,
    into sink: ExportSink
  ) throws -> ReadReport {
    let name = stream.source.displayName
    let base = name.split(separator: "/").last.map(String.init) ?? name
    let folder = kind == .route ? "workout-routes" : "electrocardiograms"
    let side = SideFilePath("\(folder)/\(base)") ?? SideFilePath("\(folder)/file.\(kind == .route ? "gpx" : "csv")")!
    let bundle = BundleSink(next: sink)
    let sides = SideFileReader(options: options, bundle: bundle)
    defer { sides.stop() }
    try sink.begin(ExportHeader(prolog: [], rootAttributes: []))
    if sink.capabilities.contains(.sideFiles) {
      let source: SideFileReader.Source =
        stream.path.map { .file(path: $0, displayName: name) } ?? .stream(stream.source)
      try sides.read(side, from: source)
    }
    var report = ReadReport(documentName: name, format: format)
    report.documentBytes = stream.size ?? 0
    try sides.drain()
    report = sides.finish(report)
    // A file given on its own has no export to be referenced from: no warning for that.
    report.notes.removeAll()
    try sink.end(report)
    return report
  }

  private static func openArchive(_ stream: RecognisedStream) throws -> ZipArchiveReader {
    if let path = stream.path { return try ZipArchiveReader(path: path) }
    return try ZipArchiveReader(
      fileDescriptor: stream.fileDescriptor ?? 0, prefix: stream.head.bytes, name: stream.source.displayName)
  }

  private static func memberSource(_ archive: ZipArchiveReader, entry: ZipEntry, name: String) -> ByteSource {
    ZipMemberByteSource(
      archive: archive, prefix: [], displayName: "\(name):\(entry.path)", totalBytes: nil,
      consumed: { archive.compressedBytesRead })
  }

  /// True when a `workout-routes/` or `electrocardiograms/` folder is beside the file at `path`.
  static func hasSideFolders(beside path: String) -> Bool {
    let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
    return ["workout-routes", "electrocardiograms"].contains { sub in
      var info = stat()
      return stat(folder + "/" + sub, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
  }

  /// The names of the regular files in `folder`, sorted; none when it does not exist.
  private static func fileNames(in folder: String, folders: Bool = false) -> [String] {
    guard let dir = opendir(folder) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    let wanted = folders ? UInt8(DT_DIR) : UInt8(DT_REG)
    while let entry = readdir(dir) {
      guard entry.pointee.d_type == wanted || entry.pointee.d_type == UInt8(DT_UNKNOWN) else { continue }
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
      }
      guard name != ".", name != ".." else { continue }
      if entry.pointee.d_type == UInt8(DT_UNKNOWN) {
        var info = stat()
        guard stat(folder + "/" + name, &info) == 0,
          (info.st_mode & S_IFMT) == (folders ? S_IFDIR : S_IFREG)
        else { continue }
      }
      names.append(name)
    }
    return names.sorted()
  }

  /// Every regular file under `folder`, as paths relative to it, sorted.
  private static func filePaths(in folder: String, prefix: String = "") -> [String] {
    var paths = fileNames(in: folder).map { prefix + $0 }
    for sub in fileNames(in: folder, folders: true) {
      paths += filePaths(in: folder + "/" + sub, prefix: prefix + sub + "/")
    }
    return paths.sorted()
  }
}

/// Hands a bundle's members on in order (when the sink has ``SinkCapabilities/bundleMembers``): a side
/// file through the ``SideFileReader`` between `.member` and `.memberEnd`, another member's bytes
/// as `.bytes`. Without that wish, only side files are read.
struct MemberEvents {
  let sink: ExportSink
  let sides: SideFileReader
  let lossless: Bool

  init(sink: ExportSink, sides: SideFileReader) {
    self.sink = sink
    self.sides = sides
    lossless = sink.capabilities.contains(.bundleMembers)
  }

  /// True when `entry` is a member to hand on: a regular file, and for a sink that has
  /// ``SinkCapabilities/bundleMembers`` a folder or a symbolic link too.
  func counts(_ entry: ZipEntry) -> Bool {
    entry.isRegularFile || (lossless && (entry.isDirectory || entry.symlinkTarget != nil))
  }

  /// The member `entry` is, at position `index`.
  static func member(_ entry: ZipEntry, index: Int) -> BundleMember {
    BundleMember(
      index: index, path: entry.path,
      kind: entry.isDirectory ? .directory : entry.symlinkTarget != nil ? .symlink : .other,
      modified: entry.modified, linkTarget: entry.symlinkTarget)
  }

  func beginExport(_ member: BundleMember) throws {
    if lossless { try sink.consumeBundleEvent(.member(member)) }
  }

  /// After the export's last element: its raw bytes, when Apple's layout would not give them back.
  func exportRaw(
    _ bundle: BundleSink, _ read: DigestByteSource,
    replay: (_ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
  ) throws {
    defer { read.copy?.remove() }
    guard let rendered = bundle.renderedDigest, rendered != read.digest.final else { return }
    try replay { try sink.consumeBundleEvent(.bytes(Array($0))) }
  }

  /// Calls `body` with the bytes of `source`, in chunks of at most ``BundleEvent/chunkSize``.
  static func copy(_ source: ByteSource, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: BundleEvent.chunkSize, alignment: 16)
    defer { buffer.deallocate() }
    while case let count = try source.read(into: buffer), count > 0 {
      try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }
  }

  func deliver(_ member: BundleMember, from source: SideFileReader.Source?) throws {
    var member = member
    if member.kind != .directory, let side = SideFilePath(member.path), let source {
      member.kind = side.kind == .route ? .route : .ecg
      if lossless { try sink.consumeBundleEvent(.member(member)) }
      try sides.read(side, from: source, member: lossless ? member : nil)
      if lossless { try sink.consumeBundleEvent(.memberEnd) }
      return
    }
    guard lossless else { return }
    try sink.consumeBundleEvent(.member(member))
    if member.kind == .symlink, let target = member.linkTarget {
      let bytes = Array(target.utf8)
      for start in stride(from: 0, to: bytes.count, by: BundleEvent.chunkSize) {
        try sink.consumeBundleEvent(.bytes(Array(bytes[start..<min(bytes.count, start + BundleEvent.chunkSize)])))
      }
    }
    if let source { try Self.copy(try sides.open(source)) { try sink.consumeBundleEvent(.bytes(Array($0))) } }
    try sink.consumeBundleEvent(.memberEnd)
  }
}
