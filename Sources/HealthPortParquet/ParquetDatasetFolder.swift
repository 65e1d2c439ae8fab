import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// The folder a dataset is written to: a ``FolderOutput``, so a run's files appear together,
/// with the folder's manifest, or not at all.
///
/// Into an existing dataset (one with a manifest), the run's files are added beside the earlier
/// ones, and only then are the same person's earlier files removed (the cohort rule: another
/// person's files are never touched, nor any file the manifest does not list). A failed run
/// leaves the folder as it was.
final class ParquetDatasetFolder {
  private let output: FolderOutput
  /// Names every file of this run: UTC time, process id and a random part.
  let runID: String
  /// `person=NAME` for a cohort member, nil for a dataset of one export.
  let personFolder: String?
  /// Each file written so far: where it is, where it goes, its registration.
  var written: [(path: String, finalPath: String, registration: TemporaryFiles.Registration?)] = []
  /// The folders this run created, so that an interruption removes them after their files.
  private var createdFolders: [TemporaryFiles.Registration] = []
  private var ended = false

  /// Prepares the run's folder; `protectedPath` (the input) may not be the target or inside it.
  init(target path: String, person: String?, protecting protectedPath: String?) throws {
    output = try FolderOutput(path: path, protecting: protectedPath, writes: .format(ParquetOutput.format.name))
    personFolder = person.map { "person=" + HivePath.escape($0) }
    runID = Self.makeRunID()
  }

  deinit { abort() }

  /// `-o DIR`.
  var target: String { output.target }
  /// True when the target holds an earlier run's dataset.
  var isExisting: Bool { output.isExisting }

  /// `error` naming the folder the user named rather than the temporary one.
  func describing(_ error: Error) -> Error { output.describing(error) }

  /// Where a file at `relative` is written during the run, and where it ends up.
  func paths(_ relative: String) -> (written: String, final: String) {
    (output.root + "/" + relative, target + "/" + relative)
  }

  /// Creates the folders of `relative` (`records/type=…/year=…/`) under the run's root.
  func makeFolders(_ relative: String, created: inout Set<String>) throws {
    var path = output.root
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

  /// Makes the run's files appear; the same person's earlier files go.
  func commit() throws {
    guard !ended else { return }
    ended = true
    defer { forget() }
    let personFolder = personFolder
    try output.commit { relative in
      let components = relative.split(separator: "/")
      if let personFolder { return components.count > 2 && components[1] == personFolder }
      return !components.contains { $0.hasPrefix("person=") }
    }
  }

  /// Removes what the run wrote; the target stays as it was.
  func abort() {
    guard !ended else { return }
    ended = true
    output.abort()
    forget()
  }

  private func forget() {
    for file in written { TemporaryFiles.unregister(file.registration) }
    TemporaryFiles.unregister(createdFolders)
  }

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
