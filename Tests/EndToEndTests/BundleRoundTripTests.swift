import Foundation
import TestSupport
import Testing

/// `convert --to zip`, `--to xml -o DIR/` and the lossless JSON Lines of a bundle: every member
/// comes back byte for byte, checked apart from healthport by Python's `zipfile`
/// (`Tests/Clients/compare_bundles.py`).
@Suite("the bundle back out, byte for byte")
struct BundleRoundTripTests {
  static let compare = Harness.repoRoot.appendingPathComponent("Tests/Clients/compare_bundles.py").path

  /// Compares two bundles with Python; `order` compares the zip members' order too.
  static func expectSame(_ a: URL, _ b: URL, order: Bool = false, sourceLocation: SourceLocation = #_sourceLocation)
    throws
  {
    let result = try Harness.runTool("/usr/bin/python3", [compare, a.path, b.path] + (order ? ["--order"] : []))
    #expect(result.status == 0, "\(result.output)", sourceLocation: sourceLocation)
    #expect(result.output.contains(" 0 difference(s)"), "\(result.output)", sourceLocation: sourceLocation)
  }

  static func convert(_ input: URL, _ format: String, _ output: URL, stdin: URL? = nil, slash: Bool = false) throws {
    let result = try Harness.run(
      ["convert", stdin == nil ? input.path : "-", "--to", format, "-o", output.path + (slash ? "/" : ""), "--quiet"],
      stdin: stdin)
    #expect(result.status == 0, "stderr: \(result.stderr)")
  }

  /// The generated zip again with export.xml first (it holds half the routes before it).
  static func exportFirst(_ zip: URL, in directory: URL) throws -> URL {
    let target = directory.appendingPathComponent("export-first.zip")
    let script = """
      import sys, zipfile
      source = zipfile.ZipFile(sys.argv[1])
      infos = sorted(source.infolist(), key=lambda i: not i.filename.endswith("export.xml"))
      with zipfile.ZipFile(sys.argv[2], "w") as out:
          for info in infos:
              out.writestr(info, source.read(info), compress_type=zipfile.ZIP_DEFLATED)
      """
    let result = try Harness.runTool("/usr/bin/python3", ["-c", script, zip.path, target.path])
    #expect(result.status == 0, "\(result.output)")
    return target
  }

  @Test("generated bundle: zip in both member orders, folder and stdin, zip → zip and zip → jsonl → zip")
  func generated() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let zip = GeneratedBundle.zip
    let first = try Self.exportFirst(zip, in: directory)
    for (index, source) in [zip, first].enumerated() {
      let copy = directory.appendingPathComponent("copy-\(index).zip")
      try Self.convert(source, "zip", copy)
      try Self.expectSame(source, copy, order: true)
      let jsonl = directory.appendingPathComponent("copy-\(index).jsonl")
      let back = directory.appendingPathComponent("back-\(index).zip")
      try Self.convert(source, "jsonl", jsonl)
      try Self.convert(jsonl, "zip", back)
      try Self.expectSame(source, back, order: true)
    }
    let fromStdin = directory.appendingPathComponent("stdin.zip")
    try Self.convert(zip, "zip", fromStdin, stdin: zip)
    try Self.expectSame(zip, fromStdin, order: true)
    let fromFolder = directory.appendingPathComponent("folder.zip")
    try Self.convert(GeneratedBundle.exportFolder, "zip", fromFolder)
    try Self.expectSame(zip, fromFolder)
  }

  @Test("--to xml -o DIR/ writes the unzipped layout, from a zip and from JSON Lines")
  func folderLayout() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let out = directory.appendingPathComponent("unzipped")
    try Self.convert(GeneratedBundle.zip, "xml", out, slash: true)
    try Self.expectSame(GeneratedBundle.zip, out)
    let jsonl = directory.appendingPathComponent("bundle.jsonl")
    try Self.convert(GeneratedBundle.zip, "jsonl", jsonl)
    let again = directory.appendingPathComponent("again")
    try FileManager.default.createDirectory(at: again, withIntermediateDirectories: false)
    try Self.convert(jsonl, "xml", again)
    try Self.expectSame(GeneratedBundle.zip, again)
    // A folder healthport wrote (its manifest says so) is written again in place.
    try Self.convert(jsonl, "xml", again, slash: true)
    try Self.expectSame(GeneratedBundle.zip, again)
    // Its zip holds the members only, not the manifest.
    let zipped = directory.appendingPathComponent("again.zip")
    try Self.convert(again, "zip", zipped)
    try Self.expectSame(GeneratedBundle.zip, zipped)
    // A folder that holds files healthport did not write is refused, untouched.
    let foreign = directory.appendingPathComponent("foreign")
    try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: false)
    try Data("mine".utf8).write(to: foreign.appendingPathComponent("notes.txt"))
    let refused = try Harness.run(["convert", jsonl.path, "--to", "xml", "-o", foreign.path + "/", "--quiet"])
    #expect(refused.status == 1, "stderr: \(refused.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: foreign.path) == ["notes.txt"])
  }

  /// Counts of the lines of each kind in a JSON Lines file, and the route and ECG members that
  /// carry raw bytes.
  static func kinds(_ jsonl: URL) throws -> (counts: [String: Int], points: Int, samples: Int, raw: [String]) {
    var counts: [String: Int] = [:]
    var points = 0
    var samples = 0
    var raw: [String] = []
    var member = ""
    for line in try String(contentsOf: jsonl, encoding: .utf8).split(separator: "\n") where line.hasPrefix("{\"kind\"")
    {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let kind = object["kind"] as? String ?? ""
      counts[kind, default: 0] += 1
      if kind == "member" {
        member = ["route", "ecg"].contains(object["type"] as? String) ? object["path"] as? String ?? "" : ""
      }
      if kind == "points" { points += (object["points"] as? [Any])?.count ?? 0 }
      if kind == "samples" { samples += (object["samples"] as? [Any])?.count ?? 0 }
      if kind == "bytes", !member.isEmpty, raw.last != member { raw.append(member) }
    }
    return (counts, points, samples, raw)
  }

  @Test("JSON Lines holds every point and sample (counted apart), GPX and ECG from Apple's layout, not raw bytes")
  func jsonLinesContent() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let jsonl = directory.appendingPathComponent("bundle.jsonl")
    try Self.convert(GeneratedBundle.zip, "jsonl", jsonl)
    let expected = try BundleCount.of(GeneratedBundle.zip)
    let found = try Self.kinds(jsonl)
    #expect(found.points == expected.routePoints)
    #expect(found.samples == expected.ecgSamples)
    #expect(found.counts["route"] == expected.routeFiles)
    #expect(found.counts["ecg"] == expected.ecgRecordings)
    #expect(found.raw.isEmpty, "these were not written from Apple's layout: \(found.raw)")
    #expect(found.counts["exportBytes"] == nil, "export.xml comes back from its elements")
    // Every line of points holds at most one batch.
    let longest =
      try String(contentsOf: jsonl, encoding: .utf8).split(separator: "\n")
      .filter { $0.hasPrefix(#"{"kind":"points""#) }.map { $0.components(separatedBy: "],[").count }.max() ?? 0
    #expect(longest <= 4096)
  }

  @Test("JSON Lines read back gives the side-file tables and counts the zip gives")
  func jsonLinesReadBack() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let jsonl = directory.appendingPathComponent("bundle.jsonl")
    try Self.convert(GeneratedBundle.zip, "jsonl", jsonl)
    let fromZip = directory.appendingPathComponent("zip-split")
    let fromJSONL = directory.appendingPathComponent("jsonl-split")
    for (input, folder) in [(GeneratedBundle.zip, fromZip), (jsonl, fromJSONL)] {
      let result = try Harness.run(["convert", input.path, "--to", "csv", "--split", "-o", folder.path, "--quiet"])
      #expect(result.status == 0, "stderr: \(result.stderr)")
    }
    for table in ["route_points.csv", "ecg_recordings.csv", "ecg_samples.csv", "workouts.csv"] {
      let a = try Data(contentsOf: fromZip.appendingPathComponent(table))
      let b = try Data(contentsOf: fromJSONL.appendingPathComponent(table))
      #expect(a == b, "\(table) differs")
      #expect(a.count > 100)
    }
    let (zipCount, _) = try BundleTests.infoCount([GeneratedBundle.zip.path])
    let (jsonlCount, result) = try BundleTests.infoCount([jsonl.path])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    #expect(jsonlCount.routeFiles == zipCount.routeFiles && jsonlCount.routePoints == zipCount.routePoints)
    #expect(jsonlCount.ecgRecordings == zipCount.ecgRecordings && jsonlCount.ecgSamples == zipCount.ecgSamples)
    // Commands that read no side files pass the lines over; an element after them is an error.
    #expect(try Harness.run(["steps", jsonl.path]).status == 0)
    let damaged = directory.appendingPathComponent("damaged.jsonl")
    let lines = try String(contentsOf: jsonl, encoding: .utf8)
    let element = try #require(lines.split(separator: "\n").first { $0.hasPrefix("{\"element\":\"Record\"") })
    try (lines + element + "\n").write(to: damaged, atomically: false, encoding: .utf8)
    let refused = try Harness.run([
      "convert", damaged.path, "--to", "zip", "-o", directory.appendingPathComponent("x.zip").path,
    ])
    #expect(refused.status == 65)
    #expect(
      refused.stderr.contains("damaged.jsonl:\(lines.split(separator: "\n").count + 1):1: error: an element after"))
    #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("x.zip").path))
  }

  @Test("a GPX and an ECG that are not in Apple's layout come back byte for byte through their raw bytes")
  func rawFallback() throws {
    let folder = try GeneratedBundle.copy()
    let root = folder.deletingLastPathComponent()
    defer { try? FileManager.default.removeItem(at: root) }
    let routes = folder.appendingPathComponent("workout-routes")
    let gpx = try #require(try FileManager.default.contentsOfDirectory(atPath: routes.path).sorted().first)
    let gpxURL = routes.appendingPathComponent(gpx)
    try (try Data(contentsOf: gpxURL) + Data("\n".utf8)).write(to: gpxURL)  // a trailing line feed
    let ecgURL = folder.appendingPathComponent("electrocardiograms/ecg_2025-06-28.csv")
    let ecg = try String(contentsOf: ecgURL, encoding: .utf8).replacingOccurrences(of: "\n", with: "\r\n")
    try ecg.write(to: ecgURL, atomically: false, encoding: .utf8)  // CRLF lines
    let scratch = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let jsonl = scratch.appendingPathComponent("bundle.jsonl")
    try Self.convert(folder, "jsonl", jsonl)
    let found = try Self.kinds(jsonl)
    #expect(found.raw.count == 2, "raw bytes for exactly the two changed files: \(found.raw)")
    let back = scratch.appendingPathComponent("back.zip")
    try Self.convert(jsonl, "zip", back)
    try Self.expectSame(root, back, order: false)
  }

  @Test(
    "real exports with routes: zip → zip, zip → jsonl → zip, folder → zip", .needsRealFixtures,
    arguments: [
      "jshrake-healthkit-to-sqlite/export.zip", "dogsheep-healthkit-to-sqlite/zip_contents/apple_health_export",
    ])
  func realFixtures(path: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = Harness.realFixtures.appendingPathComponent(path)
    let isZip = path.hasSuffix(".zip")
    let reference = isZip ? source : source.deletingLastPathComponent()
    let copy = directory.appendingPathComponent("copy.zip")
    try Self.convert(source, "zip", copy)
    try Self.expectSame(reference, copy, order: isZip)
    let jsonl = directory.appendingPathComponent("copy.jsonl")
    let back = directory.appendingPathComponent("back.zip")
    try Self.convert(source, "jsonl", jsonl)
    try Self.convert(jsonl, "zip", back)
    try Self.expectSame(reference, back, order: isZip)
    // Their GPX files are Apple's own: written from the points, not from raw bytes.
    #expect(try Self.kinds(jsonl).raw.isEmpty)
  }

  @Test(
    "real GPX files: in Apple's layout from the points, re-saved ones through their raw bytes", .needsRealFixtures)
  func realRoutes() throws {
    let root = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let folder = root.appendingPathComponent("apple_health_export")
    let routes = folder.appendingPathComponent("workout-routes")
    try FileManager.default.createDirectory(at: routes, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: Harness.samples.appendingPathComponent("export.xml"), to: folder.appendingPathComponent("export.xml"))
    let fixtures = Harness.realFixtures.appendingPathComponent("NicolasReyrolle-apple-health-analyzer/workout-routes")
    var resaved: [String] = []
    for name in try FileManager.default.contentsOfDirectory(atPath: fixtures.path).sorted() {
      let data = try Data(contentsOf: fixtures.appendingPathComponent(name))
      // Python's re-save rewrites the declaration (`<?xml version='1.0' encoding='utf-8'?>`): not the Health app's bytes.
      if data.starts(with: Data("<?xml version='1.0'".utf8)) {
        resaved.append("apple_health_export/workout-routes/" + name)
      }
      try data.write(to: routes.appendingPathComponent(name))
    }
    let scratch = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let jsonl = scratch.appendingPathComponent("routes.jsonl")
    try Self.convert(folder, "jsonl", jsonl)
    #expect(try Self.kinds(jsonl).raw == resaved)
    let back = scratch.appendingPathComponent("back.zip")
    try Self.convert(jsonl, "zip", back)
    try Self.expectSame(root, back)
  }

  @Test(
    "with a filter, the zip's export.xml is the filtered export, also when it travels as raw bytes", .needsRealFixtures)
  func filtered() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = Harness.realFixtures.appendingPathComponent("jshrake-healthkit-to-sqlite/export.zip")
    let filter = ["--type", "HKQuantityTypeIdentifierStepCount,HKQuantityTypeIdentifierActiveEnergyBurned"]
    let zip = directory.appendingPathComponent("filtered.zip")
    let xml = directory.appendingPathComponent("filtered.xml")
    for (format, out) in [("zip", zip), ("xml", xml)] {
      let result = try Harness.run(["convert", source.path, "--to", format, "-o", out.path, "--quiet"] + filter)
      #expect(result.status == 0, "stderr: \(result.stderr)")
    }
    let member = try Harness.toolOutput("/usr/bin/unzip", ["-p", zip.path, "apple_health_export/export.xml"])
    #expect(member == (try String(contentsOf: xml, encoding: .utf8)))
  }

  @Test("--to zip needs -o, and a plain export.xml gives a zip of one member")
  func plainExport() throws {
    let missing = try Harness.run(["convert", Harness.samples.appendingPathComponent("export.xml").path, "--to", "zip"])
    #expect(missing.status == 64, "stderr: \(missing.stderr)")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let zip = directory.appendingPathComponent("one.zip")
    try Self.convert(Harness.samples.appendingPathComponent("export.xml"), "zip", zip)
    let listing = try Harness.toolOutput("/usr/bin/unzip", ["-Z1", zip.path])
    #expect(listing == "apple_health_export/export.xml\n")
    let unzipped = try Harness.toolOutput("/usr/bin/unzip", ["-p", zip.path, "apple_health_export/export.xml"])
    #expect(unzipped == (try String(contentsOf: Harness.samples.appendingPathComponent("export.xml"), encoding: .utf8)))
  }

  @Test("a lone GPX or ECG file given to --to zip is kept, byte for byte, in its folder beside an empty export.xml")
  func loneSideFile() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let routes = GeneratedBundle.exportFolder.appendingPathComponent("workout-routes")
    let ecgs = GeneratedBundle.exportFolder.appendingPathComponent("electrocardiograms")
    let gpx = try FileManager.default.contentsOfDirectory(atPath: routes.path).filter { $0.hasSuffix(".gpx") }
    let csv = try FileManager.default.contentsOfDirectory(atPath: ecgs.path).filter { $0.hasSuffix(".csv") }
    #expect(!gpx.isEmpty && !csv.isEmpty)
    for (folder, name) in gpx.prefix(1).map({ ("workout-routes", $0) }) + csv.map({ ("electrocardiograms", $0) }) {
      let input = GeneratedBundle.exportFolder.appendingPathComponent(folder).appendingPathComponent(name)
      let zip = directory.appendingPathComponent(name + ".zip")
      try Self.convert(input, "zip", zip)
      let listing = try Harness.toolOutput("/usr/bin/unzip", ["-Z1", zip.path])
      #expect(listing == "apple_health_export/export.xml\napple_health_export/\(folder)/\(name)\n")
      let member = try Harness.toolOutput("/usr/bin/unzip", ["-p", zip.path, "apple_health_export/\(folder)/\(name)"])
      #expect(member == (try String(contentsOf: input, encoding: .utf8)), "\(name)")
    }
  }
}
