import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The rules of every output (docs/outputs.md), driven through the built binary: no output is
/// ever an input, a folder output replaces only what its manifest lists, devices, FIFOs and
/// links stay what they are, and a failed load leaves no new database.
@Suite("outputs: nothing lost")
struct OutputRulesTests {
  static let manager = FileManager.default

  /// `Samples/export.zip` unzipped by healthport itself: `DIR/apple_health_export/…`.
  static func unzippedSample(in directory: URL, name: String = "fol") throws -> URL {
    let folder = directory.appendingPathComponent(name)
    let result = try Harness.run([
      "convert", Harness.samples.appendingPathComponent("export.zip").path, "--to", "xml", "-o", folder.path + "/",
      "--quiet",
    ])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    try? manager.removeItem(at: folder.appendingPathComponent(".healthport-manifest.json"))
    return folder
  }

  /// Every file below `folder` with its bytes, by relative path.
  static func snapshot(_ folder: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for relative in try manager.subpathsOfDirectory(atPath: folder.path) {
      let path = folder.appendingPathComponent(relative).path
      var isFolder: ObjCBool = false
      guard manager.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
      files[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
    }
    return files
  }

  /// The manifest's entries, by path, with their sizes.
  static func manifest(_ folder: URL) throws -> [String: Int] {
    let data = try Data(contentsOf: folder.appendingPathComponent(".healthport-manifest.json"))
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let files = try #require(object["files"] as? [[String: Any]])
    #expect(object["healthport"] as? String != nil)
    return Dictionary(uniqueKeysWithValues: files.map { ($0["path"] as! String, $0["bytes"] as! Int) })
  }

  // MARK: The input is never written

  @Test("-o naming a file the command reads, in a folder, beside an export.xml or in a split folder, is refused (64)")
  func outputIsInput() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? Self.manager.removeItem(at: directory) }
    let folder = try Self.unzippedSample(in: directory)
    let export = folder.appendingPathComponent("apple_health_export/export.xml")
    let routes = folder.appendingPathComponent("apple_health_export/workout-routes")
    let route = try #require(try Self.manager.contentsOfDirectory(atPath: routes.path).sorted().first)
    let split = directory.appendingPathComponent("split")
    #expect(try Harness.run(["convert", folder.path, "--to", "csv", "--split", "-o", split.path, "-q"]).status == 0)
    let hardLink = directory.appendingPathComponent("hard-link.xml")
    #expect(link(export.path, hardLink.path) == 0)
    // Other spellings of the paths read: a symbolic link to a route, one to the export's folder,
    // and `..` (a route has one link, so only its real path can find it).
    let symbolicLink = directory.appendingPathComponent("link.gpx")
    try Self.manager.createSymbolicLink(
      atPath: symbolicLink.path, withDestinationPath: routes.appendingPathComponent(route).path)
    let linkedFolder = directory.appendingPathComponent("linked")
    try Self.manager.createSymbolicLink(
      atPath: linkedFolder.path, withDestinationPath: folder.appendingPathComponent("apple_health_export").path)
    let before = try Self.snapshot(folder)
    let splitBefore = try Self.snapshot(split)

    let refused: [[String]] = [
      ["convert", folder.path, "--type", "StepCount", "--to", "xml", "-o", export.path],
      ["convert", folder.path, "--to", "zip", "-o", routes.appendingPathComponent(route).path],
      ["convert", export.path, "--to", "jsonl", "-o", routes.appendingPathComponent(route).path],
      ["convert", split.path, "--to", "jsonl", "-o", split.appendingPathComponent("StepCount.csv").path],
      ["convert", export.path, "--to", "csv", "-o", hardLink.path],
      [
        "convert", folder.path, "--to", "csv", "--split", "-o",
        folder.appendingPathComponent("apple_health_export").path,
      ],
      ["convert", folder.path, "--to", "zip", "-o", folder.appendingPathComponent("apple_health_export/new.zip").path],
      ["steps", export.path, "-o", export.path],
      ["load", folder.path, "--db", export.path],
      ["convert", folder.path, "--to", "jsonl", "-o", symbolicLink.path],
      ["convert", folder.path, "--to", "zip", "-o", linkedFolder.appendingPathComponent("new.zip").path],
      [
        "convert", folder.path, "--to", "jsonl", "-o",
        folder.path + "/apple_health_export/../apple_health_export/workout-routes/" + route,
      ],
    ]
    for arguments in refused {
      let result = try Harness.run(arguments + ["--quiet"])
      #expect(result.status == 64, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains("that this command reads"), "\(arguments): \(result.stderr)")
    }
    #expect(try Self.snapshot(folder) == before)
    #expect(try Self.snapshot(split) == splitBefore)

    // A new path inside an input folder that the command does not read is allowed, twice.
    let records = folder.appendingPathComponent("records.csv")
    for _ in 0..<2 {
      let allowed = try Harness.run(["convert", folder.path, "--to", "csv", "-o", records.path, "--quiet"])
      #expect(allowed.status == 0, "stderr: \(allowed.stderr)")
    }
    #expect(try Self.snapshot(folder).filter { $0.key != "records.csv" } == before)
  }

  // MARK: Folders and their manifest

  @Test("--split into a folder without a manifest is refused (1) and nothing in it is touched")
  func splitRefusesForeignFolder() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? Self.manager.removeItem(at: directory) }
    let target = directory.appendingPathComponent("mine")
    try Self.manager.createDirectory(at: target.appendingPathComponent("photos"), withIntermediateDirectories: true)
    try Data("thesis".utf8).write(to: target.appendingPathComponent("thesis.docx"))
    try Data("a,b\n".utf8).write(to: target.appendingPathComponent("export.csv"))
    try Data("jpeg".utf8).write(to: target.appendingPathComponent("photos/p.jpg"))
    let before = try Self.snapshot(target)
    let result = try Harness.run([
      "convert", Harness.samples.appendingPathComponent("export.zip").path, "--to", "csv", "--split", "-o",
      target.path, "--quiet",
    ])
    #expect(result.status == 1, "stderr: \(result.stderr)")
    #expect(result.stderr.contains("remove or rename it"), "stderr: \(result.stderr)")
    #expect(try Self.snapshot(target) == before)
    #expect(try Self.manager.contentsOfDirectory(atPath: directory.path) == ["mine"], "no temporary folder left")
  }

  @Test("--split again replaces only the files its manifest lists; a user's file stays")
  func splitReplacesListedFiles() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? Self.manager.removeItem(at: directory) }
    let input = Harness.samples.appendingPathComponent("export.zip").path
    let target = directory.appendingPathComponent("tables")
    #expect(try Harness.run(["convert", input, "--to", "csv", "--split", "-o", target.path, "-q"]).status == 0)
    let first = try Self.manifest(target)
    let files = try Self.snapshot(target).filter { $0.key != ".healthport-manifest.json" }
    #expect(first == files.mapValues(\.count), "the manifest lists every file with its size")
    #expect(first.count > 5)
    try Data("mine".utf8).write(to: target.appendingPathComponent("notes.txt"))

    let again = try Harness.run(["convert", input, "--type", "StepCount", "--to", "csv", "--split", "-o", target.path])
    #expect(again.status == 0, "stderr: \(again.stderr)")
    let second = try Self.manifest(target)
    let now = try Self.snapshot(target)
    #expect(Set(second.keys) == ["export.csv", "StepCount.csv", "me.csv"])
    #expect(now["notes.txt"] == Data("mine".utf8))
    #expect(Set(now.keys) == Set(second.keys).union(["notes.txt", ".healthport-manifest.json"]))
    #expect(second == now.filter { second[$0.key] != nil }.mapValues(\.count))
    // The folder reads back as what was written.
    let info = try Harness.run(["info", target.path, "--format", "json"])
    #expect(info.status == 0, "stderr: \(info.stderr)")
  }

  @Test("--to parquet into a dataset keeps files its manifest does not list")
  func parquetKeepsForeignFiles() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? Self.manager.removeItem(at: directory) }
    let input = Harness.samples.appendingPathComponent("export.zip").path
    let dataset = directory.appendingPathComponent("dataset")
    #expect(try Harness.run(["convert", input, "--to", "parquet", "-o", dataset.path, "-q"]).status == 0)
    let first = try Self.manifest(dataset)
    #expect(first.keys.contains { $0.hasPrefix("workouts/") })
    try Data("mine".utf8).write(to: dataset.appendingPathComponent("mine.parquet"))
    try Data("other".utf8).write(to: dataset.appendingPathComponent("records/other.parquet"))
    try Data("x".utf8).write(to: dataset.appendingPathComponent("workouts/x.parquet"))

    let again = try Harness.run(["convert", input, "--type", "StepCount", "--to", "parquet", "-o", dataset.path])
    #expect(again.status == 0, "stderr: \(again.stderr)")
    let second = try Self.manifest(dataset)
    let now = try Self.snapshot(dataset)
    #expect(now["mine.parquet"] == Data("mine".utf8))
    #expect(now["records/other.parquet"] == Data("other".utf8))
    #expect(now["workouts/x.parquet"] == Data("x".utf8))
    #expect(!second.keys.contains { $0.hasPrefix("workouts/") }, "this run wrote no workouts: the earlier ones went")
    #expect(Set(first.keys).isDisjoint(with: second.keys), "every earlier file of this person was replaced")
    for (path, bytes) in second { #expect(now[path]?.count == bytes, "\(path)") }
  }

  @Test("a failed run into a folder healthport wrote before leaves every file there as it was")
  func failedRunKeepsFolder() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? Self.manager.removeItem(at: directory) }
    let sample = Harness.samples.appendingPathComponent("export.zip").path
    // The sample's export cut in the middle of a Record, with the routes beside it: every reader
    // stops at the cut (exit 65), after some of each output was written.
    let folder = try Self.unzippedSample(in: directory, name: "cut")
    let export = folder.appendingPathComponent("apple_health_export/export.xml")
    let whole = try Data(contentsOf: export)
    try whole.prefix(whole.count * 2 / 3).write(to: export)
    for (arguments, target) in [
      (["convert", "--to", "csv", "--split", "-o"], "tables"),
      (["convert", "--to", "parquet", "-o"], "dataset"),
      (["convert", "--to", "xml", "-o"], "unzipped/"),
      (["routes", "--to", "gpx", "--per-workout", "-o"], "routes"),
    ] {
      let out = directory.appendingPathComponent(target)
      let path = out.path + (target.hasSuffix("/") ? "/" : "")
      let first = try Harness.run([arguments[0], sample] + arguments.dropFirst() + [path, "-q"])
      #expect(first.status == 0, "\(arguments): \(first.stderr)")
      try Data("mine".utf8).write(to: out.appendingPathComponent("notes.txt"))
      let before = try Self.snapshot(out)
      #expect(before.count > 2, "\(arguments)")

      let failed = try Harness.run([arguments[0], folder.path] + arguments.dropFirst() + [path, "-q"])
      #expect(failed.status == 65, "\(arguments): \(failed.stderr)")
      #expect(try Self.snapshot(out) == before, "\(arguments): what \(target) held is kept")
      #expect(
        try Self.manager.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.contains(".tmp-") },
        "\(arguments): no temporary folder left")
    }
  }

  // MARK: Devices, FIFOs, links, stdout

  @Test("-o on a character device or FIFO writes in place, a link is followed, - is stdout")
  func specialTargets() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? Self.manager.removeItem(at: directory) }
    let input = Harness.samples.appendingPathComponent("export.xml").path
    let expected = try Harness.run(["convert", input, "--type", "StepCount", "--to", "csv"]).stdout
    #expect(expected.count > 1000)

    // `/dev/stdout` only when a regression could not replace it (as root it could: the library
    // test of FileOutput checks that name in-process).
    for path in getuid() == 0 ? ["-"] : ["-", "/dev/stdout"] {
      let result = try Harness.run(["convert", input, "--type", "StepCount", "--to", "csv", "-o", path, "-q"])
      #expect(result.status == 0, "stderr: \(result.stderr)")
      #expect(result.stdout == expected, "-o \(path) is stdout")
    }
    // A character device of the test's own when it may make one (a node like /dev/null's), so that
    // a regression replaces that node, never the system's /dev/null.
    let node = directory.appendingPathComponent("null")
    let nullDevice = dev_t(1 << 8 | 3)  // makedev(1, 3), as glibc encodes it
    let device = mknod(node.path, S_IFCHR | 0o666, nullDevice) == 0 ? node.path : "/dev/null"
    let null = try Harness.run(["convert", input, "--to", "csv", "-o", device, "-q"])
    #expect(null.status == 0, "stderr: \(null.stderr)")
    var info = stat()
    #expect(lstat(device, &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR, "\(device) is still a device")
    try? Self.manager.removeItem(atPath: node.path)

    let fifo = directory.appendingPathComponent("pipe")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    let copy = directory.appendingPathComponent("from-pipe.csv")
    let reader = Process()
    reader.executableURL = URL(fileURLWithPath: "/bin/sh")
    reader.arguments = ["-c", "cat \"$0\" > \"$1\"", fifo.path, copy.path]
    try reader.run()
    let written = try Harness.run(["convert", input, "--type", "StepCount", "--to", "csv", "-o", fifo.path, "-q"])
    // A FIFO replaced by a file never gets a writer: its reader would wait forever.
    let deadline = Date().addingTimeInterval(20)
    while reader.isRunning, Date() < deadline { usleep(10_000) }
    if reader.isRunning { reader.terminate() }
    reader.waitUntilExit()
    #expect(written.status == 0, "stderr: \(written.stderr)")
    #expect(try Data(contentsOf: copy) == expected, "the FIFO's reader got the output")
    #expect(lstat(fifo.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO, "the FIFO is still a FIFO")

    let real = directory.appendingPathComponent("real.csv")
    try Data("old".utf8).write(to: real)
    let link = directory.appendingPathComponent("link.csv")
    try Self.manager.createSymbolicLink(atPath: link.path, withDestinationPath: "real.csv")
    let dangling = directory.appendingPathComponent("dangling.csv")
    try Self.manager.createSymbolicLink(atPath: dangling.path, withDestinationPath: "new.csv")
    for path in [link, dangling] {
      let result = try Harness.run(["convert", input, "--type", "StepCount", "--to", "csv", "-o", path.path, "-q"])
      #expect(result.status == 0, "stderr: \(result.stderr)")
      #expect(lstat(path.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK, "\(path.lastPathComponent) is a link")
    }
    #expect(try Data(contentsOf: real) == expected)
    #expect(try Data(contentsOf: directory.appendingPathComponent("new.csv")) == expected)
    #expect(try Self.manager.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.contains(".tmp-") })
  }

  @Test("-o /dev/stdout writes to standard output (here a file the shell appends to), never replacing either")
  func devStdout() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? Self.manager.removeItem(at: directory) }
    let input = Harness.samples.appendingPathComponent("export.xml").path
    let expected = try Harness.run(["convert", input, "--type", "StepCount", "--to", "csv"]).stdout
    #expect(expected.count > 1000)
    let out = directory.appendingPathComponent("out.txt")
    try Data("kept\n".utf8).write(to: out)
    // healthport's stdout is `>> out.txt`: writing through it appends; a regression that followed
    // the link to out.txt and renamed a new file over it would lose `kept`.
    let command = """
      "$0" convert "$1" --type StepCount --to csv -o /dev/stdout -q >> "$2"; status=$?
      [ -L /dev/stdout ] || { echo "/dev/stdout is no longer a link" >&2; exit 99; }
      exit $status
      """
    let result: Harness.Result
    if getuid() == 0 {
      // As root such a regression would replace the system's /dev/stdout: here it is a link of
      // a /dev of the test's own, in a mount namespace of its own.
      let isolated = "mount -t tmpfs tmpfs /dev && ln -s /proc/self/fd/1 /dev/stdout || exit 98\n" + command
      result = try Harness.run(
        ["-m", "--propagation", "private", "/bin/sh", "-c", isolated, Harness.binary.path, input, out.path],
        executable: URL(fileURLWithPath: "/usr/bin/unshare"))
      if result.status == 98 || result.stderr.contains("unshare failed") {
        print("skipped: this machine lets the test make no mount namespace: \(result.stderr)")
        return
      }
    } else {
      result = try Harness.run(
        ["-c", command, Harness.binary.path, input, out.path], executable: URL(fileURLWithPath: "/bin/sh"))
    }
    #expect(result.status == 0, "stderr: \(result.stderr)")
    #expect(try Data(contentsOf: out) == Data("kept\n".utf8) + expected, "the output was appended to stdout's file")
    #expect(try Self.manager.contentsOfDirectory(atPath: directory.path) == ["out.txt"], "no temporary file left")
  }

  @Test("-o on a folder or a block device is refused (64) and left as it was; a replaced file keeps its mode")
  func refusedTargetsAndMode() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? Self.manager.removeItem(at: directory) }
    let input = Harness.samples.appendingPathComponent("export.xml").path
    let folder = directory.appendingPathComponent("out")
    try Self.manager.createDirectory(at: folder, withIntermediateDirectories: false)
    try Data("mine".utf8).write(to: folder.appendingPathComponent("notes.txt"))
    var targets = [(folder.path, "is a folder")]
    // A block device node of the test's own, of a number no driver has (240 is for local use),
    // so that nothing could ever be written to a disk through it.
    let node = directory.appendingPathComponent("disk").path
    if mknod(node, S_IFBLK | 0o600, dev_t(240 << 8)) == 0 {
      targets.append((node, "is a block device"))
    } else {
      print("no block device node: this machine lets the test make none (\(String(cString: strerror(errno))))")
    }
    for (target, what) in targets {
      let result = try Harness.run(["convert", input, "--to", "csv", "-o", target, "-q"])
      #expect(result.status == 64, "\(target): \(result.stderr)")
      #expect(result.stderr.contains("\(target): error: \(what)"), "\(target): \(result.stderr)")
    }
    var info = stat()
    #expect(try Self.manager.contentsOfDirectory(atPath: folder.path) == ["notes.txt"])
    if targets.count > 1 { #expect(lstat(node, &info) == 0 && (info.st_mode & S_IFMT) == S_IFBLK, "still a device") }

    // A file replaced by the rename keeps the old file's permissions.
    let old = directory.appendingPathComponent("old.csv")
    try Data("old".utf8).write(to: old)
    #expect(chmod(old.path, 0o640) == 0)
    let written = try Harness.run(["convert", input, "--to", "csv", "-o", old.path, "-q"])
    #expect(written.status == 0, "stderr: \(written.stderr)")
    #expect(
      stat(old.path, &info) == 0 && info.st_mode & 0o7777 == 0o640, "mode \(String(info.st_mode & 0o7777, radix: 8))")
    #expect(try Data(contentsOf: old).count > 1000)
  }

  // MARK: Databases

  @Test("a damaged input leaves no new database (unless --keep-partial); an existing one keeps its whole elements")
  func damagedInputDatabase() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? Self.manager.removeItem(at: directory) }
    let whole = try Data(contentsOf: Harness.samples.appendingPathComponent("export.xml"))
    let cut = directory.appendingPathComponent("cut.xml")
    try whole.prefix(whole.count / 2).write(to: cut)
    for arguments in [["load", cut.path, "--db"], ["convert", cut.path, "--to", "sqlite", "-o"]] {
      let database = directory.appendingPathComponent("new-\(arguments[0]).db")
      let result = try Harness.run(arguments + [database.path, "--quiet"])
      #expect(result.status == 65, "stderr: \(result.stderr)")
      #expect(try Self.manager.contentsOfDirectory(atPath: directory.path) == ["cut.xml"], "nothing at \(database)")

      let kept = directory.appendingPathComponent("kept-\(arguments[0]).db")
      let keeping = try Harness.run(arguments + [kept.path, "--keep-partial", "--quiet"])
      #expect(keeping.status == 65, "stderr: \(keeping.stderr)")
      let rows = try SQLiteExpectations.actual(kept.path)
      #expect(((rows["tables"] as? [String: Int])?["records"] ?? 0) > 0)
      #expect((rows["exports"] as? [[Any]])?.map { $0[1] as? Int } == [0])
      try Self.manager.removeItem(at: kept)
    }
    // An existing database keeps every whole element before the damage, marked incomplete.
    let existing = directory.appendingPathComponent("existing.db")
    #expect(
      try Harness.run(["load", Harness.samples.appendingPathComponent("export.zip").path, "--db", existing.path, "-q"])
        .status == 0)
    #expect(try Harness.run(["load", cut.path, "--db", existing.path, "-q"]).status == 65)
    let rows = try SQLiteExpectations.actual(existing.path)
    #expect((rows["exports"] as? [[Any]])?.map { $0[1] as? Int } == [1, 0])
  }

  /// A folder the test may make read-only: by its mode for a user, by a read-only tmpfs mount for
  /// root (whom modes do not stop); nil when neither is possible here.
  static func readOnlyFolder(holding file: URL, in directory: URL) -> (folder: URL, undo: () -> Void)? {
    let folder = directory.appendingPathComponent("readonly")
    try? manager.createDirectory(at: folder, withIntermediateDirectories: true)
    if getuid() != 0 {
      try? manager.copyItem(at: file, to: folder.appendingPathComponent(file.lastPathComponent))
      chmod(folder.path, 0o555)
      chmod(folder.appendingPathComponent(file.lastPathComponent).path, 0o444)
      return (folder, { chmod(folder.path, 0o755) })
    }
    func mount(_ arguments: [String]) -> Bool { (try? Harness.runTool("/bin/mount", arguments).status) == 0 }
    guard mount(["-t", "tmpfs", "-o", "size=8m", "tmpfs", folder.path]) else { return nil }
    try? manager.copyItem(at: file, to: folder.appendingPathComponent(file.lastPathComponent))
    guard mount(["-o", "remount,ro", folder.path]) else {
      _ = try? Harness.runTool("/bin/umount", [folder.path])
      return nil
    }
    return (folder, { _ = try? Harness.runTool("/bin/umount", [folder.path]) })
  }

  @Test("a read-only database is refused with what is read-only, and left as it was")
  func readOnlyDatabase() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? Self.manager.removeItem(at: directory) }
    let sample = Harness.samples.appendingPathComponent("export.zip").path
    let database = directory.appendingPathComponent("health.db")
    #expect(try Harness.run(["load", sample, "--db", database.path, "-q"]).status == 0)
    guard let (folder, undo) = Self.readOnlyFolder(holding: database, in: directory) else {
      print("skipped: this machine lets the test make no read-only folder (root without mount)")
      return
    }
    defer { undo() }
    let locked = folder.appendingPathComponent("health.db")
    let before = try Data(contentsOf: locked)
    let result = try Harness.run([
      "load", Harness.samples.appendingPathComponent("export.xml").path, "--db", locked.path,
    ])
    #expect(result.status == 1, "stderr: \(result.stderr)")
    #expect(
      result.stderr.contains("\(locked.path): error: cannot write the database: it, or its folder, is read-only"),
      "stderr: \(result.stderr)")
    #expect(!result.stderr.contains("PRAGMA") && !result.stderr.contains("damaged"), "stderr: \(result.stderr)")
    #expect(try Data(contentsOf: locked) == before)
  }

  @Test("--db file:x.db is the file file:x.db, not a SQLite URI")
  func fileColonPath() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? Self.manager.removeItem(at: directory) }
    let input = Harness.samples.appendingPathComponent("export.zip").path
    for _ in 0..<2 {
      let result = try Harness.run(["load", input, "--db", "file:x.db", "--quiet"], in: directory)
      #expect(result.status == 0, "stderr: \(result.stderr)")
    }
    #expect(
      try Self.manager.contentsOfDirectory(atPath: directory.path).filter {
        !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
      } == ["file:x.db"])
    let rows = try SQLiteExpectations.actual(directory.appendingPathComponent("file:x.db").path)
    #expect(((rows["tables"] as? [String: Int])?["records"] ?? 0) > 0)
  }

  @Test("a damaged database is refused before anything is loaded into it, and left as it was")
  func damagedDatabase() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? Self.manager.removeItem(at: directory) }
    let database = directory.appendingPathComponent("health.db")
    let sample = Harness.samples.appendingPathComponent("export.zip").path
    #expect(try Harness.run(["load", sample, "--db", database.path, "-q"]).status == 0)
    // Overwrite 4 KiB of one page after another, from the middle on, until SQLite's own
    // integrity check (run by Python, not healthport) fails.
    let damage = """
      import random, sqlite3, sys
      path = sys.argv[1]
      random.seed(7)
      size = 16384
      with open(path, "rb") as f:
          pages = len(f.read()) // size
      for page in range(pages // 2, pages):
          with open(path, "r+b") as f:
              f.seek(page * size + 64)
              f.write(bytes(random.getrandbits(8) for _ in range(4096)))
          db = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
          try:
              ok = db.execute("pragma integrity_check").fetchone()[0] == "ok"
          except sqlite3.DatabaseError:
              ok = False
          db.close()
          if not ok:
              print("damaged page", page)
              sys.exit(0)
      sys.exit(1)
      """
    let damaged = try Harness.runTool("/usr/bin/python3", ["-c", damage, database.path])
    #expect(damaged.status == 0, "\(damaged.output)")
    let before = try Data(contentsOf: database)
    let other = directory.appendingPathComponent("other.xml")
    try Data(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <HealthData locale="en_US">
       <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" unit="count" creationDate="2025-01-01 10:00:00 +0000" startDate="2025-01-01 09:00:00 +0000" endDate="2025-01-01 10:00:00 +0000" value="100"/>
      </HealthData>

      """.utf8
    ).write(to: other)
    for _ in 0..<2 {
      let result = try Harness.run(["load", other.path, "--db", database.path, "-q"])
      #expect(result.status == 1, "stderr: \(result.stderr)")
      #expect(result.stderr.contains("the database is damaged"), "stderr: \(result.stderr)")
      #expect(!result.stderr.contains("INSERT"), "stderr: \(result.stderr)")
    }
    #expect(try Data(contentsOf: database) == before, "the damaged database is left as it was")
  }

  @Test("two loads that begin a new database at once both end in it, as one after the other would")
  func concurrentNewDatabase() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? Self.manager.removeItem(at: directory) }
    let big = directory.appendingPathComponent("big.xml").path
    try LoadTests.generate(records: 20_000, to: big)
    let small = Harness.samples.appendingPathComponent("export.xml").path
    let together = directory.appendingPathComponent("together.db").path
    let processes = try [big, small].map { input in
      let process = Process()
      process.executableURL = Harness.binary
      process.arguments = ["load", input, "--db", together, "--quiet"]
      let errors = Pipe()
      process.standardError = errors
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      return (process, errors)
    }
    for (process, errors) in processes {
      let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      #expect(process.terminationStatus == 0, "stderr: \(stderr)")
    }
    let sequential = directory.appendingPathComponent("sequential.db").path
    for input in [big, small] { #expect(try LoadTests.load([input], db: sequential).status == 0) }
    let want = try SQLiteExpectations.actual(sequential)
    let got = try SQLiteExpectations.actual(together)
    #expect(got["tables"] as? [String: Int] == want["tables"] as? [String: Int])
    #expect((got["exports"] as? [[Any]])?.count == 2)
  }

  @Test("members a folder cannot hold (two of one name, a NUL in a name) are refused, not overwritten or cut")
  func membersAFolderCannotHold() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? Self.manager.removeItem(at: directory) }
    let zip = directory.appendingPathComponent("twice.zip")
    let script = """
      import sys, warnings, zipfile
      warnings.simplefilter("ignore")  # zipfile warns of the duplicate name, and writes it
      with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
          z.writestr("apple_health_export/export.xml", open(sys.argv[1], "rb").read())
          z.writestr("apple_health_export/notes.txt", b"first")
          z.writestr("apple_health_export/notes.txt", b"second")
      """
    let made = try Harness.runTool(
      "/usr/bin/python3", ["-c", script, Harness.samples.appendingPathComponent("export.xml").path, zip.path])
    #expect(made.status == 0, "\(made.output)")
    let folder = try Harness.run(["convert", zip.path, "--to", "xml", "-o", directory.path + "/out/", "-q"])
    #expect(folder.status == 65, "stderr: \(folder.stderr)")
    #expect(folder.stderr.contains("two members named 'apple_health_export/notes.txt'"), "stderr: \(folder.stderr)")
    #expect(!Self.manager.fileExists(atPath: directory.path + "/out"))
    // A zip keeps both, as they were.
    let copy = directory.appendingPathComponent("copy.zip")
    #expect(try Harness.run(["convert", zip.path, "--to", "zip", "-o", copy.path, "-q"]).status == 0)
    let same = try Harness.runTool("/usr/bin/python3", [BundleRoundTripTests.compare, zip.path, copy.path, "--order"])
    #expect(same.status == 0 && same.output.contains(" 0 difference(s)"), "\(same.output)")

    // A NUL in a JSON Lines member path is a read error, not a name cut short.
    let jsonl = directory.appendingPathComponent("twice.jsonl")
    #expect(try Harness.run(["convert", zip.path, "--to", "jsonl", "-o", jsonl.path, "-q"]).status == 0)
    let text = try String(contentsOf: jsonl, encoding: .utf8)
    let line = try #require(
      text.split(separator: "\n").firstIndex { $0.contains("\"path\":\"apple_health_export/notes.txt\"") })
    try text.replacingOccurrences(
      of: "\"path\":\"apple_health_export/notes.txt\"", with: "\"path\":\"apple_health_export/no\\u0000tes.txt\""
    )
    .write(to: jsonl, atomically: true, encoding: .utf8)
    let read = try Harness.run([
      "convert", jsonl.path, "--to", "zip", "-o", directory.appendingPathComponent("back.zip").path,
    ])
    #expect(read.status == 65, "stderr: \(read.stderr)")
    #expect(read.stderr.contains("\(jsonl.path):\(line + 1):1: error:"), "stderr: \(read.stderr)")
    #expect(read.stderr.contains("holds a NUL"), "stderr: \(read.stderr)")
  }

  // MARK: Escape

  @Test("routes --per-workout keeps a crafted activity's name inside the folder, which appears whole")
  func routesStayInside() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? Self.manager.removeItem(at: directory) }
    let folder = try Self.unzippedSample(in: directory)
    let export = folder.appendingPathComponent("apple_health_export/export.xml")
    var text = try String(contentsOf: export, encoding: .utf8)
    text = text.replacingOccurrences(
      of: "workoutActivityType=\"HKWorkoutActivityType",
      with: "workoutActivityType=\"HKWorkoutActivityType../../../ESC_R1/")
    try text.write(to: export, atomically: true, encoding: .utf8)
    let out = directory.appendingPathComponent("routes")
    for _ in 0..<2 {
      let result = try Harness.run(["routes", folder.path, "--to", "gpx", "--per-workout", "-o", out.path, "-q"])
      #expect(result.status == 0, "stderr: \(result.stderr)")
    }
    let names = try Self.manager.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".gpx") }
    #expect(names.count == 2, "\(names)")
    #expect(names.allSatisfy { !$0.contains("/") && $0.contains("ESC_R1") })
    #expect(Set(try Self.manifest(out).keys) == Set(names))
    let escaped = try Self.manager.subpathsOfDirectory(atPath: directory.path).filter { $0.contains("ESC_R1") }
    #expect(escaped.allSatisfy { $0.hasPrefix("routes/") }, "\(escaped)")
  }

  @Test("terminal escape sequences from an export's names are shown as \\x1b in tables and messages")
  func terminalEscapes() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? Self.manager.removeItem(at: directory) }
    let jsonl = directory.appendingPathComponent("export.jsonl")
    let converted = try Harness.run([
      "convert", Harness.samples.appendingPathComponent("export.zip").path, "--to", "jsonl", "-o", jsonl.path, "-q",
    ])
    #expect(converted.status == 0, "stderr: \(converted.stderr)")
    var text = try String(contentsOf: jsonl, encoding: .utf8)
    text = text.replacingOccurrences(
      of: "HKQuantityTypeIdentifierStepCount", with: "HKQuantityTypeIdentifierStep\\u001b[2JCount")
    text = text.replacingOccurrences(
      of: "\"workoutActivityType\":\"HKWorkoutActivityType",
      with: "\"workoutActivityType\":\"HKWorkoutActivityType\\u001b]0;owned\\u0007")
    text = text.replacingOccurrences(of: "Apple Watch\"", with: "Apple Watch\\u001b[31m\"")
    try text.write(to: jsonl, atomically: true, encoding: .utf8)
    let escape = UInt8(0x1B)
    for arguments in [
      ["info", jsonl.path], ["workouts", jsonl.path], ["steps", jsonl.path, "--source", "Apple Watc"],
      ["sleep", jsonl.path, "--source", "Mikian’s Apple Wtch"],
    ] {
      let result = try Harness.run(arguments)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      #expect(!result.stdout.contains(escape), "\(arguments): an escape byte reached stdout")
      #expect(!Data(result.stderr.utf8).contains(escape), "\(arguments): an escape byte reached stderr")
    }
    let info = try Harness.run(["info", jsonl.path]).stdoutText
    #expect(info.contains("HKQuantityTypeIdentifierStep\\x1b[2JCount"), "\(info)")
    #expect(info.contains("\\x1b]0;owned\\x07"), "\(info)")
    #expect(info.contains("Apple Watch\\x1b[31m"), "\(info)")
    let workouts = try Harness.run(["workouts", jsonl.path]).stdoutText
    #expect(workouts.contains("\\x1b]0;owned\\x07Running"), "\(workouts)")
    #expect(workouts.contains("Apple Watch\\x1b[31m"), "\(workouts)")
    // The "did you mean" of a source that matches none, and the sources it lists, escaped.
    let hint = try Harness.run(["sleep", jsonl.path, "--source", "Mikian’s Apple Wtch"]).stderr
    #expect(hint.contains("did you mean 'Mikian’s Apple Watch\\x1b[31m'?"), "\(hint)")
    // Data outputs keep the names as they are.
    let csv = try Harness.run(["convert", jsonl.path, "--to", "csv"])
    #expect(csv.stdout.contains(escape))
  }
}
