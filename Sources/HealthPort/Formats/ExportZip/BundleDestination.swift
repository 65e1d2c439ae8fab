import ZipStream

#if canImport(Glibc)
  import Glibc
#endif

/// Where a bundle is written member by member: a zip (``ZipDestination``) or a folder
/// (``FolderDestination``), both atomic: a temporary file or folder beside the target, renamed
/// into place by ``commit()``, removed by ``abort()`` or on a signal.
protocol BundleDestination: AnyObject {
  func beginMember(_ member: BundleMember, size: Int64?) throws
  func write(_ bytes: UnsafeRawBufferPointer) throws
  func endMember() throws
  /// Starts the first member written again, empty (its rendering is replaced by raw bytes).
  func restartFirstMember(_ member: BundleMember) throws
  func commit() throws
  func abort()
}

/// The temporary name beside `path`: `.NAME.tmp-PID`.
private func temporaryPath(beside path: String) -> (final: String, temporary: String) {
  var final = path
  while final.count > 1, final.hasSuffix("/") { final.removeLast() }
  let slash = final.lastIndex(of: "/")
  let directory = slash.map { String(final[..<$0]) } ?? "."
  let name = slash.map { String(final[final.index(after: $0)...]) } ?? final
  return (final, (directory.isEmpty ? "" : directory + "/") + ".\(name).tmp-\(getpid())")
}

private func systemError(_ path: String, _ what: String) -> HealthPortError {
  HealthPortError(.failure, file: path, message: "\(what): \(String(cString: strerror(errno)))")
}

/// An export.zip, deflated, through libarchive.
final class ZipDestination: BundleDestination {
  private let finalPath: String
  private let temporary: String
  private let descriptor: Int32
  private let registration: TemporaryFiles.Registration?
  private var zip: ZipArchiveWriter
  private var done = false

  init(path: String, protecting input: String?) throws {
    if let input, OutputStream.sameFile(path, input) {
      throw HealthPortError(.usage, file: path, message: "the output would overwrite the input; choose another path")
    }
    (finalPath, temporary) = temporaryPath(beside: path)
    registration = TemporaryFiles.registerFile(temporary)
    descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      TemporaryFiles.unregister(registration)
      throw systemError(finalPath, "cannot create the output")
    }
    do {
      zip = try ZipArchiveWriter(fileDescriptor: descriptor, name: finalPath)
    } catch let error as ZipStreamError {
      close(descriptor)
      unlink(temporary)
      TemporaryFiles.unregister(registration)
      throw HealthPortError(.failure, file: finalPath, message: error.message)
    }
  }

  deinit { abort() }

  func beginMember(_ member: BundleMember, size: Int64?) throws {
    try wrap {
      try zip.beginEntry(
        path: member.path, isDirectory: member.kind == .directory, modified: member.modified, size: size)
    }
  }

  func write(_ bytes: UnsafeRawBufferPointer) throws { try wrap { try zip.write(bytes) } }
  func endMember() throws {}

  func restartFirstMember(_ member: BundleMember) throws {
    try wrap {
      zip = try ZipArchiveWriter(fileDescriptor: descriptor, name: finalPath)
      guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
        throw systemError(finalPath, "cannot write")
      }
      try zip.beginEntry(path: member.path, modified: member.modified)
    }
  }

  func commit() throws {
    try wrap { try zip.finish() }
    done = true
    defer { TemporaryFiles.unregister(registration) }
    if fsync(descriptor) != 0 || close(descriptor) != 0 {
      unlink(temporary)
      throw systemError(finalPath, "cannot write")
    }
    if rename(temporary, finalPath) != 0 {
      let error = systemError(finalPath, "cannot move the output into place")
      unlink(temporary)
      throw error
    }
  }

  func abort() {
    guard !done else { return }
    done = true
    close(descriptor)
    unlink(temporary)
    TemporaryFiles.unregister(registration)
  }

  private func wrap(_ body: () throws -> Void) throws {
    do { try body() } catch let error as ZipStreamError {
      throw HealthPortError(.failure, file: finalPath, message: error.message)
    }
  }
}

/// The unzipped layout, as `unzip -d DIR` would make it: each member's path under the folder.
final class FolderDestination: BundleDestination {
  private let finalPath: String
  private let temporary: String
  private let registration: TemporaryFiles.Registration?
  /// Every file and folder made inside, so that a signal removes them too.
  private var made: [TemporaryFiles.Registration?] = []
  private var file: Int32 = -1
  private var filePath = ""
  private var done = false

  init(path: String) throws {
    (finalPath, temporary) = temporaryPath(beside: path)
    if let names = CSVSplitFolder.entryNames(finalPath), !names.isEmpty {
      throw HealthPortError(
        .usage, file: finalPath, message: "the folder exists and is not empty; name a new or empty folder")
    }
    registration = TemporaryFiles.registerFolder(temporary)
    guard mkdir(temporary, 0o755) == 0 else {
      TemporaryFiles.unregister(registration)
      throw systemError(finalPath, "cannot create the output folder")
    }
  }

  deinit { abort() }

  func beginMember(_ member: BundleMember, size: Int64?) throws {
    try endMember()
    let components = member.path.split(separator: "/", omittingEmptySubsequences: true)
    guard !member.path.hasPrefix("/"), !components.isEmpty, !components.contains(where: { $0 == ".." || $0 == "." })
    else {
      throw HealthPortError(
        .malformed, file: finalPath, message: "the member '\(member.path)' would be written outside the folder")
    }
    var folder = temporary
    for component in components.dropLast(member.kind == .directory ? 0 : 1) {
      folder += "/" + component
      if mkdir(folder, 0o755) == 0 {
        made.append(TemporaryFiles.registerFolder(folder))
      } else if errno != EEXIST {
        throw systemError(folder, "cannot create the folder")
      }
    }
    guard member.kind != .directory else { return }
    filePath = folder + "/" + components.last!
    made.append(TemporaryFiles.registerFile(filePath))
    file = open(filePath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard file >= 0 else { throw systemError(filePath, "cannot create the file") }
  }

  func write(_ bytes: UnsafeRawBufferPointer) throws {
    guard file >= 0 else { return }
    try StagedBytes.writeAll(file, bytes, name: filePath)
  }

  func restartFirstMember(_ member: BundleMember) throws {
    guard file >= 0, ftruncate(file, 0) == 0, lseek(file, 0, SEEK_SET) == 0 else {
      throw systemError(filePath, "cannot write")
    }
  }

  func endMember() throws {
    guard file >= 0 else { return }
    defer { file = -1 }
    if close(file) != 0 { throw systemError(filePath, "cannot write") }
  }

  func commit() throws {
    try endMember()
    done = true
    defer {
      TemporaryFiles.unregister(made.compactMap { $0 })
      TemporaryFiles.unregister(registration)
    }
    rmdir(finalPath)  // an empty folder there is replaced
    if rename(temporary, finalPath) != 0 {
      let error = systemError(finalPath, "cannot move the output into place")
      Self.removeTree(temporary)
      throw error
    }
  }

  func abort() {
    guard !done else { return }
    done = true
    if file >= 0 { close(file) }
    Self.removeTree(temporary)
    TemporaryFiles.unregister(made.compactMap { $0 })
    TemporaryFiles.unregister(registration)
  }

  /// Removes a folder and everything under it.
  static func removeTree(_ path: String) {
    if let names = CSVSplitFolder.entryNames(path) {
      for name in names {
        let child = path + "/" + name
        var info = stat()
        if lstat(child, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { removeTree(child) } else { unlink(child) }
      }
    }
    rmdir(path)
  }
}
