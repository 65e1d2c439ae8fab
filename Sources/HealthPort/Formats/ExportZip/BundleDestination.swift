import ZipStream

#if canImport(Glibc)
  import Glibc
#endif

/// Where a bundle is written member by member: a zip (``ZipDestination``, on a ``FileOutput``) or
/// a folder (``FolderDestination``, on a ``FolderOutput``), both made to appear by ``commit()``
/// and dropped by ``abort()`` or on a signal.
protocol BundleDestination: AnyObject {
  func beginMember(_ member: BundleMember, size: Int64?) throws
  /// A symbolic link member, its target's bytes as the input held them.
  func symlink(_ member: BundleMember, target: [UInt8]) throws
  func write(_ bytes: UnsafeRawBufferPointer) throws
  func endMember() throws
  /// Starts the first member written again, empty (its rendering is replaced by raw bytes).
  func restartFirstMember(_ member: BundleMember) throws
  func commit() throws
  func abort()
  /// `error` as the user should read it (see ``FolderOutput/describing(_:)``).
  func describing(_ error: Error) -> Error
}

extension BundleDestination {
  func describing(_ error: Error) -> Error { error }
}

/// The input as errors about its members name it (`<stdin>` for `-`), else `output`.
private func inputName(_ input: String?, or output: String) -> String {
  input.map { $0 == "-" ? "<stdin>" : $0 } ?? output
}

private func systemError(_ path: String, _ what: String) -> HealthPortError {
  HealthPortError(.failure, file: path, message: "\(what): \(String(cString: strerror(errno)))")
}

/// An export.zip, deflated, through libarchive.
final class ZipDestination: BundleDestination {
  private let file: FileOutput
  /// The input, named in errors about its members.
  private let input: String?
  private var zip: ZipArchiveWriter
  private var done = false

  init(path: String, protecting input: String?) throws {
    file = try FileOutput(path: path, protecting: input, wholeFolders: true)
    self.input = input
    do {
      zip = try ZipArchiveWriter(fileDescriptor: file.descriptor, name: path)
    } catch let error as ZipStreamError {
      file.abort()
      throw HealthPortError(.failure, file: path, message: error.message)
    }
  }

  private var finalPath: String { file.path }
  private var descriptor: Int32 { file.descriptor }

  deinit { abort() }

  func beginMember(_ member: BundleMember, size: Int64?) throws {
    try checkName(member)
    try wrap {
      try zip.beginEntry(
        path: member.path, isDirectory: member.kind == .directory, modified: member.modified, size: size)
    }
  }

  private func checkName(_ member: BundleMember) throws {
    guard !member.path.isEmpty else {
      throw HealthPortError(
        .malformed, file: inputName(input, or: finalPath),
        message: "member \(member.index + 1) has an empty name, which libarchive cannot write into a zip")
    }
  }

  func symlink(_ member: BundleMember, target: [UInt8]) throws {
    try checkName(member)
    try wrap {
      try zip.symlinkEntry(
        path: member.path, target: String(decoding: target, as: UTF8.self), modified: member.modified)
    }
  }

  func write(_ bytes: UnsafeRawBufferPointer) throws { try wrap { try zip.write(bytes) } }
  func endMember() throws {}

  func restartFirstMember(_ member: BundleMember) throws {
    try wrap {
      guard file.isSeekable else {
        throw HealthPortError(
          .failure, file: finalPath,
          message:
            "this export's layout needs its zip rewritten from the start, which a pipe or device cannot do; write to a file"
        )
      }
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
    try file.commit()
  }

  func abort() {
    guard !done else { return }
    done = true
    file.abort()
  }

  private func wrap(_ body: () throws -> Void) throws {
    do { try body() } catch let error as ZipStreamError {
      throw HealthPortError(.failure, file: finalPath, message: error.message)
    }
  }
}

/// The unzipped layout, as `unzip -d DIR` would make it: each member's path under the folder.
final class FolderDestination: BundleDestination {
  private let folder: FolderOutput
  /// The input, named in errors about its members.
  private let input: String?
  private var file: Int32 = -1
  private var filePath = ""
  private var done = false

  init(path: String, protecting input: String?) throws {
    folder = try FolderOutput(
      path: path, protecting: input, writes: .formatFolder(OutputFormat.xml.name), wholeFolders: true)
    self.input = input
  }

  private var finalPath: String { folder.path }
  private var temporary: String { folder.root }

  func describing(_ error: Error) -> Error { folder.describing(error) }

  deinit { abort() }

  func beginMember(_ member: BundleMember, size: Int64?) throws {
    try endMember()
    guard !member.path.isEmpty else {
      throw HealthPortError(
        .malformed, file: inputName(input, or: finalPath),
        message: "member \(member.index + 1) has an empty name, which no file can have")
    }
    // A NUL would cut the file's name short.
    guard !member.path.utf8.contains(0) else {
      throw HealthPortError(
        .malformed, file: inputName(input, or: finalPath),
        message: "member \(member.index + 1) ('\(member.path.escapingNUL)') holds a NUL, which no file name can")
    }
    // A backslash is a separator on Windows and a plain character here: either reading would
    // give another name than the zip's.
    guard !member.path.contains("\\") else {
      throw HealthPortError(
        .memberUnfitForFolder(
          number: member.index + 1, name: member.path,
          why: "holds a backslash, which a folder cannot keep as the zip names it"),
        file: inputName(input, or: finalPath))
    }
    let components = member.path.split(separator: "/", omittingEmptySubsequences: true)
    guard !member.path.hasPrefix("/"), !components.isEmpty, !components.contains(where: { $0 == ".." || $0 == "." })
    else {
      throw HealthPortError(
        .malformed, file: finalPath, message: "the member '\(member.path)' would be written outside the folder")
    }
    var folder = temporary
    for component in components.dropLast(member.kind == .directory ? 0 : 1) {
      folder += "/" + component
      // Nothing made inside the temporary folder is registered: a signal removes it whole.
      if mkdir(folder, 0o755) != 0 && errno != EEXIST {
        throw systemError(folder, "cannot create the folder")
      }
    }
    guard member.kind != .directory else { return }
    filePath = folder + "/" + components.last!
    // The temporary folder starts empty, so a file that exists already is a second member of
    // the same name (which would overwrite the first): the file system tells, and no set of
    // every member's name is kept (100,000 members held 10 MB that way).
    file = open(filePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard file >= 0 else {
      if errno == EEXIST {
        var info = stat()
        if lstat(filePath, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
          errno = EISDIR
        } else {
          throw HealthPortError(.duplicateMember(name: member.path), file: inputName(input, or: finalPath))
        }
      }
      throw systemError(filePath, "cannot create the file")
    }
  }

  func symlink(_ member: BundleMember, target: [UInt8]) throws {
    throw HealthPortError(
      .memberUnfitForFolder(
        number: member.index + 1, name: member.path,
        why: "is a symbolic link, which a folder output does not make (it could point outside it)"),
      file: inputName(input, or: finalPath))
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
    try folder.commit()
  }

  func abort() {
    guard !done else { return }
    done = true
    if file >= 0 { close(file) }
    folder.abort()
  }
}

extension String {
  /// For messages: NUL shown as `\0`.
  fileprivate var escapingNUL: String { replacing("\0", with: "\\0") }
}
