import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Where a folder output is written (`--split`, `--to parquet`, `--to xml -o DIR/`, `routes
/// --per-workout`), and how it appears (the output table in `docs/outputs.md`).
///
/// A run writes everything into a temporary folder beside the target (``root``,
/// `.DIR.tmp-PID`); ``commit(replaces:)`` then makes it appear with its manifest,
/// `.healthport-manifest.json` (healthport's version and every file healthport wrote there, with
/// its size), written last:
/// - a new or empty target: the temporary folder is renamed into place, manifest inside;
/// - a target with a manifest (an earlier run's): each new file is renamed into place, the files
///   the earlier manifest lists that this run replaces and did not write again are removed, and
///   the manifest is replaced. No file the manifest does not list is ever touched.
///
/// A non-empty target without a manifest is refused (exit 1): healthport does not know what in
/// it is the user's. ``abort()`` (or dropping it uncommitted) removes the temporary folder; the
/// target keeps what it held. The temporary folder is registered in ``TemporaryFiles`` as a tree:
/// a signal removes it with every file and folder the writers made inside it, however many.
package final class FolderOutput {
  package static let manifestName = ".healthport-manifest.json"

  /// One file healthport wrote, by its path relative to the folder.
  package struct ManifestEntry: Equatable, Sendable {
    package var path: String
    package var bytes: Int64
  }

  /// The path as the user gave it, for messages.
  package let path: String
  /// The folder that ends up written: `path` without trailing slashes, links followed.
  package let target: String
  /// Where the run writes its files.
  package let root: String
  /// The files the target's manifest lists; nil when the target is new or empty.
  package let earlier: [ManifestEntry]?
  private var registration: TemporaryFiles.Registration?
  private var ended = false

  /// Prepares the temporary folder for an output at `path`. `writes` is the output, for errors
  /// (``HealthPortError/Reason/outputIsNotAFolder(writer:)``). Refuses a target that holds or is inside what the
  /// command reads (exit 64), a file (exit 64) and a non-empty folder without a manifest (exit 1).
  package init(path: String, reads: ReadFiles, writes: HealthPortError.Setting) throws {
    self.path = path
    var trimmed = path
    while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
    let target = try FileOutput.followLinks(trimmed)
    self.target = target
    if let conflict = reads.conflict(withFolder: target) { throw conflict }
    var info = stat()
    if stat(target, &info) == 0 {
      guard (info.st_mode & S_IFMT) == S_IFDIR else {
        throw HealthPortError(.outputIsNotAFolder(writer: writes), file: path)
      }
      guard let names = FolderEntries.names(target) else {
        throw FileOutput.systemError(path, "cannot open the folder")
      }
      if names.contains(Self.manifestName) {
        earlier = try Self.readManifest(target + "/" + Self.manifestName, folder: path)
      } else if names.isEmpty {
        earlier = nil
      } else {
        let hint =
          names.contains("export.csv")
          ? "; it looks like a split folder of an earlier healthport, which wrote no manifest: remove or rename it"
          : "; name a new or empty folder"
        throw HealthPortError(
          .failure, file: path,
          message: "the folder holds files healthport did not write (it has no \(Self.manifestName))\(hint)")
      }
    } else {
      earlier = nil
    }
    root = FileOutput.temporaryPath(beside: target)
    FolderEntries.removeTree(root)
    registration = TemporaryFiles.registerTree(root)
    guard mkdir(root, 0o755) == 0 else {
      TemporaryFiles.unregister(registration)
      throw FileOutput.systemError(path, "cannot create the output folder")
    }
  }

  /// The output at `path` for a command reading `input` (nil or `-`: stdin).
  package convenience init(
    path: String, protecting input: String?, writes: HealthPortError.Setting, wholeFolders: Bool = false
  )
    throws
  {
    try self.init(path: path, reads: ReadFiles([input], wholeFolders: wholeFolders), writes: writes)
  }

  deinit { abort() }

  /// True when the target holds an earlier run's files.
  package var isExisting: Bool { earlier != nil }

  /// Makes the run's files appear at the target. `replaces` says which files of the earlier
  /// manifest this run stands for (by default all): those it did not write again are removed;
  /// the others stay and stay listed.
  package func commit(replaces: (String) -> Bool = { _ in true }) throws {
    guard !ended else { return }
    guard let earlier else {
      // Listed as it is written, folder by folder: a list of every file first took 25 MB for
      // 100,000 files.
      do {
        try Self.writeManifest(to: root + "/" + Self.manifestName) { add in
          try Self.walk(root, prefix: "") { relative, bytes in
            if relative != Self.manifestName { try add(relative, bytes) }
          }
        }
      } catch {
        abort()
        throw HealthPortError(.failure, file: path, message: "cannot write the manifest: \(error)")
      }
      guard rename(root, target) == 0 else {
        let error = FileOutput.systemError(path, "cannot move the output folder into place")
        abort()
        throw error
      }
      ended = true
      TemporaryFiles.unregister(registration)
      return
    }
    var written: [ManifestEntry] = []
    Self.walk(root, prefix: "") { relative, bytes in written.append(ManifestEntry(path: relative, bytes: bytes)) }
    let writtenPaths = Set(written.map(\.path))
    for file in written {
      let destination = target + "/" + file.path
      guard makeParents(of: file.path), rename(root + "/" + file.path, destination) == 0 else {
        let error = FileOutput.systemError(destination, "cannot move the file into place")
        abort()
        throw error
      }
    }
    var kept: [ManifestEntry] = []
    for entry in earlier where !writtenPaths.contains(entry.path) {
      if replaces(entry.path) {
        unlink(target + "/" + entry.path)
        removeEmptyParents(of: entry.path)
      } else {
        kept.append(entry)
      }
    }
    ended = true
    FolderEntries.removeTree(root)
    TemporaryFiles.unregister(registration)
    let manifest = target + "/" + Self.manifestName
    let temporary = FileOutput.temporaryPath(beside: manifest)
    do {
      try Self.writeManifest(to: temporary) { add in
        for entry in (kept + written).sorted(by: { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }) {
          try add(entry.path, entry.bytes)
        }
      }
    } catch {
      unlink(temporary)
      throw HealthPortError(.failure, file: path, message: "cannot write the manifest: \(error)")
    }
    guard rename(temporary, manifest) == 0 else {
      let error = FileOutput.systemError(manifest, "cannot move the manifest into place")
      unlink(temporary)
      throw error
    }
  }

  /// `error` naming, instead of a path in the temporary folder (which the user never asked for
  /// and which is gone once the run has failed), the same path in the folder the user named.
  package func describing(_ error: Error) -> Error {
    guard var failure = error as? HealthPortError, let file = failure.file else { return error }
    failure.file = userPath(file)
    return failure
  }

  /// `path` with the temporary folder replaced by the folder as the user named it.
  package func userPath(_ path: String) -> String {
    guard path == root || path.hasPrefix(root + "/") else { return path }
    var named = self.path
    while named.count > 1, named.hasSuffix("/") { named.removeLast() }
    return named + path.dropFirst(root.count)
  }

  /// Drops the run's files; the target stays as it was.
  package func abort() {
    guard !ended else { return }
    ended = true
    FolderEntries.removeTree(root)
    TemporaryFiles.unregister(registration)
  }

  /// Creates the folders of `relative` under the target.
  private func makeParents(of relative: String) -> Bool {
    var folder = target
    for component in relative.split(separator: "/").dropLast() {
      folder += "/" + component
      if mkdir(folder, 0o755) != 0 && errno != EEXIST { return false }
    }
    return true
  }

  /// Removes the folders of `relative` under the target that are left empty.
  private func removeEmptyParents(of relative: String) {
    var components = relative.split(separator: "/").dropLast()
    while !components.isEmpty {
      guard rmdir(target + "/" + components.joined(separator: "/")) == 0 else { return }
      components.removeLast()
    }
  }

  /// Every file below `folder` with its size, as a path relative to it, in the order of the
  /// paths' bytes. A folder's names are held packed while its files are listed (about 25 bytes a
  /// name), never the whole tree's.
  private static func walk(_ folder: String, prefix: String, _ body: (String, Int64) throws -> Void) rethrows {
    let listing = PackedListing(folder)
    for index in listing.order {
      let (name, isFolder) = listing.entry(Int(index))
      let child = folder + "/" + name
      if isFolder {
        try walk(child, prefix: prefix + name + "/", body)
        continue
      }
      var info = stat()
      guard lstat(child, &info) == 0 else { continue }
      if (info.st_mode & S_IFMT) == S_IFDIR {
        try walk(child, prefix: prefix + name + "/", body)
      } else {
        try body(prefix + name, Int64(info.st_size))
      }
    }
  }

  /// The names in one folder, back to back in one buffer, a folder's with a `/` after it: sorted
  /// by those bytes, a folder's files come where their paths sort among its neighbours
  /// (`a.txt` before `a/b`, as `.` sorts before `/`).
  private struct PackedListing {
    var bytes: [UInt8] = []
    var ends: [UInt32] = []
    var order: [UInt32] = []

    init(_ folder: String) {
      guard let dir = opendir(folder) else { return }
      defer { closedir(dir) }
      while let entry = readdir(dir) {
        let added = withUnsafeBytes(of: entry.pointee.d_name) { raw -> Bool in
          let name = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
          if name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0)) { return false }
          bytes.append(contentsOf: UnsafeRawBufferPointer(start: raw.baseAddress!, count: strlen(name)))
          return true
        }
        guard added else { continue }
        var isFolder = entry.pointee.d_type == UInt8(DT_DIR)
        if entry.pointee.d_type == UInt8(DT_UNKNOWN) {
          let start = Int(ends.last ?? 0)
          let name = String(decoding: bytes[start...], as: UTF8.self)
          isFolder = FolderEntries.isFolder(folder + "/" + name)
        }
        if isFolder { bytes.append(UInt8(ascii: "/")) }
        ends.append(UInt32(bytes.count))
      }
      let (names, offsets) = (bytes, ends)
      order = (0..<UInt32(ends.count)).sorted {
        Self.key($0, names, offsets).lexicographicallyPrecedes(Self.key($1, names, offsets))
      }
    }

    private static func key(_ index: UInt32, _ bytes: [UInt8], _ ends: [UInt32]) -> ArraySlice<UInt8> {
      bytes[(index == 0 ? 0 : Int(ends[Int(index) - 1]))..<Int(ends[Int(index)])]
    }

    private func key(_ index: UInt32) -> ArraySlice<UInt8> { Self.key(index, bytes, ends) }

    /// The name of entry `index` and whether it is a folder.
    func entry(_ index: Int) -> (String, Bool) {
      var key = key(UInt32(index))
      let isFolder = key.last == UInt8(ascii: "/")
      if isFolder { key.removeLast() }
      return (String(decoding: key, as: UTF8.self), isFolder)
    }
  }

  // MARK: The manifest

  /// Writes the manifest as it goes, in the bytes `JSONSerialization` gives with `.sortedKeys` and
  /// `.prettyPrinted` (which ``readManifest(_:folder:)`` reads): building it as Foundation objects
  /// first took about 4 KB a file (40,000 routes: 176 MB at the end of a run that had stayed
  /// under 50).
  private static func writeManifest(
    to path: String, _ entries: (_ add: (String, Int64) throws -> Void) throws -> Void
  ) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw HealthPortError(.failure, message: String(cString: strerror(errno))) }
    defer { close(fd) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Self.manifestChunk + 1024)
    func flush() throws {
      try bytes.withUnsafeBytes { try StagedBytes.writeAll(fd, $0, name: path) }
      bytes.removeAll(keepingCapacity: true)
    }
    bytes += Array("{\n  \"files\" : [\n".utf8)
    var first = true
    try entries { path, size in
      bytes += Array((first ? "" : ",\n").utf8)
      first = false
      bytes += Array("    {\n      \"bytes\" : \(size),\n      \"path\" : ".utf8)
      appendJSONString(path, to: &bytes)
      bytes += Array("\n    }".utf8)
      if bytes.count >= Self.manifestChunk { try flush() }
    }
    bytes += Array("\n  ],\n  \"healthport\" : ".utf8)
    appendJSONString(healthportVersion, to: &bytes)
    bytes += Array("\n}\n".utf8)
    try flush()
    guard fsync(fd) == 0 else { throw HealthPortError(.failure, message: String(cString: strerror(errno))) }
  }

  private static let manifestChunk = 64 << 10

  /// `text` as a JSON string the way `JSONSerialization` writes it: `/` escaped too, other
  /// control characters as lowercase `\u00xx`, everything else as its UTF-8.
  static func appendJSONString(_ text: String, to bytes: inout [UInt8]) {
    let hex = Array("0123456789abcdef".utf8)
    bytes.append(UInt8(ascii: "\""))
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes += [UInt8(ascii: "\\"), byte]
      case 0x08: bytes += Array("\\b".utf8)
      case 0x09: bytes += Array("\\t".utf8)
      case 0x0A: bytes += Array("\\n".utf8)
      case 0x0C: bytes += Array("\\f".utf8)
      case 0x0D: bytes += Array("\\r".utf8)
      case 0..<0x20: bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// The entries of the manifest at `path`; a manifest that cannot be read is refused (exit 1)
  /// rather than guessed at, and so is an entry that would lead outside the folder.
  static func readManifest(_ path: String, folder: String) throws -> [ManifestEntry] {
    let damaged = HealthPortError(
      .failure, file: path, message: "the manifest cannot be read; remove the folder or name another one")
    guard let data = FileManager.default.contents(atPath: path),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let files = object["files"] as? [[String: Any]]
    else { throw damaged }
    return try files.map { file in
      guard let relative = file["path"] as? String, let bytes = file["bytes"] as? Int,
        !relative.hasPrefix("/"), !relative.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }),
        !relative.isEmpty
      else { throw damaged }
      return ManifestEntry(path: relative, bytes: Int64(bytes))
    }
  }
}
