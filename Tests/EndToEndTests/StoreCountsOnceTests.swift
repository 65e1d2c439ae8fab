import Foundation
import Testing

/// Schema version 5: `daily_steps`, `workouts_summary` and `workout_routes_summary` count a rewrite
/// or a duplicated workout once (issue 30, item 3); `daily_steps_as_written` and
/// `workouts_summary_as_written` keep the literal sums. Expected numbers come from Python over the
/// export (``SQLiteExpectations``) or are worked out by hand from the fixture.
@Suite("SQLite views count rewrites and duplicated workouts once")
struct StoreCountsOnceTests {
  /// An export with step rewrites (other creation date, device address, metadata or written
  /// offset), exact duplicates, near misses that are no rewrites (another source, value or end),
  /// workouts with totals written 3 times, modern workouts (totals only in statistics) written
  /// twice with other metadata and events, near misses (another total or statistic), and legacy
  /// inline routes on each copy.
  static func writeExport(to path: String) throws {
    _ = try SQLiteExpectations.python(
      #"""
      import sys, json
      out = open(sys.argv[1], "w", encoding="utf-8")
      out.write('<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n')
      out.write(' <ExportDate value="2024-04-01 10:00:00 +0200"/>\n')
      band = 'sourceName="Mi Fit" sourceVersion="6.1" device="&lt;&lt;HKDevice: 0x%x&gt;, name:Band, manufacturer:Xiaomi, model:Band 7&gt;"'
      phone = 'sourceName="Anna’s iPhone" sourceVersion="17.2" device="&lt;&lt;HKDevice: 0x%x&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2&gt;"'
      def step(source, address, created, start, end, value, meta=""):
          body = ' <Record type="HKQuantityTypeIdentifierStepCount" %s unit="count" creationDate="%s" startDate="%s" endDate="%s" value="%s"' % (
              source % address, created, start, end, value)
          if meta:
              return body + '>\n  <MetadataEntry key="Note" value="%s"/>\n </Record>\n' % meta
          return body + '/>\n'
      # 2024-03-09: the band's 400 written 5 times (creation date, address, metadata; one in +0000),
      # twice exactly alike; the iPhone's 400 at the same times (another source: counts).
      for n, (address, created, meta) in enumerate([(1, "2024-03-09 23:10:00 +0100", ""), (2, "2024-03-09 23:20:00 +0100", ""),
              (3, "2024-03-09 23:30:00 +0100", "again"), (3, "2024-03-09 23:30:00 +0100", "again")]):
          out.write(step(band, address, created, "2024-03-09 23:00:00 +0100", "2024-03-09 23:10:00 +0100", "400", meta))
      out.write(step(band, 4, "2024-03-09 22:40:00 +0000", "2024-03-09 22:00:00 +0000", "2024-03-09 22:10:00 +0000", "400.0"))
      out.write(step(phone, 5, "2024-03-09 23:15:00 +0100", "2024-03-09 23:00:00 +0100", "2024-03-09 23:10:00 +0100", "400"))
      # 2024-03-10: no rewrites among these (value, end or source differ).
      out.write(step(band, 6, "2024-03-10 09:10:00 +0100", "2024-03-10 09:00:00 +0100", "2024-03-10 09:10:00 +0100", "80"))
      out.write(step(band, 7, "2024-03-10 09:20:00 +0100", "2024-03-10 09:00:00 +0100", "2024-03-10 09:10:00 +0100", "81"))
      out.write(step(band, 8, "2024-03-10 09:30:00 +0100", "2024-03-10 09:00:00 +0100", "2024-03-10 09:20:00 +0100", "80"))
      # ... and one sample rewritten 17 times.
      for n in range(17):
          out.write(step(band, 100 + n, "2024-03-10 10:%02d:00 +0100" % (20 + n), "2024-03-10 10:00:00 +0100",
              "2024-03-10 10:10:00 +0100", "500"))

      watch = 'sourceName="Anna’s Apple Watch" sourceVersion="10.2" device="&lt;&lt;HKDevice: 0x%x&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch&gt;"'
      def workout(created, distance="5.2", energy="410", address=1, children=""):
          return (' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" '
              'totalDistance="%s" totalDistanceUnit="km" totalEnergyBurned="%s" totalEnergyBurnedUnit="kcal" %s '
              'creationDate="%s" startDate="2024-03-11 07:00:00 +0100" endDate="2024-03-11 07:30:00 +0100">\n%s </Workout>\n'
              % (distance, energy, watch % address, created, children))
      route = ('  <WorkoutRoute sourceName="Anna’s Apple Watch" sourceVersion="10.2" creationDate="2024-03-11 07:31:00 +0100" '
          'startDate="2024-03-11 07:00:00 +0100" endDate="2024-03-11 07:30:00 +0100">\n'
          + "".join('   <Location date="2024-03-11 07:%02d:00 +0100" latitude="48.85%d" longitude="2.35%d" altitude="%d" '
              'horizontalAccuracy="5" verticalAccuracy="3" course="90" speed="2.5"/>\n' % (i, i, i, 30 + i) for i in range(6))
          + '  </WorkoutRoute>\n')
      # The run of 2024-03-11 written 3 times, identical but for creation date and device address;
      # each copy has its route.
      for n in range(3):
          out.write(workout("2024-03-11 07:3%d:00 +0100" % n, address=n + 1, children=route))
      # Same times, another distance: a workout of its own.
      out.write(workout("2024-03-11 07:40:00 +0100", distance="6.1"))

      def modern(created, sums, extra=""):
          children = "".join('  <WorkoutStatistics type="%s" startDate="2024-03-12 18:00:00 +0100" endDate="2024-03-12 18:45:00 +0100" sum="%s" unit="%s"/>\n'
              % s for s in sums)
          return (' <Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="45" durationUnit="min" %s '
              'creationDate="%s" startDate="2024-03-12 18:00:00 +0100" endDate="2024-03-12 18:45:00 +0100">\n%s%s </Workout>\n'
              % (watch % 9, created, extra, children))
      sums = [("HKQuantityTypeIdentifierActiveEnergyBurned", "520.5", "kcal"), ("HKQuantityTypeIdentifierDistanceCycling", "18.25", "km")]
      # A modern ride written twice (the copy with metadata and an event), and a near miss.
      out.write(modern("2024-03-12 18:46:00 +0100", sums))
      out.write(modern("2024-03-12 18:50:00 +0100", list(reversed(sums)),
          '  <MetadataEntry key="HKIndoorWorkout" value="0"/>\n  <WorkoutEvent type="HKWorkoutEventTypePause" date="2024-03-12 18:10:00 +0100"/>\n'))
      out.write(modern("2024-03-12 18:55:00 +0100", [sums[0], ("HKQuantityTypeIdentifierDistanceCycling", "18.5", "km")]))
      out.write("</HealthData>\n")
      print(json.dumps({}))
      """#, [path])
  }

  /// The fixture's numbers by hand: 2024-03-09 the band's 400 once and the iPhone's 400 (as
  /// written: 5 × 400 + 400); 2024-03-10 80 + 81 + 80 + 500 (as written: 241 + 17 × 500).
  static let stepsOnce = ["2024-03-09|800|2", "2024-03-10|741|4"]
  static let stepsAsWritten = ["2024-03-09|2400|6", "2024-03-10|8741|20"]
  /// Runs: the one written 3 times once, plus the near miss; rides: the one written twice once,
  /// plus the near miss.
  static let summaryOnce = ["Cycling|2|90|36.75|1041", "Running|2|60|11.3|820"]
  static let summaryAsWritten = ["Running|4|120|21.7|1640", "Cycling|3|135|55|1561.5"]

  static func rows(_ db: String, _ query: String) throws -> [String] {
    try LoadStoreTests.sqlite(db, query).map { row in
      row.map { value -> String in
        if let number = value as? NSNumber { return "\(number)" }
        return "\(value)"
      }.joined(separator: "|")
    }
  }

  static let rounded = ["duration_min", "distance", "energy"].map {
    "CASE WHEN round(\($0), 9) = round(\($0)) THEN CAST(round(\($0)) AS INTEGER) ELSE round(\($0), 9) END"
  }.joined(separator: ", ")

  static func views(_ db: String) throws -> [String: [String]] {
    [
      "daily_steps": try rows(db, "SELECT period, steps, samples FROM daily_steps"),
      "daily_steps_as_written": try rows(db, "SELECT period, steps, samples FROM daily_steps_as_written"),
      // The sums are exact doubles (21.700000000000003); the hand values are decimals.
      "workouts_summary": try rows(db, "SELECT activity, count, \(Self.rounded) FROM workouts_summary"),
      "workouts_summary_as_written": try rows(
        db, "SELECT activity, count, \(Self.rounded) FROM workouts_summary_as_written"),
      "workout_routes_summary": try rows(db, "SELECT * FROM workout_routes_summary"),
    ]
  }

  @Test("daily_steps and workouts_summary count once, the _as_written views every copy: as Python and by hand")
  func viewsCountOnce() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("copies.xml").path
    try Self.writeExport(to: input)
    let db = directory.appendingPathComponent("copies.db").path
    let load = try LoadTests.load([input], db: db)
    #expect(load.status == 0, "stderr: \(load.stderr)")
    LoadTests.expectMatches(try SQLiteExpectations.actual(db), try SQLiteExpectations.expected(input))
    let views = try Self.views(db)
    #expect(views["daily_steps"] == Self.stepsOnce)
    #expect(views["daily_steps_as_written"] == Self.stepsAsWritten)
    #expect(views["workouts_summary"] == Self.summaryOnce)
    #expect(views["workouts_summary_as_written"] == Self.summaryAsWritten)
    // Every copy keeps its row (and its route's points); the routes' view has the first run only.
    #expect(try Self.rows(db, "SELECT count(*), sum(copies) FROM records") == ["25|26"])
    #expect(try Self.rows(db, "SELECT count(DISTINCT workout_id) FROM route_points") == ["3"])
    let firstRun = try Self.rows(
      db, "SELECT min(id) FROM workouts WHERE activity_type = 'HKWorkoutActivityTypeRunning'")
    #expect(try Self.rows(db, "SELECT workout_id, points FROM workout_routes_summary") == ["\(firstRun[0])|6"])
  }

  @Test("the band fixture: the unique samples of each day, by hand (Tests/Fixtures/rewrites)")
  func bandFixture() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = RewriteFixture.path
    let db = directory.appendingPathComponent("band.db").path
    #expect(try LoadTests.load([input], db: db).status == 0)
    // RewriteTests' documentation: B1 600, B2 300, P1 200, B3 100, P2 50, B4 80, B5 81, B6 80;
    // B7 500 written 17 times. As written: 4,041 from 15 and 8,500 from 17.
    #expect(
      try Self.rows(db, "SELECT period, steps, samples FROM daily_steps") == ["2024-03-10|1491|8", "2024-03-11|500|1"])
    #expect(
      try Self.rows(db, "SELECT period, steps, samples FROM daily_steps_as_written") == [
        "2024-03-10|4041|15", "2024-03-11|8500|17",
      ])
  }

  @Test("a version-4 database is migrated in place: the same rows, the views of a fresh load")
  func migrationFromVersionFour() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("copies.xml").path
    try Self.writeExport(to: input)
    let fresh = directory.appendingPathComponent("fresh.db").path
    #expect(try LoadTests.load([input], db: fresh).status == 0)
    // Version 4: the same tables (version 5 changed views only) with version 4's views.
    let old = directory.appendingPathComponent("v4.db").path
    try FileManager.default.copyItem(atPath: fresh, toPath: old)
    _ = try SQLiteExpectations.python(
      #"""
      import sys, json, sqlite3
      db = sqlite3.connect(sys.argv[1], isolation_level=None)
      for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'view'").fetchall():
          db.execute(f"DROP VIEW {name}")
      db.executescript(open(sys.argv[2], encoding="utf-8").read())
      db.execute("PRAGMA user_version = 4")
      db.close()
      print(json.dumps({}))
      """#, [old, LoadStoreTests.fixtures.appendingPathComponent("views-v4.sql").path])
    #expect(try Self.rows(old, "SELECT period, steps, samples FROM daily_steps") == Self.stepsAsWritten)
    let content = try LoadStoreTests.content(old)

    let again = try LoadTests.load([input], db: old)
    #expect(again.status == 0, "stderr: \(again.stderr)")
    #expect(again.stderr.contains("nothing new"), "stderr: \(again.stderr)")
    #expect(try Self.rows(old, "PRAGMA user_version") == ["5"])
    #expect(try LoadStoreTests.content(old) == content)
    #expect(try Self.views(old) == Self.views(fresh))
    #expect(try Self.views(old)["daily_steps"] == Self.stepsOnce)
    let master = "SELECT type, name, sql FROM sqlite_master ORDER BY name"
    #expect(try Self.rows(old, master) == Self.rows(fresh, master))
  }
}

/// `Tests/Fixtures/rewrites/export.xml`, a band whose app rewrote its samples (see RewriteTests).
enum RewriteFixture {
  static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/rewrites/export.xml").path
}
