import ZipStream

#if canImport(Glibc)
  import Glibc
#endif

/// export.zip: how `convert --to zip` writes the whole bundle and how an input is recognised as
/// it, registered in ``FormatRegistry/standard``.
extension OutputFormat {
  static let zip = OutputFormat(
    name: "zip", summary: "the whole export as export.zip: export.xml, routes, ECGs and every other file",
    needsPath: true
  ) { request in
    BundleFormatWriter(try ZipDestination(path: request.path!, protecting: request.input))
  }
}

/// Whether `-o PATH` names a folder for `--to xml` (the unzipped bundle layout): it ends with `/`
/// or is an existing folder.
enum BundleOutputPath {
  static func isFolder(_ path: String?) -> Bool {
    guard let path else { return false }
    if path.hasSuffix("/") { return true }
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }
}

extension StreamInputFormat {
  /// A zip archive: the export member found in it, with its side files when the sink takes them.
  static let zip = StreamInputFormat(
    format: .zip,
    recognise: { head in ZipArchiveReader.hasSignature(head.bytes[...]).map { $0 ? .yes : .no } ?? head.undecided },
    isContainer: true,
    read: { stream, options, sink in
      if sink.capabilities.contains(.sideFiles) {
        return try BundleReader.readZip(stream, options: options, into: sink)
      }
      return try ExportFinder.readExportMember(of: stream) {
        try XMLExportReader(options: options).read($0, format: .zip, into: sink)
      }
    })
}
