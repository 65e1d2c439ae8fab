#if canImport(Glibc)
  import Glibc
#endif

/// A `--split` folder on disk: which of its files are tables.
enum CSVSplitFolder {
  /// The tables of a folder: its visible `.csv` files, unsorted (the manifest and other hidden
  /// files are not tables).
  static func tableFileNames(_ path: String) throws -> [String] {
    guard let names = FolderEntries.names(path) else {
      throw HealthPortError(.failure, file: path, message: "cannot open: \(String(cString: strerror(errno)))")
    }
    return names.filter { $0.hasSuffix(".csv") && !$0.hasPrefix(".") }
  }
}
