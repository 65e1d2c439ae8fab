import Foundation
import TestSupport
import Testing

@testable import HealthPort

/// The route writers of `routes` (GPX, GeoJSON, CSV), in the library, on `Samples/export.zip`,
/// against the bytes of its two GPX files read apart with `unzip -p`.
@Suite("Route writers")
struct RouteWritersTests {
  static let sampleZip = TestEnvironment.repoRoot.appendingPathComponent("Samples/export.zip").path

  /// The zip's GPX files as they are stored, by name.
  static func gpxFiles() throws -> [String: String] {
    var files: [String: String] = [:]
    for name in [
      "apple_health_export/workout-routes/route_2024-09-15_10.52am.gpx",
      "apple_health_export/workout-routes/route_2024-11-30_4.46pm.gpx",
    ] {
      let unzip = Process()
      unzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      unzip.arguments = ["unzip", "-p", sampleZip, name]
      let pipe = Pipe()
      unzip.standardOutput = pipe
      try unzip.run()
      let data = pipe.fileHandleForReading.readDataToEndOfFile()
      unzip.waitUntilExit()
      files[name] = String(decoding: data, as: UTF8.self)
    }
    return files
  }

  /// The `trkpt` lines of a GPX text, as written.
  static func pointLines(_ text: String) -> [Substring] {
    text.split(separator: "\n").filter { $0.hasPrefix("      <trkpt ") }
  }

  /// Runs `write` on the sample's routes into a file and gives its text.
  static func written(
    _ write: (RouteSpool, RouteSpool, HealthPort.OutputStream) throws -> Void
  ) throws -> String {
    let spool = try RouteSpool()
    try ExportReader(path: sampleZip).read(into: spool)
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("routes-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try write(spool, spool, try HealthPort.OutputStream(path: path))
    return try String(contentsOfFile: path, encoding: .utf8)
  }

  @Test("one GPX writer: routes' document and Apple's files share the header, segment and point lines")
  func gpx() throws {
    let files = try Self.gpxFiles()
    let text = try Self.written { try GPXLayout.writeRoutes($0, $1, to: $2) }
    #expect(
      text.hasPrefix(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          + "<gpx version=\"1.1\" creator=\"healthport\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n  <trk>\n"))
    #expect(text.hasSuffix("\n    </trkseg>\n  </trk>\n</gpx>\n"))
    // Every point of both files, in their layout, once; a segment per file.
    let expected = files.values.flatMap(Self.pointLines)
    #expect(Self.pointLines(text).count == expected.count)
    #expect(Set(Self.pointLines(text)) == Set(expected))
    #expect(text.components(separatedBy: "<trkseg>").count - 1 == files.count)
    // Apple's layout, from the same pieces, gives each file's own first lines and last bytes.
    for (name, file) in files {
      func text(in tag: String) -> String? {
        file.components(separatedBy: "<\(tag)>").dropFirst().first?.components(separatedBy: "</\(tag)>").first
      }
      let head = String(decoding: GPXLayout.head(name: text(in: "name"), metadataTime: text(in: "time")), as: UTF8.self)
      #expect(file.hasPrefix(head), "\(name)")
      #expect(file.hasSuffix(String(decoding: GPXLayout.tail, as: UTF8.self)), "\(name)")
    }
  }

  @Test("a track's name: Apple's files escape & < > and \", routes' tracks & and < alone, as before")
  func trackNames() {
    var apple: [UInt8] = []
    GPXLayout.appendTrackStart(name: #"a&b<c>d"e"#, to: &apple)
    #expect(String(decoding: apple, as: UTF8.self) == "  <trk>\n    <name>a&amp;b&lt;c&gt;d&quot;e</name>\n")
    var routes: [UInt8] = []
    GPXLayout.appendTrackStart(name: #"a&b<c>d"e"#, onlyAmpersandAndLessThan: true, to: &routes)
    #expect(String(decoding: routes, as: UTF8.self) == "  <trk>\n    <name>a&amp;b&lt;c>d\"e</name>\n")
  }

  @Test("GeoJSON: a Feature per route file, its coordinates the file's lon, lat and ele in order")
  func geoJSON() throws {
    let files = try Self.gpxFiles()
    let text = try Self.written { try GeoJSONRoutes.write($0, $1, to: $2) }
    let json = try JSONSerialization.jsonObject(with: Data(text.utf8))
    let features = ((json as? [String: Any])?["features"] as? [[String: Any]]) ?? []
    #expect(features.count == files.count)
    let firsts = Set(
      files.values.compactMap { file -> String? in
        guard let line = Self.pointLines(file).first else { return nil }
        func attribute(_ name: String) -> String {
          String(line.split(separator: "\(name)=\"")[1].prefix { $0 != "\"" })
        }
        let elevation = line.split(separator: "<ele>")[1].prefix { $0 != "<" }
        return "\(attribute("lon")),\(attribute("lat")),\(elevation)"
      })
    var seen = Set<String>()
    var points = 0
    for feature in features {
      let coordinates = ((feature["geometry"] as? [String: Any])?["coordinates"] as? [[Double]]) ?? []
      points += coordinates.count
      seen.insert((coordinates.first ?? []).map { String(format: "%.6f", $0) }.joined(separator: ","))
    }
    #expect(points == files.values.map { Self.pointLines($0).count }.reduce(0, +))
    #expect(seen == firsts)
  }

  @Test("CSV: the header, then a row per point with its time and coordinates as written")
  func csv() throws {
    let files = try Self.gpxFiles()
    let text = try Self.written { try CSVRoutes.write($0, $1, to: $2) }
    let lines = text.split(separator: "\n")
    #expect(
      lines.first.map(String.init)
        == #""workout_id","activity","start","route","position","time","latitude","longitude","elevation","speed","#
        + #""course","horizontal_accuracy","vertical_accuracy""#)
    let times = files.values.flatMap { file in
      Self.pointLines(file).map { String($0.split(separator: "<time>")[1].prefix { $0 != "<" }) }
    }
    #expect(lines.count - 1 == times.count)
    #expect(
      Set(lines.dropFirst().map { String($0.split(separator: ",", omittingEmptySubsequences: false)[5]) }) == Set(times)
    )
  }

  @Test("unreferenced routes spilled to their scratch file come back in order, field for field, past 64 KiB")
  func unreferencedRecords() throws {
    let records = try UnreferencedRoutes()
    // Names with tabs, newlines and non-ASCII bytes, some without times, and a few long enough
    // that a record straddles the reader's 64 KiB chunks.
    let routes = (0..<3_000).map { i in
      let name =
        "/workout-routes/route_\(i)\(i % 7 == 0 ? "\t\nü" : "")\(String(repeating: "x", count: i % 500 == 0 ? 70_000 : i % 40)).gpx"
      let start = HealthDate(secondsSince1970: 1_700_000_000 + Int64(i), offsetSeconds: Int32(i % 3 * 3600))
      let end = HealthDate(secondsSince1970: 1_700_000_100 + Int64(i), offsetSeconds: -3600)
      return RouteSpool.WorkoutRoutes(
        start: start, end: end, duration: Double(i) / 3, file: name, firstTime: i % 5 == 0 ? nil : "t\(i)",
        lastTime: i % 3 == 0 ? nil : "", stored: [(0, Int64(i) * 1_000_003, i + 1)])
    }
    for route in routes { try records.append(route) }
    var read: [RouteSpool.WorkoutRoutes] = []
    try records.forEach { read.append($0) }
    #expect(read.count == routes.count)
    for (a, b) in zip(routes, read) {
      #expect(
        a.file == b.file && a.firstTime == b.firstTime && a.lastTime == b.lastTime && a.start == b.start
          && a.end == b.end && a.duration == b.duration && a.number == nil && b.activity == nil
          && b.routes.map(\.offset) == a.routes.map(\.offset) && b.routes.map(\.points) == a.routes.map(\.points))
    }
  }
}
