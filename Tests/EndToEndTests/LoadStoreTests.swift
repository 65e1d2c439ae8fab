import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Schema version 2 of `load`: rewrites kept as rows, the migration of version-1 databases,
/// truncated inputs, new databases, refusals that add nothing, locks, and a second person.
@Suite("healthport load: keys, migration, damage, new databases")
struct LoadStoreTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/sqlite")
  /// Rewrites (same sample, other creationDate and device address), exact duplicates, samples
  /// without creationDate, a workout written twice.
  static let rewrites = fixtures.appendingPathComponent("rewrites.xml").path

  static func sqlite(_ db: String, _ query: String) throws -> [[Any]] {
    let result = try SQLiteExpectations.python(
      #"""
      import sys, json, sqlite3
      db = sqlite3.connect(sys.argv[1])
      print(json.dumps({"rows": [list(r) for r in db.execute(sys.argv[2]).fetchall()]}))
      """#, [db, query])
    return result["rows"] as? [[Any]] ?? []
  }

  /// Every row of the sample tables, without ids and load bookkeeping, sorted: what two
  /// databases must both hold to hold the same.
  static let contentQuery = """
    SELECT 'r', type, s.source_key, unit, value_text, value_num, creation_date, creation_unix, creation_key,
      start_date, start_unix, start_local_day, end_date, end_unix, content_hash, copies,
      (SELECT count(*) FROM metadata m WHERE m.owner_kind = 'record' AND m.owner_id = r.id)
    FROM records r JOIN sources s ON s.id = r.source_id
    UNION ALL
    SELECT 'w', activity_type, s.source_key, duration, creation_date, creation_key, start_unix, end_unix, copies,
      NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM workouts w JOIN sources s ON s.id = w.source_id
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
    """

  static func content(_ db: String) throws -> String {
    let rows = try sqlite(db, contentQuery)
    return rows.map { row in row.map { "\($0)" }.joined(separator: "|") }.joined(separator: "\n")
  }

  // MARK: Keys

  @Test(
    "every record is its own row, rewrites included; exact duplicates share one with copies; reloading adds nothing")
  func rewritesAreRows() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("r.db").path
    let first = try LoadTests.load([Self.rewrites], db: db)
    #expect(first.status == 0, "stderr: \(first.stderr)")
    // Python: Records per (type, source, start, end, creation, unit, value, metadata); the device
    // address is no part of it.
    let expected = try SQLiteExpectations.python(
      #"""
      import sys, json, re
      import xml.etree.ElementTree as ET
      root = ET.parse(sys.argv[1]).getroot()
      keys = {}
      for r in root.findall("Record"):
          a = dict(r.attrib)
          a["device"] = re.sub(r"0x[0-9a-f]+", "", a.get("device", ""))
          key = (tuple(sorted(a.items())), tuple(tuple(sorted(c.attrib.items())) for c in r))
          keys[key] = keys.get(key, 0) + 1
      print(json.dumps({"rows": len(keys), "records": sum(keys.values()),
          "copies": sorted(v for v in keys.values() if v > 1)}))
      """#, [Self.rewrites])
    let rows = try Self.sqlite(db, "SELECT count(*), sum(copies) FROM records")
    #expect(rows.first?[0] as? Int == expected["rows"] as? Int)
    #expect(rows.first?[1] as? Int == expected["records"] as? Int)
    let copies = try Self.sqlite(db, "SELECT copies FROM records WHERE copies > 1 ORDER BY copies")
    #expect(copies.map { $0[0] as? Int } == (expected["copies"] as? [Int] ?? []).map { $0 })
    // Rows without creationDate carry the sentinel, so that reloading finds them.
    let sentinel = try Self.sqlite(db, "SELECT count(*) FROM records WHERE creation_key = -9223372036854775808")
    #expect(sentinel.first?[0] as? Int == 2)
    // The workout written twice with two creation dates is two rows.
    #expect(
      try Self.sqlite(db, "SELECT count(*), sum(copies) FROM workouts").first?.compactMap { $0 as? Int } == [2, 2])

    let before = try Self.content(db)
    let again = try LoadTests.load([Self.rewrites], db: db)
    #expect(again.status == 0)
    #expect(again.stderr.contains("nothing new"), "stderr: \(again.stderr)")
    #expect(try Self.content(db) == before)
  }

  /// The table holds every row as written, so the query is compared with `--keep-rewrites`.
  @Test("avg(value_num) of heart rate per start_local_day gives what healthport stats --keep-rewrites gives")
  func heartRatePerDay() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("r.db").path
    #expect(try LoadTests.load([Self.rewrites], db: db).status == 0)
    let stats = try Harness.run([
      "stats", "--type", "HeartRate", "--by", "day", "--format", "csv", "--keep-rewrites", Self.rewrites,
    ])
    #expect(stats.status == 0, "stderr: \(stats.stderr)")
    let cli = LoadTests.csvRows(stats.stdoutText).map { ($0[0], Double($0[1]) ?? .nan, Int($0[2]) ?? -1) }
    #expect(cli.count == 2)
    // Weighted by copies, the query agrees on every day.
    let weighted = try Self.sqlite(
      db,
      """
      SELECT start_local_day, sum(value_num * copies) / sum(copies), sum(copies) FROM records
      WHERE type = 'HKQuantityTypeIdentifierHeartRate' GROUP BY start_local_day ORDER BY start_local_day
      """)
    #expect(weighted.count == cli.count)
    for (row, want) in zip(weighted, cli) {
      #expect(row[0] as? String == want.0)
      #expect(relativelyClose((row[1] as? NSNumber)?.doubleValue ?? .nan, want.1), "day \(want.0)")
      #expect(row[2] as? Int == want.2)
    }
    // The plain average agrees on the day without exact duplicates (2018-03-18): the band's
    // rewrites there are rows of their own (version 1 kept one of them).
    let plain = try Self.sqlite(
      db,
      """
      SELECT start_local_day, avg(value_num), count(*) FROM records
      WHERE type = 'HKQuantityTypeIdentifierHeartRate' GROUP BY start_local_day ORDER BY start_local_day
      """)
    #expect(plain.first?[0] as? String == "2018-03-18")
    #expect(relativelyClose((plain.first?[1] as? NSNumber)?.doubleValue ?? .nan, cli[0].1))
    #expect(plain.first?[2] as? Int == cli[0].2)
  }

  @Test("daily_steps_dedupe equals healthport steps --dedupe --by day; daily_steps(_as_written) equals steps")
  func dedupeView() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("gen.xml").path
    try LoadTests.generate(records: 3_000, to: input)
    for path in [Self.rewrites, input, LoadTests.sample.path] {
      let db = directory.appendingPathComponent(URL(fileURLWithPath: path).lastPathComponent + ".db").path
      #expect(try LoadTests.load([path], db: db).status == 0)
      var views = [("daily_steps_dedupe", ["--dedupe"]), (LoadTests.viewOfPlain("steps", "daily_steps"), [])]
      if LoadTests.countsOnce("steps") { views.append(("daily_steps_as_written", ["--keep-rewrites"])) }
      for (view, flags) in views {
        let steps = try Harness.run(["steps", "--by", "day", "--format", "csv"] + flags + [path])
        #expect(steps.status == 0, "stderr: \(steps.stderr)")
        let cli = LoadTests.csvRows(steps.stdoutText)
        let rows = try Self.sqlite(db, "SELECT period, steps, samples FROM \(view) WHERE person = ''")
        #expect(rows.count == cli.count, "\(view) of \(path)")
        for (row, want) in zip(rows, cli) {
          #expect(row[0] as? String == want[0])
          #expect(
            relativelyClose((row[1] as? NSNumber)?.doubleValue ?? .nan, Double(want[1]) ?? .nan),
            "\(view) steps on \(want[0])")
          #expect(row[2] as? Int == Int(want[2]), "\(view) samples on \(want[0])")
        }
      }
    }
  }

  // MARK: Migration

  /// A version-1 database written by the previous release, from its `.dump`.
  static func versionOne(at path: String) throws {
    _ = try SQLiteExpectations.python(
      #"""
      import sys, json, sqlite3
      db = sqlite3.connect(sys.argv[1], isolation_level=None)
      db.executescript(open(sys.argv[2], encoding="utf-8").read())
      db.close()
      print(json.dumps({}))
      """#, [path, fixtures.appendingPathComponent("v1-rewrites.sql").path])
  }

  @Test("a version-1 database is migrated in place; loaded again it holds what a fresh load holds")
  func migration() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let old = directory.appendingPathComponent("v1.db").path
    try Self.versionOne(at: old)
    #expect(try Self.sqlite(old, "PRAGMA user_version").first?[0] as? Int == 1)
    // Version 1 collapsed the rewrites: 37 rows for 53 records.
    #expect(
      try Self.sqlite(old, "SELECT count(*), sum(copies) FROM records").first?.compactMap { $0 as? Int } == [37, 53])
    let stepsBefore = try Self.sqlite(old, "SELECT period, steps, samples FROM daily_steps")

    let fresh = directory.appendingPathComponent("fresh.db").path
    #expect(try LoadTests.load([Self.rewrites], db: fresh).status == 0)

    let load = try LoadTests.load([Self.rewrites], db: old)
    #expect(load.status == 0, "stderr: \(load.stderr)")
    #expect(try Self.sqlite(old, "PRAGMA user_version").first?[0] as? Int == 5)
    #expect(try Self.content(old) == Self.content(fresh))
    #expect(try Self.sqlite(old, "SELECT * FROM daily_steps").count == stepsBefore.count)
    for view in ["daily_steps", "daily_steps_dedupe", "workouts_summary"] {
      let a = try Self.sqlite(old, "SELECT * FROM \(view)").map { "\($0)" }
      let b = try Self.sqlite(fresh, "SELECT * FROM \(view)").map { "\($0)" }
      #expect(a == b, "\(view)")
    }
    // A second load adds nothing.
    let before = try Self.content(old)
    let again = try LoadTests.load([Self.rewrites], db: old)
    #expect(again.stderr.contains("nothing new"), "stderr: \(again.stderr)")
    #expect(try Self.content(old) == before)
  }

  @Test("the migration alone keeps every row and count, and views still read the same numbers")
  func migrationOnly() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let old = directory.appendingPathComponent("v1.db").path
    try Self.versionOne(at: old)
    let stepsBefore = try Self.sqlite(old, "SELECT period, steps, samples FROM daily_steps").map { "\($0)" }
    // Loading an unrelated export migrates the database and adds only that export.
    let other = directory.appendingPathComponent("other.xml").path
    try LoadTests.generate(records: 3, to: other)
    #expect(try LoadTests.load([other], db: old, person: "bob").status == 0)
    #expect(try Self.sqlite(old, "PRAGMA user_version").first?[0] as? Int == 5)
    #expect(
      try Self.sqlite(old, "SELECT count(*), sum(copies) FROM records WHERE person = ''").first?.compactMap {
        $0 as? Int
      } == [37, 53])
    let stepsAfter = try Self.sqlite(
      old, "SELECT period, steps, samples FROM daily_steps_as_written WHERE person = ''"
    ).map { "\($0)" }
    #expect(stepsAfter == stepsBefore)
    #expect(
      try Self.sqlite(old, "SELECT count(*) FROM records WHERE person = '' AND start_local_day = '2018-03-18'")
        .first?[0] as? Int ?? 0 > 0)
  }

  // MARK: Damage

  @Test("a truncated export keeps every complete Record before the cut, at many offsets")
  func truncatedAtManyOffsets() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("small.xml").path
    try LoadTests.generate(records: 300, to: input)
    let data = try Data(contentsOf: URL(fileURLWithPath: input))
    let offsets = stride(from: 200, to: data.count, by: data.count / 23).map { $0 } + [data.count - 2]
    // Python: top-level Records whose end ('/>' or '</Record>') lies inside the cut.
    let counted = try SQLiteExpectations.python(
      #"""
      import sys, json, re
      data = open(sys.argv[1], "rb").read()
      ends = [m.end() for m in re.finditer(rb'<Record [^>]*/>|<Record [^>]*[^/]>.*?</Record>', data, re.S)]
      print(json.dumps({"counts": [sum(1 for e in ends if e <= int(n)) for n in sys.argv[2:]]}))
      """#, [input] + offsets.map(String.init))
    let counts = counted["counts"] as? [Int] ?? []
    #expect(counts.count == offsets.count)
    for (offset, count) in zip(offsets, counts) {
      let cut = directory.appendingPathComponent("cut-\(offset).xml")
      try data.prefix(offset).write(to: cut)
      let db = directory.appendingPathComponent("cut-\(offset).db").path
      let result = try LoadTests.load([cut.path], db: db, options: ["--keep-partial"])
      #expect(result.status == 65, "cut at \(offset): \(result.stderr)")
      let records = try Self.sqlite(db, "SELECT coalesce(sum(copies), 0) FROM records").first?[0] as? Int
      #expect(records == count, "cut at \(offset)")
      let exports = try Self.sqlite(db, "SELECT completed, records_read, records_added FROM exports")
      #expect(exports.count == 1, "cut at \(offset)")
      #expect(exports.first?[0] as? Int == 0)
      #expect(exports.first?[1] as? Int == count, "records_read, cut at \(offset)")
      let rows = try Self.sqlite(db, "SELECT count(*) FROM records").first?[0] as? Int
      #expect(exports.first?[2] as? Int == rows, "records_added, cut at \(offset)")
    }
  }

  @Test("a truncated export into an existing database commits the batch in flight up to the damage")
  func truncatedIntoExisting() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("small.xml").path
    try LoadTests.generate(records: 300, to: input)
    let data = try Data(contentsOf: URL(fileURLWithPath: input))
    let cut = directory.appendingPathComponent("cut.xml")
    try data.prefix(data.count * 2 / 3).write(to: cut)
    let db = directory.appendingPathComponent("x.db").path
    #expect(try LoadTests.load([Self.rewrites], db: db).status == 0)
    let result = try LoadTests.load([cut.path], db: db)
    #expect(result.status == 65)
    let exports = try Self.sqlite(db, "SELECT completed, records_read FROM exports ORDER BY id")
    #expect(exports.count == 2)
    #expect((exports.last?[1] as? Int ?? 0) > 150)
    #expect(!FileManager.default.fileExists(atPath: db + "-wal"))
  }

  // MARK: New databases

  @Test("an input found empty before its first element creates nothing")
  func emptyInputCreatesNothing() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let work = directory.appendingPathComponent("work")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    let empty = directory.appendingPathComponent("empty")
    try Data().write(to: empty)
    let db = work.appendingPathComponent("x.db").path
    let result = try Harness.run(["load", "--db", db], stdin: empty)
    #expect(result.status == 65, "stderr: \(result.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).isEmpty)
  }

  @Test("a new database killed mid-load leaves nothing at its path; the rerun builds it whole")
  func newDatabaseInterrupted() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("big.xml").path
    try LoadTests.generate(records: 80_000, to: input)
    let db = directory.appendingPathComponent("new.db").path
    let process = Process()
    process.executableURL = Harness.binary
    process.arguments = ["load", input, "--db", db, "--quiet"]
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Until the temporary database has pages of records.
    let temporary = db + ".healthport-\(process.processIdentifier)"
    let deadline = Date().addingTimeInterval(60)
    while process.isRunning, Date() < deadline {
      if let size = try? FileManager.default.attributesOfItem(atPath: temporary)[.size] as? Int, size > 1 << 20 {
        break
      }
      usleep(2_000)
    }
    #expect(process.isRunning, "the load finished before it could be killed: make the input larger")
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    #expect(!FileManager.default.fileExists(atPath: db))
    let rerun = try LoadTests.load([input], db: db)
    #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
    LoadTests.expectMatches(try SQLiteExpectations.actual(db), try SQLiteExpectations.expected(input))
    // The new database is a plain file: no journal or WAL beside it.
    #expect(!FileManager.default.fileExists(atPath: db + "-wal"))
    #expect(!FileManager.default.fileExists(atPath: db + "-journal"))
  }

  @Test("a new database in a folder that does not exist fails with a plain message")
  func missingFolder() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("no/such/folder/x.db").path
    let result = try LoadTests.load([Self.rewrites], db: db)
    #expect(result.status == 1)
    #expect(result.stderr.contains("x.db: error: cannot create the database"), "stderr: \(result.stderr)")
    #expect(!result.stderr.contains(".healthport-"), "stderr: \(result.stderr)")
  }

  // MARK: Refusals and locks

  @Test("a database of a later schema version is refused and left exactly as it was, nothing beside it")
  func laterVersionRefused() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("future.db").path
    #expect(try LoadTests.load([Self.rewrites], db: db).status == 0)
    // The next version, in WAL mode as a load leaves an existing database.
    _ = try SQLiteExpectations.python(
      #"""
      import sys, json, sqlite3
      db = sqlite3.connect(sys.argv[1])
      db.execute("PRAGMA journal_mode = WAL")
      db.execute("PRAGMA user_version = 6")
      db.commit()
      db.close()
      print(json.dumps({}))
      """#, [db])
    let before = try Data(contentsOf: URL(fileURLWithPath: db))
    let listing = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    let result = try LoadTests.load([Self.rewrites], db: db)
    #expect(result.status == 1)
    #expect(result.stderr.contains("schema version 6"), "stderr: \(result.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == listing)
  }

  @Test("a second load into a database another holds waits for it, then proceeds")
  func secondLoadWaits() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("x.db").path
    #expect(try LoadTests.load([Self.rewrites], db: db).status == 0)
    // Another writer holds the write lock for 3 s.
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    holder.arguments = [
      "python3", "-c",
      """
      import sqlite3, sys, time
      db = sqlite3.connect(sys.argv[1], isolation_level=None)
      db.execute("BEGIN IMMEDIATE")
      print("locked", flush=True)
      time.sleep(3)
      db.execute("COMMIT")
      """,
      db,
    ]
    let pipe = Pipe()
    holder.standardOutput = pipe
    try holder.run()
    _ = pipe.fileHandleForReading.readData(ofLength: 6)
    let started = Date()
    let other = directory.appendingPathComponent("other.xml").path
    try LoadTests.generate(records: 30, to: other)
    let result = try LoadTests.load([other], db: db)
    holder.waitUntilExit()
    #expect(result.status == 0, "stderr: \(result.stderr)")
    #expect(Date().timeIntervalSince(started) > 1.5)
  }

  @Test("two loads of a new database at once: one builds it, the other adds to it or says so plainly")
  func twoNewLoads() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("gen.xml").path
    try LoadTests.generate(records: 20_000, to: input)
    let db = directory.appendingPathComponent("x.db").path
    var processes: [(Process, URL)] = []
    for n in 0..<2 {
      let process = Process()
      process.executableURL = Harness.binary
      process.arguments = ["load", input, "--db", db, "--quiet"]
      let err = directory.appendingPathComponent("err\(n)")
      _ = FileManager.default.createFile(atPath: err.path, contents: nil)
      process.standardError = try FileHandle(forWritingTo: err)
      processes.append((process, err))
    }
    for (process, _) in processes { try process.run() }
    var succeeded = 0
    for (process, err) in processes {
      process.waitUntilExit()
      let stderr = String(decoding: try Data(contentsOf: err), as: UTF8.self)
      #expect(!stderr.contains("database is locked"), "\(stderr)")
      if process.terminationStatus == 0 {
        succeeded += 1
      } else {
        #expect(process.terminationStatus == 1)
        #expect(stderr.contains("another load"), "\(stderr)")
      }
    }
    #expect(succeeded >= 1)
    LoadTests.expectMatches(try SQLiteExpectations.actual(db), try SQLiteExpectations.expected(input))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("healthport-") }
        .isEmpty)
  }

  @Test("loading a second person's export without --person warns and suggests --person")
  func secondPerson() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("x.db").path
    #expect(try LoadTests.load([Self.rewrites], db: db).status == 0)
    // The same person again gets no warning.
    #expect(!(try LoadTests.load([Self.rewrites], db: db).stderr.contains("warning")))
    let text = try String(contentsOfFile: Self.rewrites, encoding: .utf8)
    let bob = directory.appendingPathComponent("bob.xml")
    try text.replacingOccurrences(of: "1980-05-04", with: "1975-11-30")
      .replacingOccurrences(of: "HKBiologicalSexFemale", with: "HKBiologicalSexMale").write(
        to: bob, atomically: true, encoding: .utf8)
    let result = try LoadTests.load([bob.path], db: db)
    #expect(result.status == 0)
    #expect(result.stderr.contains("warning"), "stderr: \(result.stderr)")
    #expect(result.stderr.contains("--person"), "stderr: \(result.stderr)")
    // The other one with --person gets no warning.
    #expect(!(try LoadTests.load([bob.path], db: db, person: "bob").stderr.contains("warning")))
  }
}
