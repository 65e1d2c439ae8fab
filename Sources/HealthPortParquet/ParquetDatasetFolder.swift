import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// The folder a dataset is written to, and how a run's files appear in it atomically.
///
/// A new folder is built as a temporary sibling (`.DIR.tmp-PID`) and renamed into place at the
/// end, as `--split` does. Into an existing dataset folder, each file is written under a hidden
/// temporary name (`.part-….parquet.tmp`) beside its final place; at the end every file is
/// renamed, and only then are the same person's earlier files removed (the cohort rule: another
/// person's files are never touched). A failed run removes what it wrote and leaves the folder as
/// it was.
final class ParquetDatasetFolder {
  /// `-o DIR`.
  let target: String
  /// True when `target` already existed (a dataset folder, or an empty one).
  let isExisting: Bool
  /// Where files are written during the run: the temporary sibling, or the target itself.
  let root: String
  /// Names every file of this run: UTC time, process id and a random part.
  let runID: String
  /// `person=NAME` for a cohort member, nil for a dataset of one export.
  let personFolder: String?
  /// Each file written so far: where it is, where it goes, its registration.
  var written: [(path: String, finalPath: String, registration: TemporaryFiles.Registration?)] = []
  private var folderRegistration: TemporaryFiles.Registration?
  /// The folders this run created, so that an interruption removes them after their files.
  private var createdFolders: [TemporaryFiles.Registration] = []
  private var ended = false

  /// Prepares the run's folder; `protectedPath` (the input) may not be the target.
  init(target path: String, person: String?, protecting protectedPath: String?) throws {
    var path = path
    while path.count > 1, path.hasSuffix("/") { path.removeLast() }
    if let protectedPath, OutputStream.sameFile(path, protectedPath) {
      throw HealthPortError(.usage, file: path, message: "the output would overwrite the input; choose another folder")
    }
    target = path
    personFolder = person.map { "person=" + HivePath.escape($0) }
    runID = Self.makeRunID()
    var info = stat()
    if stat(path, &info) == 0 {
      guard (info.st_mode & S_IFMT) == S_IFDIR else {
        throw HealthPortError(.usage, file: path, message: "exists and is not a folder; --to parquet writes a folder")
      }
      guard Self.isDataset(path) else {
        throw HealthPortError(
          .usage, file: path,
          message: "the folder exists and is not a healthport Parquet dataset; choose another folder")
      }
      isExisting = true
      root = path
    } else {
      isExisting = false
      let slash = path.lastIndex(of: "/")
      let parent = slash.map { String(path[..<$0]) } ?? "."
      let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
      root = (parent.isEmpty ? "" : parent + "/") + ".\(name).tmp-\(getpid())"
      FolderTree.remove(root)
      folderRegistration = TemporaryFiles.registerFolder(root)
      guard mkdir(root, 0o755) == 0 else {
        let error = Self.error(root, "cannot create the output folder")
        TemporaryFiles.unregister(folderRegistration)
        throw error
      }
    }
  }

  deinit { abort() }

  /// Where a file at `relative` is written during the run, and where it ends up.
  func paths(_ relative: String) -> (written: String, final: String) {
    let final = target + "/" + relative
    guard isExisting else { return (root + "/" + relative, final) }
    let slash = relative.lastIndex(of: "/")!
    let hidden = relative[...slash] + "." + relative[relative.index(after: slash)...] + ".tmp"
    return (root + "/" + hidden, final)
  }

  /// Creates the folders of `relative` (`records/type=…/year=…/`) under the run's root.
  func makeFolders(_ relative: String, created: inout Set<String>) throws {
    var path = root
    for component in relative.split(separator: "/") {
      path += "/" + component
      guard !created.contains(path) else { continue }
      var failure: HealthPortError?
      // Registered and created as one step for an interruption on another thread.
      TemporaryFiles.whileCreating {
        let registration = TemporaryFiles.registerFolder(path)
        if mkdir(path, 0o755) == 0 {
          if let registration { createdFolders.append(registration) }
          return (path, true)
        }
        TemporaryFiles.unregister(registration)
        if errno != EEXIST { failure = Self.error(path, "cannot create the folder") }
        return nil
      }
      if let failure { throw failure }
      created.insert(path)
    }
  }

  /// Makes the run's files appear: renames the new folder into place, or renames each file and
  /// then removes the same person's earlier files.
  func commit() throws {
    guard !ended else { return }
    if isExisting {
      for file in written {
        guard rename(file.path, file.finalPath) == 0 else {
          let error = Self.error(file.finalPath, "cannot move the file into place")
          abort()
          throw error
        }
        TemporaryFiles.unregister(file.registration)
      }
      ended = true
      TemporaryFiles.unregister(createdFolders)
      removeEarlierFiles()
    } else {
      guard rename(root, target) == 0 else {
        let error = Self.error(target, "cannot move the output folder into place")
        abort()
        throw error
      }
      ended = true
      for file in written { TemporaryFiles.unregister(file.registration) }
      TemporaryFiles.unregister(createdFolders)
      TemporaryFiles.unregister(folderRegistration)
    }
  }

  /// Removes what the run wrote; the target stays as it was.
  func abort() {
    guard !ended else { return }
    ended = true
    for file in written {
      unlink(file.path)
      TemporaryFiles.unregister(file.registration)
    }
    if isExisting {
      FolderTree.removeEmptyFolders(root)
    } else {
      FolderTree.remove(root)
      TemporaryFiles.unregister(folderRegistration)
    }
    TemporaryFiles.unregister(createdFolders)
  }

  /// The cohort rule: in every table folder, the files of this run's person (below
  /// `person=NAME/`, or outside every `person=` folder for a dataset of one export) that another
  /// run wrote.
  private func removeEarlierFiles() {
    let marker = "-" + runID + "-"
    for table in FolderTree.entries(target) ?? [] where !table.hasPrefix(".") && !table.hasPrefix("_") {
      let tablePath = target + "/" + table
      let start: String
      if let personFolder {
        start = tablePath + "/" + personFolder
      } else {
        start = tablePath
      }
      FolderTree.walkFiles(start, skippingFolders: personFolder == nil ? "person=" : nil) { path, name in
        if name.hasSuffix(".parquet") && !name.hasPrefix(".") && !name.contains(marker) { unlink(path) }
      }
    }
    FolderTree.removeEmptyFolders(target, keepingRoot: true)
  }

  /// An empty folder, or one whose visible entries are all folders (the tables of a dataset).
  static func isDataset(_ path: String) -> Bool {
    guard let names = FolderTree.entries(path) else { return false }
    return names.allSatisfy { name in
      if name.hasPrefix(".") || name.hasPrefix("_") { return true }
      var info = stat()
      return stat(path + "/" + name, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
        && Self.tableNames.contains(name)
    }
  }

  /// The names of every table a dataset may hold (`attributes` in datasets of earlier versions).
  static let tableNames = Set(ParquetTables.all.map(\.definition.name) + [ColumnCatalog.attributes.name])

  static func error(_ path: String, _ message: String) -> HealthPortError {
    HealthPortError(.failure, file: path, message: "\(message): \(String(cString: strerror(errno)))")
  }

  private static func makeRunID() -> String {
    var now = time(nil)
    var parts = tm()
    gmtime_r(&now, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let stamp =
      "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
      + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    return stamp + "-" + String(getpid(), radix: 16) + String(UInt16.random(in: 0...UInt16.max), radix: 16)
  }
}

/// Walking and removing folder trees with `opendir(3)`.
enum FolderTree {
  static func entries(_ path: String) -> [String]? {
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

  private static func isFolder(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }

  /// Calls `body` with each file below `path`, not entering folders named with `skippingFolders`.
  static func walkFiles(_ path: String, skippingFolders prefix: String?, _ body: (String, String) -> Void) {
    for name in entries(path) ?? [] {
      let child = path + "/" + name
      if isFolder(child) {
        if let prefix, name.hasPrefix(prefix) { continue }
        walkFiles(child, skippingFolders: nil, body)
      } else {
        body(child, name)
      }
    }
  }

  /// Removes a folder and everything below it.
  static func remove(_ path: String) {
    for name in entries(path) ?? [] {
      let child = path + "/" + name
      if isFolder(child) { remove(child) } else { unlink(child) }
    }
    rmdir(path)
  }

  /// Removes the folders below `path` that hold no file, and `path` itself unless kept.
  static func removeEmptyFolders(_ path: String, keepingRoot: Bool = true) {
    for name in entries(path) ?? [] where isFolder(path + "/" + name) {
      removeEmptyFolders(path + "/" + name, keepingRoot: false)
    }
    if !keepingRoot { rmdir(path) }
  }
}
