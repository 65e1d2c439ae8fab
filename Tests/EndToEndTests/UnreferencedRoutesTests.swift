import Foundation
import Testing

/// GPX files that no workout references (issue 30, item 9): written by `routes`, and keyed in the
/// stores by (person, file, digest of the points).
@Suite("Routes no workout references")
struct UnreferencedRoutesTests {
  /// A bundle of an export with one workout (no route) and `copies` GPX files of 16 points each,
  /// none referenced, all sharing their first point; its folder and zip.
  static func bundle(copies: Int) throws -> URL {
    let top = try Harness.temporaryDirectory()
    let script = #"""
      import os, sys, zipfile
      out, copies = sys.argv[1], int(sys.argv[2])
      top = os.path.join(out, 'apple_health_export')
      os.makedirs(os.path.join(top, 'workout-routes'))
      open(os.path.join(top, 'export.xml'), 'w').write('''<?xml version="1.0" encoding="UTF-8"?>
      <HealthData locale="en_US">
       <ExportDate value="2024-06-01 12:00:00 +0200"/>
       <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" sourceVersion="10.0" creationDate="2024-05-01 09:00:00 +0200" startDate="2024-05-01 08:30:00 +0200" endDate="2024-05-01 09:00:00 +0200">
       </Workout>
      </HealthData>
      ''')
      def gpx(k):
          pts = []
          for i in range(16):
              lat = 48.853 + (0 if i == 0 else i * 0.0005 * (1 + k % 7))
              lon = 2.349 + (0 if i == 0 else i * 0.0003 * (1 + k // 7 % 5))
              t = f"2024-05-01T06:{i:02d}:{k % 60:02d}Z" if i else "2024-05-01T06:00:00Z"
              pts.append(f'      <trkpt lon="{lon:.6f}" lat="{lat:.6f}"><ele>35.{k:06d}</ele><time>{t}</time></trkpt>')
          return ('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="Apple Health Export" '
                  'xmlns="http://www.topografix.com/GPX/1/1">\n  <trk>\n    <name>Route</name>\n    <trkseg>\n'
                  + '\n'.join(pts) + '\n    </trkseg>\n  </trk>\n</gpx>')
      for k in range(copies):
          open(os.path.join(top, 'workout-routes', f'route_2024-05-01_8.00am_{k}.gpx'), 'w').write(gpx(k))
      with zipfile.ZipFile(os.path.join(out, 'export.zip'), 'w', zipfile.ZIP_DEFLATED) as z:
          for root, _, files in os.walk(top):
              for f in sorted(files):
                  z.write(os.path.join(root, f), os.path.relpath(os.path.join(root, f), out))
      """#
    let made = try Harness.runTool("/usr/bin/env", ["python3", "-c", script, top.path, "\(copies)"])
    try #require(made.status == 0, "\(made.output)")
    return top
  }

  /// Each GPX file's points, first and last times and haversine length, computed apart.
  static let expectedScript = #"""
    import json, math, os, re, sys
    point = re.compile(r'<trkpt lon="([^"]+)" lat="([^"]+)">.*?<time>([^<]+)</time>')
    out = {}
    for name in sorted(os.listdir(sys.argv[1])):
        pts = point.findall(open(os.path.join(sys.argv[1], name)).read())
        d = 0.0
        for a, b in zip(pts, pts[1:]):
            p1, p2 = math.radians(float(a[1])), math.radians(float(b[1]))
            h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(float(b[0]) - float(a[0])) / 2) ** 2
            d += 2 * 6371008.8 * math.asin(math.sqrt(h))
        out['/workout-routes/' + name] = {"points": len(pts), "start": pts[0][2], "end": pts[-1][2], "distance": d}
    print(json.dumps(out))
    """#

  @Test("routes writes them as GeoJSON features of their own, unless an activity or a source is asked for")
  func routesCommand() throws {
    let top = try Self.bundle(copies: 2)
    defer { try? FileManager.default.removeItem(at: top) }
    let zip = top.appendingPathComponent("export.zip")
    let expectedText = try Harness.toolOutput(
      "/usr/bin/env",
      ["python3", "-c", Self.expectedScript, top.appendingPathComponent("apple_health_export/workout-routes").path])
    let expected = try #require(try Harness.json(Data(expectedText.utf8)) as? [String: [String: Any]])
    let result = try Harness.run(["routes", zip.path, "--quiet"])
    #expect(result.status == 0, "\(result.stderr)")
    let json = try #require(try Harness.json(result.stdout) as? [String: Any])
    let features = try #require(json["features"] as? [[String: Any]])
    #expect(features.count == 2)
    for feature in features {
      let properties = try #require(feature["properties"] as? [String: Any])
      #expect(properties["workout_id"] is NSNull)
      #expect(properties["activity"] is NSNull)
      let file = try #require(properties["file"] as? String)
      let want = try #require(expected[file])
      #expect(properties["start"] as? String == want["start"] as? String)
      #expect(properties["end"] as? String == want["end"] as? String)
      let distance = try #require(properties["distance"] as? Double)
      let computed = try #require(want["distance"] as? Double)
      #expect(abs(distance - computed) <= 0.001 + computed * 1e-9, "\(file): \(distance) vs \(computed)")
      let start = try #require(ISO8601DateFormatter().date(from: want["start"] as? String ?? ""))
      let end = try #require(ISO8601DateFormatter().date(from: want["end"] as? String ?? ""))
      #expect(properties["duration"] as? Double == end.timeIntervalSince(start))
      let geometry = try #require(feature["geometry"] as? [String: Any])
      #expect((geometry["coordinates"] as? [Any])?.count == want["points"] as? Int)
    }
    for filter in [["--activity", "Running"], ["--source-product", "Watch"], ["--from", "2024-05-02"]] {
      let filtered = try Harness.run(["routes", zip.path, "--quiet"] + filter)
      let features = (try Harness.json(filtered.stdout) as? [String: Any])?["features"] as? [Any]
      #expect(features?.count == 0, "\(filter): \(filtered.stdoutText)")
    }
    let kept = try Harness.run(["routes", zip.path, "--quiet", "--from", "2024-05-01", "--to", "2024-05-01"])
    #expect(((try Harness.json(kept.stdout) as? [String: Any])?["features"] as? [Any])?.count == 2)

    let folder = top.appendingPathComponent("per-workout")
    let per = try Harness.run(["routes", zip.path, "--quiet", "--to", "gpx", "--per-workout", "-o", folder.path])
    #expect(per.status == 0, "\(per.stderr)")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".gpx") }
    #expect(
      names.sorted() == ["unreferenced_route_2024-05-01_8.00am_0.gpx", "unreferenced_route_2024-05-01_8.00am_1.gpx"])
  }

  /// `route_points` and `unreferenced_routes` counts of a database.
  static func counts(_ database: URL) throws -> String {
    try Harness.toolOutput(
      "/usr/bin/env",
      [
        "python3", "-c",
        "import sqlite3,sys\ndb=sqlite3.connect(sys.argv[1])\n"
          + "print(db.execute(\"select count(*), count(distinct unreferenced_route_id) from route_points\").fetchone(),"
          + " db.execute(\"select count(*) from unreferenced_routes where digest is not null\").fetchone()[0])",
        database.path,
      ]
    ).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test("load keeps every point of files that share their first point, once however often loaded")
  func loadKeepsThemAll() throws {
    let copies = 400
    let top = try Self.bundle(copies: copies)
    defer { try? FileManager.default.removeItem(at: top) }
    let database = top.appendingPathComponent("h.db")
    for input in ["export.zip", "apple_health_export", "export.zip"] {
      let result = try Harness.run(["load", top.appendingPathComponent(input).path, "--db", database.path, "--quiet"])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(try Self.counts(database) == "(\(copies * 16), \(copies)) \(copies)", "after \(input)")
    }
  }

  @Test("a database of the older key is migrated: its routes keyed, the lost ones added by the next load")
  func migratesOlderDatabase() throws {
    let top = try Self.bundle(copies: 2)
    defer { try? FileManager.default.removeItem(at: top) }
    let database = top.appendingPathComponent("h.db")
    let zip = top.appendingPathComponent("export.zip").path
    #expect(try Harness.run(["load", zip, "--db", database.path, "--quiet"]).status == 0)
    // As schema 4 held it: no key, and the second file (same first point) not loaded.
    let downgrade = try Harness.runTool(
      "/usr/bin/env",
      [
        "python3", "-c",
        "import sqlite3,sys\ndb=sqlite3.connect(sys.argv[1])\n"
          + "db.execute('delete from route_points where unreferenced_route_id = 2')\n"
          + "db.execute('drop index route_points_unreferenced')\n"
          + "db.execute('alter table route_points drop column unreferenced_route_id')\n"
          + "db.execute('drop table unreferenced_routes')\n"
          + "db.execute('pragma user_version = 4')\ndb.commit()",
        database.path,
      ])
    try #require(downgrade.status == 0, "\(downgrade.output)")
    for _ in 0..<2 {
      let again = try Harness.run(["load", zip, "--db", database.path, "--quiet"])
      #expect(again.status == 0, "\(again.stderr)")
      #expect(try Self.counts(database) == "(32, 2) 2")
    }
  }
}
