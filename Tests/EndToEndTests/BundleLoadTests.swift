import Foundation
import TestSupport
import Testing

@Suite("load: route_points, ecg_recordings, ecg_samples, workout_routes_summary; the migration to them")
struct BundleLoadTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/sqlite")

  /// Every row of the side tables and the summary, without surrogate ids (a route's and a
  /// workout's ids are replaced by the workout's natural key), sorted.
  static let sideContent = """
    SELECT 'p', w.activity_type, w.start_unix, a.uuid, r.position, p.origin, p.position, p.time, p.latitude,
      p.longitude, p.elevation, p.speed, p.course, p.horizontal_accuracy, p.vertical_accuracy, p.person
    FROM route_points p LEFT JOIN workouts w ON w.id = p.workout_id LEFT JOIN workout_routes r ON r.id = p.route_id
      LEFT JOIN workout_activities a ON a.id = p.activity_id
    UNION ALL
    SELECT 's', w.activity_type, w.start_unix, s.points, s.distance_m, s.elevation_gain_m, s.min_latitude,
      s.min_longitude, s.max_latitude, s.max_longitude, s.person, NULL, NULL, NULL, NULL, NULL
    FROM workout_routes_summary s JOIN workouts w ON w.id = s.workout_id
    UNION ALL
    SELECT 'e', file, recorded_date, samples, sample_rate_hz, header, person,
      (SELECT count(*) || ':' || sum(value) FROM ecg_samples WHERE recording_id = e.id), NULL, NULL, NULL, NULL, NULL,
      NULL, NULL, NULL
    FROM ecg_recordings e
    ORDER BY 1, 2, 3, 4, 5, 6, 7
    """

  static func content(_ db: String) throws -> String {
    try LoadStoreTests.sqlite(db, sideContent).map { $0.map { "\($0)" }.joined(separator: "|") }.joined(
      separator: "\n") + "\n" + LoadStoreTests.content(db)
  }

  @Test(
    "a version-2 database written by main is migrated in place; loaded again it equals a fresh load; again adds nothing",
    .needsRealFixtures)
  func migration() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let inputs = ["dogsheep-healthkit-to-sqlite/export.xml", "jshrake-healthkit-to-sqlite/export.zip"].map {
      Harness.realFixtures.appendingPathComponent($0).path
    }
    let old = directory.appendingPathComponent("v2.db").path
    _ = try SQLiteExpectations.python(
      #"""
      import sys, json, sqlite3
      db = sqlite3.connect(sys.argv[1], isolation_level=None)
      db.executescript(open(sys.argv[2], encoding="utf-8").read())
      db.close()
      print(json.dumps({}))
      """#, [old, Self.fixtures.appendingPathComponent("v2-routes.sql").path])
    #expect(try LoadStoreTests.sqlite(old, "PRAGMA user_version").first?[0] as? Int == 2)
    #expect(try LoadStoreTests.sqlite(old, "SELECT count(*) FROM route_locations").first?[0] as? Int == 2)

    let fresh = directory.appendingPathComponent("fresh.db").path
    #expect(try LoadTests.load(inputs, db: fresh).status == 0)
    let load = try LoadTests.load(inputs, db: old)
    #expect(load.status == 0, "stderr: \(load.stderr)")
    #expect(try LoadStoreTests.sqlite(old, "PRAGMA user_version").first?[0] as? Int == 5)
    let migrated = try Self.content(old)
    #expect(migrated == (try Self.content(fresh)))
    // The inline route came from the migration, the GPX one from the load: 2 + 644 points.
    let origins = try LoadStoreTests.sqlite(old, "SELECT origin, count(*) FROM route_points GROUP BY 1 ORDER BY 1")
    #expect(origins.map { "\($0[0])=\($0[1])" } == ["gpx=644", "inline=2"])

    let again = try LoadTests.load(inputs, db: old)
    #expect(again.stderr.contains("nothing new"), "stderr: \(again.stderr)")
    #expect(try Self.content(old) == migrated)
  }

  /// Per route file, computed apart from healthport: points, haversine distance, elevation gain
  /// and bounding box from the GPX text (Python, regular expressions).
  static let routeFigures = #"""
    import json, math, os, re, sys
    out = {}
    folder = sys.argv[1]
    point = re.compile(r'<trkpt lon="([^"]+)" lat="([^"]+)"><ele>([^<]+)</ele>')
    for name in sorted(os.listdir(folder)):
        pts = [(float(lat), float(lon), float(ele)) for lon, lat, ele in point.findall(open(os.path.join(folder, name)).read())]
        d = gain = 0.0
        for (a, b) in zip(pts, pts[1:]):
            p1, p2 = math.radians(a[0]), math.radians(b[0])
            h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(b[1] - a[1]) / 2) ** 2
            d += 2 * 6371008.8 * math.asin(math.sqrt(h))
            gain += max(0.0, b[2] - a[2])
        out["/workout-routes/" + name] = [len(pts), d, gain, min(p[0] for p in pts), min(p[1] for p in pts),
                                          max(p[0] for p in pts), max(p[1] for p in pts)]
    print(json.dumps(out))
    """#

  @Test(
    "the generated bundle: every point and sample, joined, and the summary as computed apart; reloading adds nothing")
  func generatedBundle() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("bundle.db").path
    let first = try LoadTests.load([GeneratedBundle.zip.path], db: db)
    #expect(first.status == 0, "stderr: \(first.stderr)")
    let expected = try BundleCount.of(GeneratedBundle.zip)
    let counts = try LoadStoreTests.sqlite(
      db,
      "SELECT (SELECT count(*) FROM route_points WHERE origin = 'gpx'), (SELECT count(*) FROM route_points WHERE origin = 'inline'), "
        + "(SELECT count(*) FROM route_points WHERE workout_id IS NULL), (SELECT count(*) FROM ecg_recordings), "
        + "(SELECT count(*) FROM ecg_samples)"
    ).first?.compactMap { $0 as? Int }
    let unreferenced = expected.unreferenced.reduce(0) { $0 + expected.pointsByRoute[$1, default: 0] }
    #expect(counts == [expected.routePoints, expected.inlinePoints, unreferenced, 2, expected.ecgSamples])

    // The summary of each workout with GPX routes against the figures computed apart (a workout's
    // routes summed; the bounding box over all of them).
    let figures = try SQLiteExpectations.python(
      Self.routeFigures, [GeneratedBundle.exportFolder.appendingPathComponent("workout-routes").path])
    let rows = try LoadStoreTests.sqlite(
      db,
      "SELECT group_concat(DISTINCT r.file_path), s.points, s.distance_m, s.elevation_gain_m, s.min_latitude, "
        + "s.min_longitude, s.max_latitude, s.max_longitude FROM workout_routes_summary s "
        + "JOIN workout_routes r ON r.workout_id = s.workout_id WHERE r.file_path IS NOT NULL GROUP BY s.workout_id")
    #expect(rows.count >= 3)
    for row in rows {
      let files = (row[0] as? String ?? "").split(separator: ",").map(String.init)
      let parts = files.compactMap { figures[$0] as? [Double] }
      #expect(parts.count == files.count, "\(files)")
      func column(_ index: Int) -> [Double] { parts.map { $0[index] } }
      let sums: [Double] = (0..<3).map { column($0).reduce(0, +) }
      let box: [Double] = [
        column(3).min() ?? 0, column(4).min() ?? 0, column(5).max() ?? 0, column(6).max() ?? 0,
      ]
      let want: [Double] = sums + box
      let got: [Double] = row.dropFirst().map { ($0 as? Double) ?? Double($0 as? Int ?? -1) }
      for (index, (a, b)) in zip(got, want).enumerated() {
        let tolerance: Double = index < 3 ? 0.0015 : 1e-9
        #expect(Swift.abs(a - b) <= tolerance, "\(files) column \(index + 1): \(a) vs \(b)")
      }
    }
    let before = try Self.content(db)
    let again = try LoadTests.load([GeneratedBundle.zip.path], db: db)
    #expect(again.stderr.contains("nothing new"), "stderr: \(again.stderr)")
    #expect(try Self.content(db) == before)
  }
}
