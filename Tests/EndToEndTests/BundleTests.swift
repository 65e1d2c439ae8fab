import Foundation
import TestSupport
import Testing

@Suite("the whole export: GPX routes and ECG recordings")
struct BundleTests {
  /// `info --format json`'s side-file keys as a ``BundleCount``.
  static func infoCount(_ arguments: [String], stdin: URL? = nil) throws -> (BundleCount, Harness.Result) {
    let result = try Harness.run(["info", "--format", "json"] + arguments, stdin: stdin)
    let json = try #require(try Harness.json(result.stdout) as? [String: Any], "stderr: \(result.stderr)")
    let count = BundleCount(
      routeFiles: json["routeFileCount"] as? Int ?? -1, routePoints: json["routePointCount"] as? Int ?? -1,
      inlineRoutes: json["inlineRouteCount"] as? Int ?? -1, inlinePoints: json["inlineRoutePointCount"] as? Int ?? -1,
      ecgRecordings: json["ecgRecordingCount"] as? Int ?? -1, ecgSamples: json["ecgSampleCount"] as? Int ?? -1,
      unreferenced: (json["unreferencedRouteFiles"] as? [String] ?? []).sorted(),
      missing: (json["missingRouteFiles"] as? [String] ?? []).sorted(), pointsByRoute: [:])
    return (count, result)
  }

  static func withoutPerRoute(_ count: BundleCount) -> BundleCount {
    var count = count
    count.pointsByRoute = [:]
    return count
  }

  @Test("info counts the generated bundle as an independent count does", arguments: ["zip", "folder", "stdin"])
  func generatedBundle(form: String) throws {
    let expected = try BundleCount.of(GeneratedBundle.zip)
    #expect(expected.routeFiles >= 6 && expected.ecgRecordings == 2 && expected.inlinePoints == 6)
    #expect(expected.missing == ["/workout-routes/route_bundle_missing.gpx"])
    #expect(expected.unreferenced == ["/workout-routes/route_bundle_unreferenced.gpx"])
    let (count, result) =
      switch form {
      case "zip": try Self.infoCount([GeneratedBundle.zip.path])
      case "folder": try Self.infoCount([GeneratedBundle.exportFolder.path])
      default: try Self.infoCount(["-"], stdin: GeneratedBundle.zip)
      }
    #expect(result.status == 0, "stderr: \(result.stderr)")
    #expect(count == Self.withoutPerRoute(expected))
    #expect(result.stderr.contains("references /workout-routes/route_bundle_missing.gpx"))
    #expect(result.stderr.contains("export.xml:"), "the missing file's workout is located: \(result.stderr)")
    #expect(result.stderr.contains("1 GPX route file(s) that no workout references"))
  }

  @Test("the generated zip stores routes before and after export.xml")
  func zipOrder() throws {
    let listing = try Harness.toolOutput("/usr/bin/unzip", ["-Z1", GeneratedBundle.zip.path])
    let names = listing.split(separator: "\n").map(String.init)
    let export = try #require(names.firstIndex(of: "apple_health_export/export.xml"))
    #expect(names[..<export].contains { $0.hasSuffix(".gpx") })
    #expect(names[export...].contains { $0.hasSuffix(".gpx") })
  }

  @Test(
    "real exports with routes: files and points as counted apart", .needsRealFixtures,
    arguments: [
      "jshrake-healthkit-to-sqlite/export.zip", "dogsheep-healthkit-to-sqlite/zip_contents/apple_health_export",
      "dogsheep-healthkit-to-sqlite/export.xml",
      "NicolasReyrolle-apple-health-analyzer/workout-routes/route_2018-06-11_1.02pm.gpx",
      "NicolasReyrolle-apple-health-analyzer/workout-routes/route_2024-12-26_2.54pm.gpx",
      "NicolasReyrolle-apple-health-analyzer/workout-routes/route_2025-12-28_2.45pm.gpx",
    ])
  func realFixtures(path: String) throws {
    let url = Harness.realFixtures.appendingPathComponent(path)
    var expected = Self.withoutPerRoute(try BundleCount.of(url))
    if path.hasSuffix("export.xml") {
      // A lone export.xml is not a bundle: its references are not looked for.
      expected.routeFiles = 0
      expected.missing = []
    }
    let (count, result) = try Self.infoCount([url.path])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    #expect(count == expected)
    #expect(count.routePoints + count.inlinePoints > 0)
  }

  @Test("steps, stats and workouts never open the side files (a damaged GPX does not stop them)")
  func aggregatesSkipSideFiles() throws {
    let folder = try GeneratedBundle.copy()
    defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
    let route = folder.appendingPathComponent("workout-routes/route_bundle_first.gpx")
    try Data("<gpx><trkpt lat=".utf8).write(to: route)
    for command in [["steps"], ["stats", "--type", "HeartRate"], ["workouts"]] {
      let result = try Harness.run(command + [folder.path])
      #expect(result.status == 0, "\(command): \(result.stderr)")
    }
    #expect(try Harness.run(["info", folder.path]).status == 65)
  }

  @Test("a damaged GPX or ECG: path:line:col, exit 65; --skip-invalid skips that one file")
  func damagedSideFiles() throws {
    let folder = try GeneratedBundle.copy()
    defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
    let expected = try BundleCount.of(folder)
    let route = folder.appendingPathComponent("workout-routes/route_bundle_second.gpx")
    var lines = try String(contentsOf: route, encoding: .utf8).components(separatedBy: "\n")
    lines[10] = lines[10].replacingOccurrences(of: "lat=\"", with: "lat=\"north")
    try lines.joined(separator: "\n").write(to: route, atomically: true, encoding: .utf8)
    let failed = try Harness.run(["info", folder.path])
    #expect(failed.status == 65)
    #expect(failed.stderr.contains("\(route.path):11:"), "\(failed.stderr)")
    #expect(failed.stderr.contains("error: the <trkpt> lat 'north"))

    let ecg = folder.appendingPathComponent("electrocardiograms/ecg_2025-06-28.csv")
    try (try String(contentsOf: ecg, encoding: .utf8) + "12,5\n").write(to: ecg, atomically: true, encoding: .utf8)
    let (count, skipped) = try Self.infoCount(["--skip-invalid", folder.path])
    #expect(skipped.status == 0, "\(skipped.stderr)")
    #expect(skipped.stderr.contains("\(ecg.path):"), "\(skipped.stderr)")
    #expect(skipped.stderr.contains("uses ',' as its decimal separator"))
    #expect(count.routeFiles == expected.routeFiles - 1)
    #expect(
      count.routePoints == expected.routePoints
        - expected.pointsByRoute["/workout-routes/route_bundle_second.gpx", default: 0])
    #expect(count.ecgRecordings == 1)
    #expect(count.ecgSamples == 15_360)
  }

  @Test("a zip with a damaged route stored before export.xml names the member")
  func damagedInZip() throws {
    let folder = try GeneratedBundle.copy()
    let top = folder.deletingLastPathComponent()
    defer { try? FileManager.default.removeItem(at: top) }
    let route = folder.appendingPathComponent("workout-routes/route_bundle_first.gpx")
    let text = try String(contentsOf: route, encoding: .utf8)
    try String(text.prefix(text.count / 2)).write(to: route, atomically: true, encoding: .utf8)
    let zip = top.appendingPathComponent("damaged.zip")
    let zipped = try Harness.runTool(
      "/usr/bin/env",
      [
        "python3", "-c",
        "import sys,zipfile,os\nz=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED)\n"
          + "for n in ['workout-routes/route_bundle_first.gpx','export.xml']: z.write(os.path.join(sys.argv[2],n),'apple_health_export/'+n)\n",
        zip.path, folder.path,
      ])
    try #require(zipped.status == 0, "python3 zipfile: \(zipped.output)")
    for stdin in [false, true] {
      let result = try Harness.run(["info", stdin ? "-" : zip.path], stdin: stdin ? zip : nil)
      #expect(result.status == 65)
      #expect(result.stderr.contains(":apple_health_export/workout-routes/route_bundle_first.gpx:"), "\(result.stderr)")
      #expect(result.stderr.contains("truncated"), "\(result.stderr)")
    }
  }

  @Test("an ECG on its own, with either decimal separator", arguments: [".", ","])
  func ecgOnItsOwn(separator: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let values = (0..<5000).map { String(format: "%.3f", sin(Double($0) / 40) * 400) }
    let rate = separator == "," ? "\"512,844 hertz\"" : "512.844 hertz"
    let header = [
      "Name", "Date of Birth,\"Jan 8, 2002\"", "Recorded Date,2023-03-04 20:55:07 -0500", "Classification,Sinus Rhythm",
      "Symptoms,", "Software Version,1.90", "Device,\"Watch7,12\"", "Sample Rate,\(rate)", "", "", "Lead,Lead I",
      "Unit,µV", "",
    ]
    let text =
      (header + values.map { $0.replacingOccurrences(of: ".", with: separator) }).joined(separator: "\n") + "\n"
    let file = directory.appendingPathComponent("ecg_2023-03-04.csv")
    try text.write(to: file, atomically: true, encoding: .utf8)
    let (count, result) = try Self.infoCount([file.path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(count.ecgRecordings == 1)
    #expect(count.ecgSamples == values.count)
    let (piped, _) = try Self.infoCount(["-"], stdin: file)
    #expect(piped.ecgSamples == values.count)
  }
}
