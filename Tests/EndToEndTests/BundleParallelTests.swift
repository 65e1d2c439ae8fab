import Foundation
import TestSupport
import Testing

/// Side files parsed on worker threads (``BundleSideFilePool``) against one thread: every
/// output byte, message and exit status the same, on a bundle of many routes, from a folder, a
/// zip in either member order and a zip on stdin.
@Suite("side files on worker threads: the same outputs as one thread")
struct BundleParallelTests {
  static let threadCounts = ["1", "2", "4"]

  /// The generated bundle with 40 more routes (copies of its own, unreferenced), and zips of it:
  /// `export-first.zip` (every route after export.xml) and `routes-first.zip` (every route
  /// before it). `damage` names copies (by number) to break: a `lat` that is not a number.
  static func manyRoutes(damage: [Int] = []) throws -> (folder: URL, zips: [URL]) {
    let folder = try GeneratedBundle.copy()
    let routes = folder.appendingPathComponent("workout-routes")
    let originals = try FileManager.default.contentsOfDirectory(atPath: routes.path).filter { $0.hasSuffix(".gpx") }
      .sorted()
    try #require(originals.count >= 4)
    for copy in 0..<40 {
      let source = routes.appendingPathComponent(originals[copy % originals.count])
      var text = try String(contentsOf: source, encoding: .utf8)
      if damage.contains(copy), let range = text.range(of: "lat=\"") {
        text.replaceSubrange(range, with: "lat=\"north")
      }
      try text.write(
        to: routes.appendingPathComponent("route_copy_\(copy + 10).gpx"), atomically: true, encoding: .utf8)
    }
    let top = folder.deletingLastPathComponent()
    var zips: [URL] = []
    for order in ["export-first", "routes-first"] {
      let zip = top.appendingPathComponent("\(order).zip")
      let zipped = try Harness.runTool(
        "/usr/bin/env",
        [
          "python3", "-c",
          "import sys,zipfile,os\nz=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED)\n"
            + "names=sorted(os.path.relpath(os.path.join(r,n),sys.argv[2]) for r,_,ns in os.walk(sys.argv[2]) for n in ns)\n"
            + "names.sort(key=lambda n: (n=='export.xml')==(sys.argv[3]=='routes-first'))\n"
            + "for n in names: z.write(os.path.join(sys.argv[2],n),'apple_health_export/'+n)\n",
          zip.path, folder.path, order,
        ])
      try #require(zipped.status == 0, "python3 zipfile: \(zipped.output)")
      zips.append(zip)
    }
    return (folder, zips)
  }

  /// Runs `arguments` with each thread count; expects the same status, stderr and stdout, and
  /// the same files in `output` (a folder or file the command writes, removed between runs).
  @discardableResult
  static func same(_ arguments: [String], stdin: URL? = nil, output: URL? = nil) throws -> Harness.Result {
    var first: (Harness.Result, [String: Data])?
    for threads in threadCounts {
      if let output { try? FileManager.default.removeItem(at: output) }
      let result = try Harness.run(arguments, stdin: stdin, environment: ["HEALTHPORT_THREADS": threads])
      let files = try output.map(Self.contents) ?? [:]
      guard let (one, oneFiles) = first else {
        first = (result, files)
        continue
      }
      #expect(result.status == one.status, "\(arguments), \(threads) threads: \(result.stderr)")
      #expect(
        ConcurrentReadTests.withoutTimes(result.stderr) == ConcurrentReadTests.withoutTimes(one.stderr),
        "\(arguments), \(threads) threads")
      #expect(result.stdout == one.stdout, "\(arguments), \(threads) threads: stdout differs")
      #expect(files == oneFiles, "\(arguments), \(threads) threads: \(output?.path ?? "") differs")
    }
    if let output { try? FileManager.default.removeItem(at: output) }
    return first!.0
  }

  /// Every file under `url` (or the file itself) by relative path; a database as its rows.
  static func contents(_ url: URL) throws -> [String: Data] {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { return [:] }
    if url.pathExtension == "db" { return ["rows": Data(try Harness.tableRows(url).utf8)] }
    guard isFolder.boolValue else { return ["": try Data(contentsOf: url)] }
    var files: [String: Data] = [:]
    for case let name as String in FileManager.default.enumerator(atPath: url.path)! {
      let file = url.appendingPathComponent(name)
      var folder: ObjCBool = false
      if FileManager.default.fileExists(atPath: file.path, isDirectory: &folder), !folder.boolValue {
        files[name] = try Data(contentsOf: file)
      }
    }
    return files
  }

  @Test("--split, --to jsonl, --to zip, load, routes and info: folder, zip in both orders, stdin")
  func sameOutputs() throws {
    let (folder, zips) = try Self.manyRoutes()
    let top = folder.deletingLastPathComponent()
    defer { try? FileManager.default.removeItem(at: top) }
    let expected = try BundleCount.of(folder)
    #expect(expected.routeFiles >= 46)
    let split = top.appendingPathComponent("split")
    for input in [folder] + zips + [GeneratedBundle.zip] {
      let result = try Self.same(["convert", input.path, "--to", "csv", "--split", "-o", split.path], output: split)
      #expect(result.status == 0, "\(result.stderr)")
      try Self.same(["convert", input.path, "--to", "jsonl"])
      try Self.same(["routes", input.path, "--to", "geojson"])
      let info = try Self.same(["info", input.path, "--format", "json"])
      let json = try #require(try Harness.json(info.stdout) as? [String: Any])
      let count = input == GeneratedBundle.zip ? try BundleCount.of(input) : expected
      #expect(json["routePointCount"] as? Int == count.routePoints, "\(input.path)")
    }
    let database = top.appendingPathComponent("bundle.db")
    let load = try Self.same(["load", zips[1].path, "--db", database.path, "--quiet"], output: database)
    #expect(load.status == 0, "\(load.stderr)")
    let copy = top.appendingPathComponent("copy.zip")
    try Self.same(["convert", zips[0].path, "--to", "zip", "-o", copy.path], output: copy)
    for zip in zips {
      let result = try Self.same(
        ["convert", "-", "--to", "csv", "--split", "-o", split.path], stdin: zip, output: split)
      #expect(result.status == 0, "\(result.stderr)")
      try Self.same(["info", "-", "--format", "json"], stdin: zip)
    }
  }

  @Test("damaged routes in the middle of many: the first in file order is the error; --skip-invalid skips both")
  func damagedInTheMiddle() throws {
    let (folder, zips) = try Self.manyRoutes(damage: [17, 31])
    let top = folder.deletingLastPathComponent()
    defer { try? FileManager.default.removeItem(at: top) }
    let first = "workout-routes/route_copy_27.gpx"
    let split = top.appendingPathComponent("split")
    for input in [folder] + zips {
      let failed = try Self.same(["convert", input.path, "--to", "csv", "--split", "-o", split.path], output: split)
      #expect(failed.status == 65)
      #expect(failed.stderr.contains("\(first):"), "\(failed.stderr)")
      #expect(!failed.stderr.contains("route_copy_41"), "only the first error: \(failed.stderr)")
      #expect(failed.stderr.contains("error: the <trkpt> lat 'north"), "\(failed.stderr)")
      #expect(!FileManager.default.fileExists(atPath: split.path))
      let skipped = try Self.same(["info", input.path, "--format", "json", "--skip-invalid"])
      #expect(skipped.status == 0, "\(skipped.stderr)")
      #expect(skipped.stderr.contains("\(first):") && skipped.stderr.contains("route_copy_41.gpx:"))
      let json = try #require(try Harness.json(skipped.stdout) as? [String: Any])
      let count = try BundleCount.of(folder)
      let lost =
        count.pointsByRoute["/workout-routes/route_copy_27.gpx"]! + count.pointsByRoute[
          "/workout-routes/route_copy_41.gpx"]!
      #expect(json["routePointCount"] as? Int == count.routePoints - lost)
      #expect(json["routeFileCount"] as? Int == count.routeFiles - 2)
      try Self.same(
        ["convert", input.path, "--to", "csv", "--split", "-o", split.path, "--skip-invalid"], output: split)
    }
  }
}
