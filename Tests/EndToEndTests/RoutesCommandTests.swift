import Foundation
import TestSupport
import Testing

@Suite("healthport routes: GeoJSON, GPX, CSV")
struct RoutesCommandTests {
  /// The GeoJSON read by the `geojson` package (its validity check), with per-feature figures and
  /// the same figures computed apart from the GPX files (haversine in Python).
  static let geojsonScript = #"""
    import geojson, json, math, os, re, sys
    g = geojson.load(open(sys.argv[1]))
    point = re.compile(r'<trkpt lon="([^"]+)" lat="([^"]+)">')
    def haversine(pts):
        d = 0.0
        for (a, b) in zip(pts, pts[1:]):
            p1, p2 = math.radians(a[1]), math.radians(b[1])
            h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(b[0] - a[0]) / 2) ** 2
            d += 2 * 6371008.8 * math.asin(math.sqrt(h))
        return d
    files = {}
    folder = sys.argv[2]
    for name in os.listdir(folder):
        pts = [(float(lon), float(lat)) for lon, lat in point.findall(open(os.path.join(folder, name)).read())]
        files[name] = {"points": len(pts), "distance": haversine(pts), "first": list(pts[0]) if pts else None}
    features = []
    for f in g["features"]:
        geometry = f["geometry"]
        lines = geometry["coordinates"] if geometry["type"] == "MultiLineString" else [geometry["coordinates"]]
        times = f["properties"]["coordTimes"]
        times = times if geometry["type"] == "MultiLineString" else [times]
        features.append({
            "type": geometry["type"], "lines": [len(l) for l in lines], "times": [len(t) for t in times],
            "first": [l[0][:2] for l in lines], "distance": f["properties"]["distance"],
            "activity": f["properties"]["activity"], "computed": sum(haversine([tuple(p[:2]) for p in l]) for l in lines)})
    print(json.dumps({"valid": g.is_valid, "errors": str(g.errors()), "features": features, "files": files}))
    """#

  @Test(
    "GeoJSON: valid for the geojson package; one feature per workout, coordTimes parallel, distances as computed apart",
    .needsPythonClients)
  func geoJSON() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let out = directory.appendingPathComponent("routes.geojson")
    let result = try Harness.run(["routes", GeneratedBundle.zip.path, "-o", out.path, "--quiet"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let run = try TestEnvironment.runClientPython(
      Self.geojsonScript, [out.path, GeneratedBundle.exportFolder.appendingPathComponent("workout-routes").path])
    #expect(run.status == 0, "\(run.stderr)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    #expect(json["valid"] as? Bool == true, "\(json["errors"] ?? "")")
    let features = try #require(json["features"] as? [[String: Any]])
    let expected = try BundleCount.of(GeneratedBundle.zip)
    let total = features.flatMap { $0["lines"] as? [Int] ?? [] }.reduce(0, +)
    // Unreferenced files are features of their own (issue 30).
    #expect(total == expected.routePoints + expected.inlinePoints)
    for feature in features {
      #expect(feature["lines"] as? [Int] == feature["times"] as? [Int])
      let distance = feature["distance"] as? Double ?? -1
      let computed = feature["computed"] as? Double ?? -2
      #expect(abs(distance - computed) <= 0.001 + computed * 1e-9, "\(feature)")
    }
    let multi = features.filter { $0["type"] as? String == "MultiLineString" }
    #expect(multi.count == 1)
    #expect(multi.first?["lines"] as? [Int] == [40, 35], "the two routes of the two-activity workout")
    let files = try #require(json["files"] as? [String: [String: Any]])
    let first = multi.first?["first"] as? [[Double]]
    #expect(first?.first == files["route_bundle_first.gpx"]?["first"] as? [Double])
  }

  @Test("GPX merged and per workout read back by xmllint and Python; CSV; filters select workouts")
  func gpxAndCSV() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let expected = try BundleCount.of(GeneratedBundle.zip)
    // Unreferenced files too, without a filter (issue 30).
    let points = expected.routePoints + expected.inlinePoints
    let merged = directory.appendingPathComponent("all.gpx")
    #expect(try Harness.run(["routes", GeneratedBundle.zip.path, "--format", "gpx", "-o", merged.path]).status == 0)
    let lint = try Harness.runTool("/usr/bin/xmllint", ["--noout", merged.path])
    #expect(lint.status == 0, "xmllint: \(lint.output)")
    let count = try SQLiteExpectations.python(
      #"""
      import json, sys, xml.etree.ElementTree as ET
      ns = {"g": "http://www.topografix.com/GPX/1/1"}
      trees = [ET.parse(p).getroot() for p in sys.argv[1:]]
      print(json.dumps({"tracks": sum(len(t.findall("g:trk", ns)) for t in trees),
                        "points": sum(len(t.findall(".//g:trkpt", ns)) for t in trees)}))
      """#, [merged.path])
    #expect(count["points"] as? Int == points)
    let folder = directory.appendingPathComponent("per")
    #expect(
      try Harness.run(["routes", GeneratedBundle.zip.path, "--format", "gpx", "--per-workout", "-o", folder.path])
        .status
        == 0)
    // The GPX files, and the folder's manifest (docs/outputs.md).
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".gpx") }
      .sorted()
    #expect(files.count == count["tracks"] as? Int)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        == [".healthport-manifest.json"] + files)
    let each = try SQLiteExpectations.python(
      #"""
      import json, sys, xml.etree.ElementTree as ET
      ns = {"g": "http://www.topografix.com/GPX/1/1"}
      print(json.dumps({"points": sum(len(ET.parse(p).getroot().findall(".//g:trkpt", ns)) for p in sys.argv[1:]) }))
      """#, files.map { folder.appendingPathComponent($0).path })
    #expect(each["points"] as? Int == points)

    let csv = try Harness.run(["routes", GeneratedBundle.zip.path, "--format", "csv"])
    #expect(csv.stdoutText.split(separator: "\n").count == points + 1)
    #expect(
      csv.stdoutText.hasPrefix(
        Harness.csvHeader(
          "workout_id,activity,start,route,position,time,latitude,longitude,elevation,speed,course,"
            + "horizontal_accuracy,vertical_accuracy")))
    let walking = try Harness.run(["routes", GeneratedBundle.zip.path, "--format", "csv", "--activity", "Walking"])
    let rows = walking.stdoutText.split(separator: "\n").dropFirst()
    #expect(!rows.isEmpty && rows.allSatisfy { $0.contains(",Walking,") })
    #expect(try Harness.run(["routes", GeneratedBundle.zip.path, "--per-workout"]).status == 64)
  }
}
