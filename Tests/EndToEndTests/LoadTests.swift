import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `healthport load`: every table's counts, the views, idempotence, incremental loads, people,
/// interruption and foreign databases, checked against Python's xml.etree and sqlite3.
@Suite("healthport load (SQLite)")
struct LoadTests {
  static let sample = Harness.samples.appendingPathComponent("export.xml")

  /// Whole real exports plus the Reyrolle fragments (wrapped in a HealthData root by the test).
  static let realInputs: [String] = {
    var inputs = Harness.realExports().map(\.path)
    if Harness.hasRealFixtures {
      let folder = Harness.realFixtures.appendingPathComponent("NicolasReyrolle-apple-health-analyzer")
      let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
      inputs += names.filter { $0.hasSuffix(".xml") }.sorted().map { folder.appendingPathComponent($0).path }
    }
    return inputs
  }()

  // MARK: Helpers

  static func database(in directory: URL, _ name: String = "health.db") -> String {
    directory.appendingPathComponent(name).path
  }

  /// A fragment (`<Workout …>` or `<Record …>` without a root) wrapped into a small export.
  static func wrapped(_ fragment: String, in directory: URL) throws -> String {
    let body = try String(contentsOfFile: fragment, encoding: .utf8)
    let url = directory.appendingPathComponent(URL(fileURLWithPath: fragment).lastPathComponent)
    let text = """
      <?xml version="1.0" encoding="UTF-8"?>
      <HealthData locale="en_US">
      \(body)
      </HealthData>

      """
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url.path
  }

  static func load(_ inputs: [String], db: String, person: String? = nil, options: [String] = []) throws
    -> Harness.Result
  {
    var arguments = ["load"] + inputs + ["--db", db] + options
    if let person { arguments += ["--person", person] }
    return try Harness.run(arguments)
  }

  /// The database holds exactly what the export says, per table, with the views' numbers.
  static func expectMatches(
    _ actual: [String: Any], _ expected: [String: Any], sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let actualTables = actual["tables"] as? [String: Int] ?? [:]
    for (table, count) in expected["tables"] as? [String: Int] ?? [:] {
      #expect(actualTables[table] == count, "rows in \(table)", sourceLocation: sourceLocation)
    }
    #expect(
      actual["copies"] as? [String: Int] == expected["copies"] as? [String: Int], "copies",
      sourceLocation: sourceLocation)
    for view in ["daily_steps", "daily_steps_as_written"] {
      expectStepsMatch(
        actual[view] as? [[Any]] ?? [], expected[view] as? [[Any]] ?? [], view, sourceLocation: sourceLocation)
    }
    for view in ["workouts_summary", "workouts_summary_as_written"] {
      expectSummaryMatches(
        actual[view] as? [[Any]] ?? [], expected[view] as? [[Any]] ?? [], view, sourceLocation: sourceLocation)
    }
  }

  /// Rows of a `daily_steps` view against the expected `[period, steps, samples]`.
  static func expectStepsMatch(
    _ steps: [[Any]], _ expectedSteps: [[Any]], _ view: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(steps.count == expectedSteps.count, "\(view) rows", sourceLocation: sourceLocation)
    for (row, want) in zip(steps, expectedSteps) {
      #expect(row[0] as? String == want[0] as? String, sourceLocation: sourceLocation)
      let got = (row[1] as? NSNumber)?.doubleValue ?? .nan
      let wanted = (want[1] as? NSNumber)?.doubleValue ?? .nan
      #expect(abs(got - wanted) < 1e-6, "\(view): steps on \(want[0])", sourceLocation: sourceLocation)
      #expect(row[2] as? Int == want[2] as? Int, "\(view): samples on \(want[0])", sourceLocation: sourceLocation)
    }
  }

  /// Rows of a `workouts_summary` view against the expected ones.
  static func expectSummaryMatches(
    _ summary: [[Any]], _ expectedSummary: [[Any]], _ view: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(summary.count == expectedSummary.count, "\(view) rows", sourceLocation: sourceLocation)
    for (row, want) in zip(summary, expectedSummary) {
      #expect(row[0] as? String == want[0] as? String, sourceLocation: sourceLocation)
      #expect(row[1] as? Int == want[1] as? Int, "\(view): count of \(want[0])", sourceLocation: sourceLocation)
      for column in 2...4 {
        let got = (row[column] as? NSNumber)?.doubleValue
        let wanted = (want[column] as? NSNumber)?.doubleValue
        if let got, let wanted {
          #expect(
            abs(got - wanted) < 0.0015, "\(view): column \(column) of \(want[0])", sourceLocation: sourceLocation)
        } else {
          #expect(
            got == nil && wanted == nil, "\(view): column \(column) of \(want[0])", sourceLocation: sourceLocation)
        }
      }
    }
  }

  // MARK: Loads

  @Test("Samples/export.xml: every table, the copies and both views agree with Python")
  func samples() throws {
    try #require(FileManager.default.fileExists(atPath: Self.sample.path), "Samples/export.xml is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = Self.database(in: directory)
    let result = try Self.load([Self.sample.path], db: db)
    #expect(result.status == 0, "stderr: \(result.stderr)")
    #expect(result.stderr.contains("rows added"))
    // The WAL is checkpointed and removed at the end.
    #expect(!FileManager.default.fileExists(atPath: db + "-wal"))
    let actual = try SQLiteExpectations.actual(db)
    Self.expectMatches(actual, try SQLiteExpectations.expected(Self.sample.path))
    #expect(actual["application_id"] as? Int == 0x4850_5254)
    #expect(actual["user_version"] as? Int == 5)
    // The sample has every table's kind of row: a test of an empty table could not fail.
    let tables = actual["tables"] as? [String: Int] ?? [:]
    for table in [
      "records", "metadata", "hrv_beats", "correlations", "correlation_records", "workouts",
      "workout_events", "workout_activities", "workout_statistics", "workout_routes", "activity_summaries", "me",
      "other_elements", "sources",
    ] {
      #expect((tables[table] ?? 0) > 0, "\(table) is empty")
    }
  }

  @Test("real exports load with the counts Python finds", .needsRealFixtures, arguments: realInputs)
  func realExport(path: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = path.contains("NicolasReyrolle") ? try Self.wrapped(path, in: directory) : path
    let db = Self.database(in: directory)
    let result = try Self.load([input], db: db)
    #expect(result.status == 0, "stderr: \(result.stderr)")
    Self.expectMatches(try SQLiteExpectations.actual(db), try SQLiteExpectations.expected(input))
  }

  @Test("loading the same export again adds zero rows and does not raise copies")
  func reload() throws {
    try #require(FileManager.default.fileExists(atPath: Self.sample.path), "Samples/export.xml is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = Self.database(in: directory)
    // The zip first: it holds the routes' GPX files too, which export.xml alone does not.
    #expect(try Self.load([Harness.samples.appendingPathComponent("export.zip").path], db: db).status == 0)
    let first = try SQLiteExpectations.actual(db)
    let again = try Self.load([Self.sample.path], db: db)
    #expect(again.status == 0, "stderr: \(again.stderr)")
    #expect(again.stderr.contains("0 rows added"))
    let second = try SQLiteExpectations.actual(db)
    #expect(second["tables"] as? [String: Int] == first["tables"] as? [String: Int])
    #expect(second["copies"] as? [String: Int] == first["copies"] as? [String: Int])
    let exports = second["exports"] as? [[Any]] ?? []
    #expect(exports.count == 2)
    #expect(exports.allSatisfy { $0[1] as? Int == 1 }, "both loads completed")
    #expect(exports.last?[2] as? Int == 0, "the second load added nothing")
    #expect(exports.last?[3] as? Int == exports.first?[3] as? Int, "both read every record")
  }

  @Test("a newer export (dates in another offset) adds only what is new")
  func incremental() throws {
    try #require(FileManager.default.fileExists(atPath: Self.sample.path), "Samples/export.xml is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    // The older export: the sample without its last 10 Records and last Workout, every date
    // rewritten in UTC-05:00 (the same instants), as an export made in another season would be.
    let older = directory.appendingPathComponent("older.xml").path
    _ = try SQLiteExpectations.python(
      #"""
      import sys, json, re
      from datetime import datetime, timedelta, timezone
      data = open(sys.argv[1], encoding="utf-8").read()
      records = [m.start() for m in re.finditer(r"\n <Record ", data)]
      workouts = [m.start() for m in re.finditer(r"\n <Workout ", data)]
      def element_end(start, tag):
          end = data.index(">", start)
          if data[end - 1] == "/":
              return end + 1
          close = "</" + tag + ">"
          return data.index(close, start) + len(close)
      cuts = [(s, element_end(s, "Record")) for s in records[-10:]] + [(workouts[-1], element_end(workouts[-1], "Workout"))]
      for s, e in sorted(cuts, reverse=True):
          data = data[:s] + data[e:]
      zone = timezone(timedelta(hours=-5))
      def shift(m):
          d = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S %z").astimezone(zone)
          return '"' + d.strftime("%Y-%m-%d %H:%M:%S %z") + '"'
      data = re.sub(r'"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4})"', shift, data)
      open(sys.argv[2], "w", encoding="utf-8").write(data)
      print(json.dumps({"records_removed": len(cuts)}))
      """#, [Self.sample.path, older])

    let direct = Self.database(in: directory, "direct.db")
    #expect(try Self.load([Self.sample.path], db: direct).status == 0)
    let stepwise = Self.database(in: directory, "stepwise.db")
    #expect(try Self.load([older], db: stepwise).status == 0)
    let partial = try SQLiteExpectations.actual(stepwise)
    let newer = try Self.load([Self.sample.path], db: stepwise)
    #expect(newer.status == 0, "stderr: \(newer.stderr)")

    let want = try SQLiteExpectations.actual(direct)
    let got = try SQLiteExpectations.actual(stepwise)
    #expect(got["tables"] as? [String: Int] == want["tables"] as? [String: Int])
    #expect(got["copies"] as? [String: Int] == want["copies"] as? [String: Int])
    let partialRecords = (partial["tables"] as? [String: Int])?["records"] ?? 0
    let allRecords = (want["tables"] as? [String: Int])?["records"] ?? 0
    #expect(partialRecords < allRecords, "the older export has fewer records")
    let exports = got["exports"] as? [[Any]] ?? []
    #expect(exports.last?[4] as? Int == allRecords - partialRecords, "the newer load added only the new records")
  }

  @Test("--person keeps several people apart in one database")
  func people() throws {
    try #require(FileManager.default.fileExists(atPath: Self.sample.path), "Samples/export.xml is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = Self.database(in: directory)
    #expect(try Self.load([Self.sample.path], db: db, person: "alice").status == 0)
    #expect(try Self.load([Self.sample.path], db: db, person: "bob").status == 0)
    let expected = try SQLiteExpectations.expected(Self.sample.path)
    for person in ["alice", "bob"] {
      Self.expectMatches(try SQLiteExpectations.actual(db, person: person), expected)
    }
    let nobody = try SQLiteExpectations.actual(db, person: "")
    #expect((nobody["tables"] as? [String: Int])?["records"] == 0)
  }

  @Test("heart-rate beats keep their records, positions, values and extras, in long and short lists")
  func beats() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("beats.xml").path
    // Lists of 0 to 70 beats (several multi-row statements and a remainder), one beat with an
    // unknown attribute, one list with an unknown child.
    _ = try SQLiteExpectations.python(
      #"""
      import sys, json, random
      random.seed(3)
      out = open(sys.argv[1], "w", encoding="utf-8")
      out.write('<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n')
      for i, n in enumerate([0, 1, 31, 32, 33, 64, 70, 5, 40, 40]):
          out.write(' <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Watch" unit="ms" '
              'startDate="2024-01-%02d 08:00:00 +0100" endDate="2024-01-%02d 08:01:00 +0100" value="%d">\n'
              '  <HeartRateVariabilityMetadataList>\n' % (i + 1, i + 1, 40 + i))
          for b in range(n):
              extra = ' note="x"' if (i, b) == (8, 7) else ''
              out.write('   <InstantaneousBeatsPerMinute bpm="%d" time="8:00:%02d.%02d AM"%s/>\n'
                  % (random.randint(50, 120), b % 60, random.randint(0, 99), extra))
          if i == 9:
              out.write('   <Unknown a="1"/>\n')
          out.write('  </HeartRateVariabilityMetadataList>\n </Record>\n')
      out.write("</HealthData>\n")
      print(json.dumps({}))
      """#, [input])
    let db = Self.database(in: directory)
    let run = try Self.load([input], db: db)
    #expect(run.status == 0, "stderr: \(run.stderr)")
    let compared = try SQLiteExpectations.python(
      #"""
      import sys, json, sqlite3
      import xml.etree.ElementTree as ET
      want = []
      for r in ET.parse(sys.argv[1]).getroot():
          for lst in r:
              for position, b in enumerate(lst):
                  if b.tag == "InstantaneousBeatsPerMinute":
                      want.append([r.get("startDate"), position, int(b.get("bpm")), b.get("time")])
      db = sqlite3.connect(sys.argv[2])
      got = [list(row) for row in db.execute(
          "SELECT r.start_date, b.position, b.bpm, b.time FROM hrv_beats b JOIN records r ON r.id = b.record_id "
          "ORDER BY b.id")]
      extras = [list(row) for row in db.execute(
          "SELECT owner_kind, kind, name, value FROM extras ORDER BY id")]
      print(json.dumps({"want": want, "got": got, "extras": extras}))
      """#, [input, db])
    let want = compared["want"] as? [[AnyHashable]] ?? []
    #expect(want.count == 316)
    #expect(compared["got"] as? [[AnyHashable]] == want, "beats in document order, each with its record")
    let extras = compared["extras"] as? [[String]] ?? []
    #expect(extras.contains(["hrv_beat", "attribute", "note", "x"]))
    #expect(extras.contains { $0.first == "hrv_list" && $0[2] == "Unknown" })
  }

  // MARK: Interruption

  /// A synthetic export of `records` records (with metadata and exact duplicates) and workouts.
  static func generate(records: Int, to path: String) throws {
    _ = try SQLiteExpectations.python(
      #"""
      import sys, json, random
      n = int(sys.argv[1])
      random.seed(7)
      out = open(sys.argv[2], "w", encoding="utf-8")
      out.write('<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n')
      out.write(' <ExportDate value="2024-12-03 20:15:42 +0100"/>\n')
      dev = "&lt;&lt;HKDevice: 0x%x&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.1&gt;"
      base = 1700000000
      for i in range(n):
          t = base + i * 60
          def date(s):
              import time
              return time.strftime("%Y-%m-%d %H:%M:%S +0100", time.gmtime(s + 3600))
          kind = i % 3
          if kind == 0:
              line = (' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" sourceVersion="10.1" device="%s" unit="count" creationDate="%s" startDate="%s" endDate="%s" value="%d"/>\n'
                  % (dev % random.getrandbits(32), date(t + 60), date(t), date(t + 60), random.randint(1, 200)))
          else:
              line = (' <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" sourceVersion="10.1" device="%s" unit="count/min" creationDate="%s" startDate="%s" endDate="%s" value="%d">\n  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="%d"/>\n </Record>\n'
                  % (dev % random.getrandbits(32), date(t + 5), date(t), date(t), random.randint(50, 150), i % 3))
          out.write(line)
          if i % 97 == 0:
              out.write(line)
          if i % 1000 == 0:
              out.write(' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" sourceVersion="10.1" creationDate="%s" startDate="%s" endDate="%s">\n  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="%s" endDate="%s" sum="5.2" unit="km"/>\n </Workout>\n'
                  % (date(t + 1800), date(t), date(t + 1800), date(t), date(t + 1800)))
      out.write("</HealthData>\n")
      print(json.dumps({}))
      """#, [String(records), path])
  }

  @Test("a load killed mid-way (SIGKILL) and run again ends with the same rows as an uninterrupted one")
  func interrupted() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("big.xml").path
    try Self.generate(records: 80_000, to: input)

    // Both databases exist before (a new database is built under another name and appears only
    // when complete: see newDatabaseInterrupted).
    let seed = directory.appendingPathComponent("seed.xml").path
    try Self.generate(records: 10, to: seed)
    let clean = Self.database(in: directory, "clean.db")
    let killed = Self.database(in: directory, "killed.db")
    #expect(try Self.load([seed], db: clean).status == 0)
    #expect(try Self.load([seed], db: killed).status == 0)
    let cleanRun = try Self.load([input], db: clean)
    #expect(cleanRun.status == 0, "stderr: \(cleanRun.stderr)")

    var interruptions = 0
    // Whether each attempt was killed or ended by itself (the second attempt may finish inside
    // its moment, as it resumes a load half done, or be killed while it exits).
    var killedAttempts: [Bool] = []
    // The first attempt is killed once a batch is committed, the second one after a moment,
    // wherever it is.
    for attempt in 0..<2 {
      let process = Process()
      process.executableURL = Harness.binary
      process.arguments = ["load", input, "--db", killed, "--quiet"]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      let started = Date()
      if attempt == 0 {
        // Wait until a batch is committed: a reader sees Records (in the file or its WAL). The
        // files' sizes say nothing, as uncommitted pages spill into the WAL too.
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        watcher.arguments = [
          "python3", "-c",
          """
          import sqlite3, sys, time
          deadline = time.time() + 120
          while time.time() < deadline:
              try:
                  db = sqlite3.connect(sys.argv[1], timeout=0.05)
                  count = db.execute("select count(*) from records").fetchone()[0]
                  db.close()
                  if count > 10: break
              except sqlite3.Error:
                  pass
              time.sleep(0.01)
          """,
          killed,
        ]
        try watcher.run()
        watcher.waitUntilExit()
      } else {
        while process.isRunning, Date().timeIntervalSince(started) < 1.5 { usleep(5_000) }
      }
      if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        interruptions += 1
      }
      process.waitUntilExit()
      killedAttempts.append(process.terminationReason == .uncaughtSignal)
    }
    #expect(interruptions >= 1, "the load finished before it could be killed: make the input larger")
    let partial = try SQLiteExpectations.actual(killed)
    let rerun = try Self.load([input], db: killed)
    #expect(rerun.status == 0, "stderr: \(rerun.stderr)")

    let want = try SQLiteExpectations.actual(clean)
    let got = try SQLiteExpectations.actual(killed)
    #expect(got["tables"] as? [String: Int] == want["tables"] as? [String: Int])
    #expect(got["copies"] as? [String: Int] == want["copies"] as? [String: Int])
    #expect((got["daily_steps"] as? [[Any]])?.count == (want["daily_steps"] as? [[Any]])?.count)
    // The seed's ten records are the first rows of both.
    // The killed loads are recorded as incomplete; the seed's load and the rerun completed.
    let exports = got["exports"] as? [[Any]] ?? []
    #expect(exports.first?[1] as? Int == 1)
    #expect(exports.last?[1] as? Int == 1)
    // The first attempt, killed once a batch was in, is incomplete. The second, killed after its
    // moment, may have completed just before, or (on a loaded machine) not have begun its
    // export yet; if it ended by itself, it completed.
    let attempts = exports.dropFirst().dropLast().map { $0[1] as? Int }
    #expect(attempts.first == 0, "exports: \(exports)")
    let secondBegan = attempts.count == 2
    #expect(secondBegan || (attempts.count == 1 && killedAttempts.last == true), "exports: \(exports)")
    if secondBegan, killedAttempts.last == false { #expect(attempts.last == 1, "exports: \(exports)") }
    let partialRecords = (partial["tables"] as? [String: Int])?["records"] ?? 0
    #expect(partialRecords > 10, "the killed load had committed something")
  }

  // MARK: Refusals

  static func checksum(_ path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
  }

  @Test("a SQLite database that is not healthport's is refused and left unchanged")
  func foreignDatabase() throws {
    try #require(FileManager.default.fileExists(atPath: Self.sample.path), "Samples/export.xml is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = Self.database(in: directory, "other.db")
    _ = try SQLiteExpectations.python(
      #"""
      import sys, json, sqlite3
      db = sqlite3.connect(sys.argv[1])
      db.execute("CREATE TABLE records (id INTEGER PRIMARY KEY, note TEXT)")
      db.execute("INSERT INTO records (note) VALUES ('mine')")
      db.commit()
      db.close()
      print(json.dumps({}))
      """#, [db])
    let before = try Self.checksum(db)
    let result = try Self.load([Self.sample.path], db: db)
    #expect(result.status == 1)
    #expect(result.stderr.contains("not created by healthport"), "stderr: \(result.stderr)")
    #expect(try Self.checksum(db) == before)
    #expect(!FileManager.default.fileExists(atPath: db + "-wal"))
  }

  @Test("a file that is not a database is refused and left unchanged")
  func notADatabase() throws {
    try #require(FileManager.default.fileExists(atPath: Self.sample.path), "Samples/export.xml is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = Self.database(in: directory, "notes.txt")
    try String(repeating: "my notes, not a database\n", count: 200).write(
      toFile: path, atomically: true, encoding: .utf8)
    let before = try Self.checksum(path)
    let result = try Self.load([Self.sample.path], db: path)
    #expect(result.status == 1)
    #expect(result.stderr.contains("not a SQLite database"), "stderr: \(result.stderr)")
    #expect(try Self.checksum(path) == before)
  }

  @Test("load without --db is a usage error")
  func missingDatabase() throws {
    let result = try Harness.run(["load", Self.sample.path])
    #expect(result.status == 64)
    #expect(result.stderr.contains("--db"))
  }

  @Test("a missing input fails before any database is created")
  func missingInput() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = Self.database(in: directory)
    let result = try Self.load([directory.appendingPathComponent("nope.zip").path], db: db)
    #expect(result.status == 1)
    #expect(result.stderr.contains("nope.zip"))
    #expect(!FileManager.default.fileExists(atPath: db))
  }

  @Test("a malformed export leaves the database consistent, and its complete elements in it")
  func malformedInput() throws {
    try #require(FileManager.default.fileExists(atPath: Self.sample.path), "Samples/export.xml is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let truncated = directory.appendingPathComponent("truncated.xml")
    let data = try Data(contentsOf: Self.sample)
    try data.prefix(data.count / 2).write(to: truncated)
    let db = Self.database(in: directory)
    // A new database is not created from a damaged export…
    let refused = try Self.load([truncated.path], db: db)
    #expect(refused.status == 65, "stderr: \(refused.stderr)")
    #expect(!FileManager.default.fileExists(atPath: db))
    // …unless --keep-partial asks for what was read before the damage.
    let result = try Self.load([truncated.path], db: db, options: ["--keep-partial"])
    #expect(result.status == 65, "stderr: \(result.stderr)")
    let actual = try SQLiteExpectations.actual(db)
    #expect((actual["exports"] as? [[Any]])?.allSatisfy { $0[1] as? Int == 0 } == true)
    // The whole export loads afterwards as if nothing had happened.
    #expect(try Self.load([Self.sample.path], db: db).status == 0)
    Self.expectMatches(try SQLiteExpectations.actual(db), try SQLiteExpectations.expected(Self.sample.path))
  }

  // MARK: The views against the CLI

  /// True when the built binary has `command` (steps and workouts come from another branch).
  static func hasCommand(_ command: String) -> Bool {
    guard let result = try? Harness.run([command, "--help"]) else { return false }
    return result.status == 0
  }

  /// True when `command` collapses rewrites and duplicated workouts by default (it then takes
  /// `--keep-rewrites` for the literal sums): the views named `…_as_written` give the literal sums.
  static func countsOnce(_ command: String) -> Bool {
    (try? Harness.run([command, "--help"]))?.stdoutText.contains("--keep-rewrites") ?? false
  }

  /// The view that gives the numbers of `command` without flags.
  static func viewOfPlain(_ command: String, _ view: String) -> String {
    countsOnce(command) ? view : view + "_as_written"
  }

  /// CSV rows without the header (the CLI quotes nothing in these tables).
  static func csvRows(_ text: String) -> [[String]] {
    text.split(separator: "\n").dropFirst().map {
      $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
  }

  @Test("daily_steps(_as_written) gives the numbers of healthport steps", .enabled(if: hasCommand("steps")))
  func dailyStepsMatchesCLI() throws {
    try #require(FileManager.default.fileExists(atPath: Self.sample.path), "Samples/export.xml is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = Self.database(in: directory)
    #expect(try Self.load([Self.sample.path], db: db).status == 0)
    let cli = try Harness.run(["steps", Self.sample.path, "--format", "csv"])
    #expect(cli.status == 0, "stderr: \(cli.stderr)")
    let rows = Self.csvRows(cli.stdoutText)
    let view = try SQLiteExpectations.actual(db)[Self.viewOfPlain("steps", "daily_steps")] as? [[Any]] ?? []
    #expect(rows.count == view.count)
    for (row, viewRow) in zip(rows, view) {
      #expect(row[0] == viewRow[0] as? String)
      #expect(relativelyClose(Double(row[1]) ?? .nan, (viewRow[1] as? NSNumber)?.doubleValue ?? .nan), "\(row)")
      #expect(Int(row[2]) == viewRow[2] as? Int)
    }
  }

  @Test(
    "workouts_summary(_as_written) gives the numbers of healthport workouts --summary",
    .enabled(if: hasCommand("workouts")))
  func workoutsSummaryMatchesCLI() throws {
    try #require(FileManager.default.fileExists(atPath: Self.sample.path), "Samples/export.xml is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = Self.database(in: directory)
    #expect(try Self.load([Self.sample.path], db: db).status == 0)
    let cli = try Harness.run(["workouts", Self.sample.path, "--summary", "--format", "csv"])
    #expect(cli.status == 0, "stderr: \(cli.stderr)")
    let rows = Self.csvRows(cli.stdoutText)
    let view =
      try SQLiteExpectations.actual(db)[Self.viewOfPlain("workouts", "workouts_summary")] as? [[Any]] ?? []
    #expect(rows.count == view.count)
    for (row, viewRow) in zip(rows, view) {
      #expect(row[0] == viewRow[0] as? String)
      #expect(Int(row[1]) == viewRow[1] as? Int)
      for column in 2...4 {
        let got = (viewRow[column] as? NSNumber)?.doubleValue
        if row[column].isEmpty {
          #expect(got == nil, "column \(column) of \(row[0])")
        } else {
          let cli = Double(row[column]) ?? .nan
          #expect(relativelyClose(cli, got ?? .nan), "column \(column) of \(row[0]): \(cli) vs \(got ?? .nan)")
        }
      }
    }
  }
}
