#if canImport(Glibc)
  import Glibc
#endif

/// The files a command reads, so that no output is written over one of them.
///
/// Paths are compared by their real paths (symbolic links and `..` resolved), and a file output
/// that exists also by device and inode, so that a hard link to an input is found too. What a
/// command reads of an input:
/// - a file: that file; an `export.xml` with `workout-routes/` or `electrocardiograms/` beside it,
///   also those folders, and, when the output copies the whole export (`--to zip`, `--to xml -o
///   DIR/`), its whole folder;
/// - a `--split` folder (it holds `export.csv`): the whole folder;
/// - an export folder: the XML files at its top and in `apple_health_export/`, the side folders,
///   and the whole export folder when the output copies it whole.
///
/// A new path inside an input folder is allowed when the command does not read that folder
/// whole (`convert fol --to csv -o fol/records.csv`).
package struct ReadFiles: Sendable {
  /// A file the command reads, or a folder it reads everything under.
  struct Region: Sendable {
    let path: String
    let isFolder: Bool
    /// The input as the user named it, for messages.
    let input: String
  }

  let regions: [Region]

  /// The files read from `inputs` (nil or `-`: stdin, which no output can overwrite).
  /// `wholeFolders`: the output copies an export folder whole.
  package init(_ inputs: [String?], wholeFolders: Bool = false) {
    var regions: [Region] = []
    for input in inputs {
      guard let input, input != "-", let real = Self.realPath(input) else { continue }
      var info = stat()
      guard stat(real, &info) == 0 else { continue }
      func add(_ path: String, folder: Bool) { regions.append(Region(path: path, isFolder: folder, input: input)) }
      func addSideFolders(of exportFolder: String) {
        for side in ["workout-routes", "electrocardiograms"] where Self.isFolder(exportFolder + "/" + side) {
          add(exportFolder + "/" + side, folder: true)
        }
      }
      if (info.st_mode & S_IFMT) == S_IFDIR {
        let names = FolderEntries.names(real) ?? []
        if names.contains("export.csv") {
          add(real, folder: true)
          continue
        }
        let nested = real + "/apple_health_export"
        let exportFolder = Self.isFolder(nested) ? nested : real
        for folder in Set([real, exportFolder]) {
          for name in FolderEntries.names(folder) ?? [] where name.lowercased().hasSuffix(".xml") {
            add(folder + "/" + name, folder: false)
          }
        }
        addSideFolders(of: exportFolder)
        if wholeFolders { add(exportFolder, folder: true) }
      } else {
        add(real, folder: false)
        let parent = Self.parent(of: real)
        if real.lowercased().hasSuffix(".xml") {
          addSideFolders(of: parent)
          if wholeFolders, regions.contains(where: { $0.isFolder && Self.parent(of: $0.path) == parent }) {
            add(parent, folder: true)
          }
        }
      }
    }
    self.regions = regions
  }

  /// The error for a file output at `path` that is, or is inside a folder of, what the command
  /// reads; nil when it is neither.
  package func conflict(withFile path: String) -> HealthPortError? {
    guard let real = Self.realPath(path) else { return nil }
    for region in regions where real == region.path || (region.isFolder && real.hasPrefix(region.path + "/")) {
      return Self.error(path, region)
    }
    // A hard link: another name of an input file (a file with one link has only the name above).
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_nlink > 1 else { return nil }
    for region in regions {
      var found = false
      if region.isFolder {
        FolderEntries.walkFiles(region.path) { file in
          var other = stat()
          if !found, stat(file, &other) == 0, other.st_dev == info.st_dev, other.st_ino == info.st_ino { found = true }
        }
      } else {
        var other = stat()
        found = stat(region.path, &other) == 0 && other.st_dev == info.st_dev && other.st_ino == info.st_ino
      }
      if found { return Self.error(path, region) }
    }
    return nil
  }

  /// The error for a folder output at `path` that holds, or is inside, what the command reads.
  package func conflict(withFolder path: String) -> HealthPortError? {
    guard let real = Self.realPath(path) else { return nil }
    for region in regions
    where real == region.path || region.path.hasPrefix(real + "/")
      || (region.isFolder && real.hasPrefix(region.path + "/"))
    {
      return Self.error(path, region)
    }
    return nil
  }

  private static func error(_ path: String, _ region: Region) -> HealthPortError {
    HealthPortError(.outputIsInput(insideFolder: region.isFolder, input: region.input), file: path)
  }

  /// `path` with every symbolic link and `.`/`..` resolved; for a path that does not exist yet,
  /// its folder's real path and its name. Nil when its folder does not exist either.
  static func realPath(_ path: String) -> String? {
    if let resolved = realpath(path, nil) {
      defer { free(resolved) }
      return String(cString: resolved)
    }
    var trimmed = path
    while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
    let name = trimmed.split(separator: "/").last.map(String.init) ?? trimmed
    guard name != ".", name != "..", let folder = realpath(parent(of: trimmed), nil) else { return nil }
    defer { free(folder) }
    let base = String(cString: folder)
    return (base == "/" ? "" : base) + "/" + name
  }

  /// The folder of `path` (`.` for a bare name).
  static func parent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  static func isFolder(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }
}

/// Listing and walking folders with `opendir(3)`.
enum FolderEntries {
  /// The names in `path` without `.` and `..`; nil when it cannot be opened (`errno` says why).
  static func names(_ path: String) -> [String]? {
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

  /// True for a folder itself, not a link to one.
  static func isFolder(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }

  /// Calls `body` with the path of every entry below `path` that is not a folder.
  static func walkFiles(_ path: String, _ body: (String) -> Void) {
    for name in names(path) ?? [] {
      let child = path + "/" + name
      if isFolder(child) { walkFiles(child, body) } else { body(child) }
    }
  }

  /// Removes a folder and everything below it (links are removed, never followed).
  static func removeTree(_ path: String) {
    for name in names(path) ?? [] {
      let child = path + "/" + name
      if isFolder(child) { removeTree(child) } else { unlink(child) }
    }
    rmdir(path)
  }
}
