import ZipStream

#if canImport(Glibc)
  import Glibc
#endif

/// Reads a whole export bundle for a sink that wants side files (``ExportSink/wantsSideFiles``):
/// export.xml first, then every GPX route and ECG recording, whatever order a zip holds them in,
/// then the sink's `end`. A zip is streamed, never extracted: side files stored before the
/// export are read in a second pass over the zip file, or, for a zip on stdin, spooled to
/// temporary files as they pass. Only one side file is in memory at a time, in batches.
enum BundleReader {
  /// Reads the zip `stream` was recognised as.
  static func readZip(_ stream: RecognisedStream, options: ReadOptions, into sink: ExportSink) throws -> ReadReport {
    let name = stream.source.displayName
    let bundle = BundleSink(next: sink)
    let sides = SideFileReader(options: options, bundle: bundle)
    do {
      let archive = try openArchive(stream)
      var members = 0
      var readExport = false
      var later: Set<String> = []
      var spooled: [(SideFilePath, SpoolFile, String)] = []
      defer { for (_, file, _) in spooled { file.remove() } }
      while let entry = try archive.nextEntry() {
        guard entry.isRegularFile else { continue }
        members += 1
        if let side = SideFilePath(entry.path) {
          let member = memberSource(archive, entry: entry, name: name)
          if readExport {
            try sides.read(side, from: .stream(member))
          } else if stream.path != nil {
            later.insert(entry.path)
          } else {
            spooled.append((side, try SpoolFile(copying: member), member.displayName))
          }
        } else if !readExport,
          let export = try ExportFinder.sniffExport(archive, entry: entry, name: name, size: stream.size)
        {
          _ = try XMLExportReader(options: options).read(export, format: .zip, into: bundle)
          readExport = true
        }
      }
      guard readExport, let exportReport = bundle.exportReport else {
        throw ExportFinder.noExport(name, members: members)
      }
      if let path = stream.path, !later.isEmpty {
        let again = try ZipArchiveReader(path: path)
        while let entry = try again.nextEntry() {
          guard entry.isRegularFile, later.contains(entry.path), let side = SideFilePath(entry.path) else { continue }
          try sides.read(side, from: .stream(memberSource(again, entry: entry, name: name)))
        }
      }
      for (side, file, displayName) in spooled {
        try sides.read(side, from: .file(path: file.path, displayName: displayName))
      }
      let report = sides.finish(exportReport)
      try sink.end(report)
      return report
    } catch let error as ZipStreamError {
      throw HealthPortError(.malformed, file: error.archiveName, message: error.message)
    }
  }

  /// Reads an unzipped export folder: the export `source` found in it, then the files of the
  /// `workout-routes/` and `electrocardiograms/` folders beside it, in name order.
  static func readFolder(_ source: ByteSource, options: ReadOptions, into sink: ExportSink) throws -> ReadReport {
    let bundle = BundleSink(next: sink)
    let sides = SideFileReader(options: options, bundle: bundle)
    _ = try XMLExportReader(options: options).read(source, format: .folder, into: bundle)
    guard let exportReport = bundle.exportReport else {
      return ReadReport(documentName: source.displayName, format: .folder)
    }
    var folder = source.displayName
    if let slash = folder.lastIndex(of: "/") { folder = String(folder[..<slash]) } else { folder = "." }
    for sub in ["workout-routes", "electrocardiograms"] {
      for file in fileNames(in: folder + "/" + sub) {
        guard let side = SideFilePath(sub + "/" + file) else { continue }
        let path = folder + "/" + sub + "/" + file
        try sides.read(side, from: .file(path: path, displayName: path))
      }
    }
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
    try sink.begin(ExportHeader(prolog: [], rootAttributes: []))
    if sink.wantsSideFiles {
      let source: SideFileReader.Source =
        stream.path.map { .file(path: $0, displayName: name) } ?? .stream(stream.source)
      try sides.read(side, from: source)
    }
    var report = ReadReport(documentName: name, format: format)
    report.documentBytes = stream.size ?? 0
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

  /// The names of the regular files in `folder`, sorted; none when it does not exist.
  private static func fileNames(in folder: String) -> [String] {
    guard let dir = opendir(folder) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      guard entry.pointee.d_type == UInt8(DT_REG) || entry.pointee.d_type == UInt8(DT_UNKNOWN) else { continue }
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
      }
      names.append(name)
    }
    return names.sorted()
  }
}
