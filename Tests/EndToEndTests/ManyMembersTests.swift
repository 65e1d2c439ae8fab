import Foundation
import Testing

/// A bundle of many small members costs time in proportion to their number, and memory that
/// hardly grows with it: docs/convert.md.
@Suite("Many zip members: linear time, flat memory")
struct ManyMembersTests {
  /// What each output cost on a zip of the sample export and `members` one-point GPX routes: CPU
  /// time (user and system, the kernel's count for that child alone: wall time depends on the
  /// machine's other work) and peak resident set, two threads.
  static func usage(members: Int, in directory: URL) throws -> [String: ChildUsage] {
    let zip = directory.appendingPathComponent("many-\(members).zip")
    try ManyMembersInterruptTests.zip(members: members, at: zip)
    var usage: [String: ChildUsage] = [:]
    for name in ["jsonl", "folder", "info", "routes"] {
      usage[name] = try measure(name, zip: zip)
    }
    return usage
  }

  /// One run of the command `name` of ``linearInMembers()`` on `zip`.
  static func measure(_ name: String, zip: URL) throws -> ChildUsage {
    let arguments =
      switch name {
      case "jsonl": ["convert", zip.path, "--to", "jsonl", "-o", zip.path + ".jsonl"]
      case "folder": ["convert", zip.path, "--to", "xml", "-o", zip.path + ".d/"]
      case "info": ["info", zip.path, "--format", "json"]
      default: ["routes", zip.path, "-o", zip.path + ".geojson"]
      }
    let run = try ChildUsage.measure(arguments + ["-q"])
    try #require(run.status == 0, "\(name): \(run.stderr.prefix(2000))")
    return run
  }

  /// 5,000 and 20,000 members (past the 16,384 temporary files the signal handler can track):
  /// 4× the members in at most 5× the user CPU time, for JSON Lines, the unzipped folder, `info`
  /// (which reads side files on worker threads) and `routes` (GeoJSON). JSON Lines, the folder
  /// and the routes peak under 64 MB, within 4 MB of each other: what is left to grow is
  /// libarchive's entry for each member of the zip's central directory, about 150 bytes (2.2 MB
  /// for the 15,000 more). Before, the folder output kept every member's name twice and listed
  /// the whole folder at the end, and every unreferenced route's name was kept as a string: 44
  /// and 53 MB to the folder; `routes` kept every unreferenced route's record: 38.6 and 47.7 MB.
  ///
  /// User time, not user and system: the kernel's part of writing 20,000 files into one folder
  /// depends on the file system, not on healthport. On ext4, creating a file scans the inodes
  /// freed in the last seconds (`recently_deleted` under `__ext4_new_inode`, by `perf`), so
  /// while the tests running beside this one delete their folders the folder output's system
  /// time went from 0.18 to 2.49 s for 4× the files (user 1.52 and 5.98 s; CI: 1.75 and 10.96
  /// s of both together).
  @Test("4x the GPX members: at most 5x the user CPU time, the peak under 64 MB and within 4 MB")
  func linearInMembers() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let small = try Self.usage(members: 5_000, in: directory)
    let large = try Self.usage(members: 20_000, in: directory)
    for output in ["jsonl", "folder", "info", "routes"] {
      var one = try #require(small[output])
      var four = try #require(large[output])
      // User time varies too with what else the machine runs (caches, frequency): while over,
      // the pair is measured again (at most twice) and the faster run of each size counts.
      for _ in 0..<2 where four.userSeconds > 5 * max(0.01, one.userSeconds) {
        let again = try Self.measure(output, zip: directory.appendingPathComponent("many-5000.zip"))
        let againFour = try Self.measure(output, zip: directory.appendingPathComponent("many-20000.zip"))
        one.userSeconds = min(one.userSeconds, again.userSeconds)
        four.userSeconds = min(four.userSeconds, againFour.userSeconds)
      }
      #expect(
        four.userSeconds <= 5 * max(0.01, one.userSeconds),
        """
        \(output): user \(one.userSeconds) s for 5,000 members, \(four.userSeconds) s for 20,000 \
        (user and system: \(one.cpuSeconds) and \(four.cpuSeconds) s)
        """)
      guard output != "info" else { continue }
      #expect(
        one.peakKilobytes < 64 << 10 && four.peakKilobytes < 64 << 10
          && abs(four.peakKilobytes - one.peakKilobytes) <= 4 << 10,
        "\(output): peak \(one.peakKilobytes) KB for 5,000 members, \(four.peakKilobytes) KB for 20,000")
    }
  }
}

/// A folder output interrupted past the 16,384 temporary paths the signal handler can hold:
/// the whole temporary folder goes (docs/outputs.md).
@Suite("Many zip members: interrupted folder output", .serialized)
struct ManyMembersInterruptTests {
  /// Writes a zip of the sample export and `count` one-point GPX routes to `path`.
  static let zipScript = """
    import sys, zipfile
    export, count, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    gpx = ('<?xml version="1.0" encoding="UTF-8"?>\\n<gpx version="1.1" creator="Apple Health Export">\\n'
           ' <trk>\\n  <name>Route {i}</name>\\n  <trkseg>\\n<trkpt lon="13.400000" lat="52.500000">'
           '<ele>34.000000</ele><time>2024-01-01T10:00:00Z</time></trkpt>\\n  </trkseg>\\n </trk>\\n</gpx>\\n')
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("apple_health_export/export.xml", open(export, "rb").read())
        for i in range(count):
            z.writestr(f"apple_health_export/workout-routes/route_{i:06d}.gpx", gpx.format(i=i))
    """

  static func zip(members: Int, at path: URL) throws {
    let result = try Harness.runTool(
      "/usr/bin/python3",
      ["-c", zipScript, Harness.samples.appendingPathComponent("export.xml").path, String(members), path.path])
    try #require(result.status == 0, "\(result.output)")
  }

  /// Every file below `folder` by relative path, with its bytes.
  static func files(_ folder: URL) -> [String: Data] {
    var files: [String: Data] = [:]
    guard let paths = try? FileManager.default.subpathsOfDirectory(atPath: folder.path) else { return files }
    for path in paths {
      let url = folder.appendingPathComponent(path)
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
        files[path] = (try? Data(contentsOf: url)) ?? Data()
      }
    }
    return files
  }

  /// Whether the run has written route `number` into its temporary folder (`.out.tmp-PID`); the
  /// routes are written in order.
  static func temporaryHolds(route number: Int, in work: URL) -> Bool {
    for name in InterruptTests.names(work) where InterruptTests.isTemporary(name) {
      let route = work.appendingPathComponent(name)
        .appendingPathComponent("apple_health_export/workout-routes/route_\(String(format: "%06d", number)).gpx")
      return FileManager.default.fileExists(atPath: route.path)
    }
    return false
  }

  /// 24,000 routes, the signal once more than 17,000 are written: before, the handler removed
  /// the first 16,384 paths it had registered and left the temporary folder with the rest.
  @Test("SIGTERM to --to xml -o DIR/ after 17,000 side files: nothing new beside DIR, DIR as it was")
  func interruptedPastRegisteredPaths() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let zip = directory.appendingPathComponent("many.zip")
    try Self.zip(members: 24_000, at: zip)
    let work = directory.appendingPathComponent("work")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    // An earlier run's folder, manifest and all: the interrupted run must leave it as it is.
    let earlier = try Harness.run(
      ["convert", Harness.samples.appendingPathComponent("export.zip").path, "--to", "xml", "-o", "out/", "-q"],
      in: work)
    try #require(earlier.status == 0, "\(earlier.stderr)")
    let names = InterruptTests.names(work)
    let held = Self.files(work.appendingPathComponent("out"))
    try #require(held.keys.contains(".healthport-manifest.json"))

    let run = try InterruptTests.interrupt(
      ["convert", zip.path, "--to", "xml", "-o", "out/"], in: work, with: SIGTERM, patience: 300
    ) { Self.temporaryHolds(route: 17_000, in: work) }
    #expect(run.interrupted, "the conversion ended before 17,000 routes were written")
    #expect(run.reason == .uncaughtSignal && run.status == SIGTERM, "ended with \(run.reason) \(run.status)")
    #expect(InterruptTests.names(work) == names)
    #expect(Self.files(work.appendingPathComponent("out")) == held)
  }
}

/// The manifest is written as it goes, in the bytes Foundation's `JSONSerialization` gave
/// (`.sortedKeys`, `.prettyPrinted`): `/` escaped, control characters as `\u00xx`, the rest UTF-8.
@Suite("Folder output manifest bytes")
struct ManifestBytesTests {
  @Test("--to xml -o DIR/: the manifest of odd member names is JSONSerialization's pretty, sorted JSON")
  func manifestBytes() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let script = """
      import json, sys, zipfile
      export, path = sys.argv[1], sys.argv[2]
      names = ['a"q.txt', 'tab\\there.txt', 'nl\\nx.txt', 'ctl\\x01\\x1f.txt', 'é ü/ß.txt', 'del\\x7f.txt',
               'cr\\r\\x08\\x0c.txt', 'back\\\\slash/x.txt'.replace('\\\\', '_'), 'z/y/x.txt']
      with zipfile.ZipFile(path, "w") as z:
          z.writestr("apple_health_export/export.xml", open(export, "rb").read())
          for i, name in enumerate(names):
              z.writestr("apple_health_export/" + name, "x" * i)
      """
    let zip = directory.appendingPathComponent("odd.zip")
    let made = try Harness.runTool(
      "/usr/bin/python3", ["-c", script, Harness.samples.appendingPathComponent("export.xml").path, zip.path])
    try #require(made.status == 0, "\(made.output)")
    let run = try Harness.run(["convert", zip.path, "--to", "xml", "-o", "out/", "-q"], in: directory)
    try #require(run.status == 0, "\(run.stderr)")
    let manifest = directory.appendingPathComponent("out/.healthport-manifest.json")
    // Python's rendering with JSONSerialization's separators, `/` escaped as it does.
    let render = """
      import json, sys
      manifest = json.load(open(sys.argv[1], encoding="utf-8"))
      text = json.dumps(manifest, indent=2, sort_keys=True, separators=(",", " : "), ensure_ascii=False)
      sys.stdout.write(text.replace("/", "\\\\/") + "\\n")
      """
    let expected = try Harness.runTool("/usr/bin/python3", ["-c", render, manifest.path])
    try #require(expected.status == 0, "\(expected.output)")
    let written = String(decoding: try Data(contentsOf: manifest), as: UTF8.self)
    #expect(written == expected.output)
    #expect(written.contains(#""path" : "apple_health_export\/ctl\u0001\u001f.txt""#))
  }
}
