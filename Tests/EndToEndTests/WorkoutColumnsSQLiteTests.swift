import Foundation
import TestSupport
import Testing

/// The `workouts` table's heart rate, pace, elevation and indoor columns (schema version 3): a
/// fresh load gives the numbers of `healthport workouts`; a version-2 database written by main is
/// migrated in place and then holds what a fresh load holds.
@Suite("SQLite: the workouts' heart rate, pace, elevation and indoor columns")
struct WorkoutColumnsSQLiteTests {
  static let heartRates = Harness.repoRoot.appendingPathComponent("Tests/Fixtures/workouts/heart-rate.xml").path
  static let sample = Harness.samples.appendingPathComponent("export.xml").path
  /// `Tests/Fixtures/sqlite/workouts-v2.sql`: `healthport load Samples/export.xml
  /// Tests/Fixtures/workouts/heart-rate.xml` by main at commit 353d704 (schema version 2), dumped.
  static let versionTwo = LoadStoreTests.fixtures.appendingPathComponent("workouts-v2.sql").path

  static let columns =
    "activity_type, start_date, avg_heart_rate, max_heart_rate, pace_min_per_km, elevation_gain_m, indoor"

  static func rows(_ db: String) throws -> [[Any]] {
    try LoadStoreTests.sqlite(db, "SELECT \(columns) FROM workouts WHERE person = '' ORDER BY start_unix, id")
  }

  /// The database's columns against `workouts --format json` over the same inputs, each read alone.
  static func expectMatchesCLI(_ db: String, inputs: [String]) throws {
    var cli: [[String: Any]] = []
    for input in inputs {
      let result = try Harness.run(["workouts", input, "--format", "json"])
      #expect(result.status == 0, "\(result.stderr)")
      cli += try Harness.json(result.stdout) as? [[String: Any]] ?? []
    }
    cli.sort { ($0["start"] as? String ?? "") < ($1["start"] as? String ?? "") }
    let stored = try rows(db).sorted { ($0[1] as? String ?? "") < ($1[1] as? String ?? "") }
    #expect(stored.count == cli.count)
    func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }
    func close(_ a: Double?, _ b: Double?, _ tolerance: Double = 0) -> Bool {
      switch (a, b) {
      case (nil, nil): true
      case (let x?, let y?): tolerance > 0 ? abs(x - y) <= tolerance : relativelyClose(x, y)
      default: false
      }
    }
    for (row, want) in zip(stored, cli) {
      let what = "\(row[0]) \(row[1])"
      #expect(row[1] as? String == want["start"] as? String, "\(what)")
      #expect(close(number(row[2]), want["avg_heart_rate"] as? Double), "\(what) avg")
      #expect(close(number(row[3]), want["max_heart_rate"] as? Double), "\(what) max")
      let pace = WorkoutMeasuresTests.minutes(pace: want["pace"] as? String)
      #expect(close(number(row[4]), pace, 0.5 / 60 + 1e-9), "\(what) pace")
      #expect(close(number(row[5]), want["elevation_gain"] as? Double), "\(what) elevation")
      let indoor = (want["indoor"] as? String).map { $0 == "indoor" ? 1.0 : 0.0 }
      #expect(number(row[6]) == indoor, "\(what) indoor")
    }
  }

  @Test("a fresh load stores the numbers of healthport workouts")
  func freshLoad() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("health.db").path
    let load = try LoadTests.load([Self.sample, Self.heartRates], db: db)
    #expect(load.status == 0, "\(load.stderr)")
    try Self.expectMatchesCLI(db, inputs: [Self.sample, Self.heartRates])
    // By hand (see WorkoutMeasuresTests): the run's records give 1315 / 11 bpm, 160 at most.
    let run = try LoadStoreTests.sqlite(
      db, "SELECT avg_heart_rate, max_heart_rate, elevation_gain_m, indoor FROM workouts WHERE duration = 30")
    #expect(abs(((run.first?[0] as? NSNumber)?.doubleValue ?? 0) - 1315.0 / 11) < 1e-9)
    #expect((run.first?[1] as? NSNumber)?.doubleValue == 160)
    #expect((run.first?[2] as? NSNumber)?.doubleValue == 38.1)
    #expect((run.first?[3] as? NSNumber)?.intValue == 0)
  }

  @Test("the real exports with workouts", .needsRealFixtures)
  func realExports() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    for (index, url) in Harness.realExports().enumerated() {
      let db = directory.appendingPathComponent("real-\(index).db").path
      #expect(try LoadTests.load([url.path], db: db).status == 0)
      try Self.expectMatchesCLI(db, inputs: [url.path])
    }
  }

  /// Restores the version-2 database of the fixture at `path`.
  static func restoreVersionTwo(at path: String) throws {
    _ = try SQLiteExpectations.python(
      #"""
      import sys, json, sqlite3
      db = sqlite3.connect(sys.argv[1], isolation_level=None)
      db.executescript(open(sys.argv[2], encoding="utf-8").read())
      db.close()
      print(json.dumps({}))
      """#, [path, versionTwo])
  }

  @Test("a version-2 database written by main is migrated in place, never refused, and filled")
  func migration() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let old = directory.appendingPathComponent("v2.db").path
    try Self.restoreVersionTwo(at: old)
    #expect(try LoadStoreTests.sqlite(old, "PRAGMA user_version").first?[0] as? Int == 2)
    let counts = """
      SELECT (SELECT count(*) FROM records WHERE person = ''), (SELECT sum(copies) FROM records WHERE person = ''),
        (SELECT count(*) FROM workouts WHERE person = ''), (SELECT count(*) FROM metadata WHERE person = '')
      """
    let before = try LoadStoreTests.sqlite(old, counts).map { "\($0)" }
    // Loading another person's export migrates the database; the old rows are filled by the step.
    let other = directory.appendingPathComponent("other.xml").path
    try LoadTests.generate(records: 3, to: other)
    let load = try LoadTests.load([other], db: old, person: "bob")
    #expect(load.status == 0, "\(load.stderr)")
    #expect(try LoadStoreTests.sqlite(old, "PRAGMA user_version").first?[0] as? Int == 5)
    #expect(try LoadStoreTests.sqlite(old, counts).map { "\($0)" }.first == before.first)
    try Self.expectMatchesCLI(old, inputs: [Self.sample, Self.heartRates])

    // And it holds what a fresh load of the same exports holds; loading them again adds nothing.
    let fresh = directory.appendingPathComponent("fresh.db").path
    #expect(try LoadTests.load([Self.sample, Self.heartRates], db: fresh).status == 0)
    let restored = directory.appendingPathComponent("v2-again.db").path
    try Self.restoreVersionTwo(at: restored)
    let again = try LoadTests.load([Self.sample, Self.heartRates], db: restored)
    #expect(again.stderr.contains("nothing new"), "\(again.stderr)")
    #expect(try Self.rows(restored).map { "\($0)" } == Self.rows(fresh).map { "\($0)" })
    #expect(try LoadStoreTests.content(restored) == LoadStoreTests.content(fresh))
  }
}
