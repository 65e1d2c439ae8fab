#if canImport(Glibc)
  import Glibc
#endif

/// `convert --to zip`: the whole bundle as an export.zip, registered in ``FormatRegistry/standard``.
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
