#if canImport(Glibc)
  import Glibc
#endif

/// A `--split` folder on disk: what its reader and its writer both need to know of the files.
enum CSVSplitFolder {
  /// The names of the folder's entries (without `.` and `..`); nil when it cannot be opened
  /// (`errno` then says why).
  static func entryNames(_ path: String) -> [String]? {
    guard let dir = opendir(path) else { return nil }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// The tables of a folder: its visible `.csv` files, unsorted.
  static func tableFileNames(_ path: String) throws -> [String] {
    guard let names = entryNames(path) else {
      throw HealthPortError(.failure, file: path, message: "cannot open: \(String(cString: strerror(errno)))")
    }
    return names.filter { $0.hasSuffix(".csv") && !$0.hasPrefix(".") }
  }

  /// True for an empty folder or a previous split folder (it holds `export.csv`): the folders
  /// a split may replace.
  static func isReplaceable(_ path: String) -> Bool {
    guard let names = entryNames(path) else { return false }
    return names.isEmpty || names.contains("export.csv")
  }

  /// Removes a flat folder of files.
  static func remove(_ path: String) {
    guard let names = entryNames(path) else { return }
    for name in names { unlink(path + "/" + name) }
    rmdir(path)
  }
}
