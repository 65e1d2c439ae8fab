import Foundation
import TestSupport
import Testing

/// `load --db postgresql://…` against a real server: a throwaway cluster per test
/// (``PostgresCluster``), stopped however the test ends.
@Suite("Loading into PostgreSQL", .needsPostgres, .serialized)
struct PostgresLoadTests {
  static let sample = Harness.samples.appendingPathComponent("export.zip")

  /// Every table and view of a SQLite store, by name, from the SQLite file itself.
  static func sqliteRelations(_ database: URL) throws -> [(name: String, columns: [String], key: [String])] {
    let script = #"""
      import sqlite3, sys, json
      db = sqlite3.connect(sys.argv[1])
      out = []
      for name, kind in db.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%' ORDER BY name"):
          info = db.execute("SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", (name,)).fetchall()
          key = [c for c, pk in sorted(info, key=lambda r: r[1]) if pk > 0]
          out.append({"name": name, "columns": [c for c, _ in info], "key": key})
      print(json.dumps({"relations": out}))
      """#
    let object = try SQLiteExpectations.python(script, [database.path])
    let relations = object["relations"] as? [[String: Any]] ?? []
    return relations.map {
      ($0["name"] as? String ?? "", $0["columns"] as? [String] ?? [], $0["key"] as? [String] ?? [])
    }
  }

  /// The rows of `relation` in SQLite, as CSV fields (NULL as "", reals as Python's repr).
  static func sqliteRows(_ database: URL, _ sql: String, json: [Int] = []) throws -> [[String]] {
    let script = #"""
      import sqlite3, sys, json
      db = sqlite3.connect(sys.argv[1])
      as_json = {int(i) for i in sys.argv[3].split(",") if i}
      def text(i, v):
          if v is None:
              return ""
          if i in as_json:  # as PostgreSQL writes jsonb
              return json.dumps(json.loads(v), ensure_ascii=False, separators=(", ", ": "))
          return repr(v) if isinstance(v, float) else str(v)
      rows = [[text(i, v) for i, v in enumerate(row)] for row in db.execute(sys.argv[2])]
      print(json.dumps({"rows": rows}))
      """#
    let indexes = json.map(String.init).joined(separator: ",")
    return try SQLiteExpectations.python(script, [database.path, sql, indexes])["rows"] as? [[String]] ?? []
  }

  /// Fields equal as text, or as numbers (PostgreSQL writes `5` where Python writes `5.0`).
  static func same(_ a: String, _ b: String) -> Bool {
    if a == b { return true }
    guard let x = Double(a), let y = Double(b) else { return false }
    return x == y || abs(x - y) <= 1e-12 * max(abs(x), abs(y))
  }

  /// `gen_export.py ARGUMENTS -o export`.
  static func generate(_ arguments: [String], to export: URL) throws {
    let made = try SQLiteExpectations.python(
      """
      import subprocess, sys, json
      subprocess.run([sys.executable, sys.argv[1], *sys.argv[3:], "-o", sys.argv[2]], check=True,
                     stdout=subprocess.DEVNULL)
      print(json.dumps({"ok": True}))
      """, [TestEnvironment.exportGenerator.path, export.path] + arguments)
    #expect(made["ok"] as? Bool == true)
  }

  /// Polls `query` (a count) every 20 ms until it answers 1; false after two minutes.
  static func waitForOne(_ cluster: PostgresCluster, _ query: String) throws -> Bool {
    let deadline = Date().addingTimeInterval(120)
    while Date() < deadline {
      if try cluster.psql(query) == "1\n" { return true }
      usleep(20_000)
    }
    return false
  }

  static func load(_ arguments: [String], environment: [String: String] = [:]) throws -> Harness.Result {
    try Harness.run(["load"] + arguments, environment: environment)
  }

  /// Rows per table of the schema, by psql.
  static func counts(_ cluster: PostgresCluster, schema: String = "healthport") throws -> String {
    try cluster.psql(
      """
      SELECT string_agg(format('%s=%s', table_name,
        (xpath('/row/c/text()', query_to_xml(format('SELECT count(*) AS c FROM %I.%I', table_schema, table_name),
          false, true, '')))[1]::text), ' ' ORDER BY table_name)
      FROM information_schema.tables WHERE table_schema = '\(schema)' AND table_type = 'BASE TABLE'
      """)
  }

  /// Expects every table and view of schema `schema` to hold the rows of the SQLite store `sqlite`.
  static func expectSameStore(sqlite: URL, cluster: PostgresCluster, schema: String = "healthport") throws {
    let relations = try Self.sqliteRelations(sqlite)
    #expect(relations.count > 25)
    for relation in relations {
      // sources.source_key holds NUL characters: bytea in PostgreSQL, compared as hex.
      // When each load ran differs, of course.
      let timing: Set<String> = relation.name == "exports" ? ["started_at", "finished_at", "seconds"] : []
      let columns = relation.columns.filter { !timing.contains($0) }.joined(separator: ", ")
      let sqliteColumns = columns.replacingOccurrences(of: "source_key", with: "lower(hex(source_key))")
      let postgresColumns = columns.replacingOccurrences(of: "source_key", with: "encode(source_key, 'hex')")
      let order =
        relation.key.isEmpty
        ? (1...relation.columns.count).map(String.init).joined(separator: ", ")
        : relation.key.joined(separator: ", ")
      // ecg_recordings.header is jsonb: compared as PostgreSQL writes it.
      let kept = relation.columns.filter { !timing.contains($0) }
      let json = relation.name == "ecg_recordings" ? kept.indices.filter { kept[$0] == "header" } : []
      let expected = try Self.sqliteRows(
        sqlite, "SELECT \(sqliteColumns) FROM \(relation.name) ORDER BY \(order)", json: json)
      let csv = try cluster.psql(
        "SELECT \(postgresColumns) FROM \(schema).\(relation.name) ORDER BY \(order)", csv: true)
      let actual = CSVTestParser.rows(csv)  // psql -t: no header
      #expect(actual.count == expected.count, "\(relation.name): \(actual.count) rows, SQLite has \(expected.count)")
      for (row, (mine, theirs)) in zip(actual, expected).enumerated() {
        let equal = mine.count == theirs.count && zip(mine, theirs).allSatisfy { Self.same($0, $1) }
        #expect(equal, "\(relation.name) row \(row): \(mine) vs SQLite \(theirs)")
        if !equal { break }
      }
    }
  }

  @Test("the same rows as the SQLite store, table by table and view by view")
  func sameRowsAsSQLite() throws {
    let scratch = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let sqlite = scratch.appendingPathComponent("health.db")
    let toSQLite = try Self.load([Self.sample.path, "--db", sqlite.path, "-q"])
    #expect(toSQLite.status == 0, "\(toSQLite.stderr)")
    try PostgresCluster.with { cluster in
      let result = try Self.load([Self.sample.path, "--db", cluster.uri()])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stderr.contains("rows added"), "\(result.stderr)")
      try Self.expectSameStore(sqlite: sqlite, cluster: cluster)
      // A generated timestamptz beside each instant.
      let instants = try cluster.psql(
        "SELECT count(*), count(*) FILTER (WHERE start_at = to_timestamp(start_unix)) FROM healthport.records")
      let parts = instants.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|")
      #expect(parts.count == 2 && parts[0] == parts[1] && parts[0] != "0", "\(instants)")
      #expect(try cluster.psql("SELECT schema_version FROM healthport.meta") == "5\n")
    }
  }

  @Test("a newer export adds only what is new, the same rows as SQLite's incremental load", .needsExportGenerator)
  func newerExportAddsWhatIsNew() throws {
    let scratch = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let a = scratch.appendingPathComponent("a.xml")
    let b = scratch.appendingPathComponent("b.xml")
    // The README's incremental exports A and B of ../shared/bench, shorter.
    let made = try SQLiteExpectations.python(
      """
      import subprocess, sys, json
      common = ["--per-day", "40", "--start", "2021-01-01", "--offsets", "fixed", "--version", "14",
                "--modern-workouts", "--seed", "31"]
      for until, path in (("2021-03-01", sys.argv[2]), ("2021-05-01", sys.argv[3])):
          subprocess.run([sys.executable, sys.argv[1], *common, "--until", until,
                          "--export-date", until + "T18:00:00", "-o", path], check=True, stdout=subprocess.DEVNULL)
      print(json.dumps({"ok": True}))
      """, [TestEnvironment.exportGenerator.path, a.path, b.path])
    #expect(made["ok"] as? Bool == true)
    let sqlite = scratch.appendingPathComponent("health.db")
    for export in [a, b] {
      let result = try Self.load([export.path, "--db", sqlite.path, "-q"])
      #expect(result.status == 0, "\(result.stderr)")
    }
    try PostgresCluster.with { cluster in
      let first = try Self.load([a.path, "--db", cluster.uri(), "-q"])
      #expect(first.status == 0, "\(first.stderr)")
      let records = Int(try cluster.psql("SELECT count(*) FROM healthport.records").dropLast()) ?? 0
      let second = try Self.load([b.path, "--db", cluster.uri()])
      #expect(second.status == 0, "\(second.stderr)")
      let total = Int(try cluster.psql("SELECT count(*) FROM healthport.records").dropLast()) ?? 0
      #expect(records > 0 && total > records, "A: \(records) records, after B: \(total)")
      let added = second.stderr.split(separator: "\n").first { $0.hasPrefix("  records ") }
      let grouped = added.map { $0.replacingOccurrences(of: ",", with: "") }
      #expect(grouped?.hasSuffix(" \(total - records)") == true, "\(second.stderr)")
      try Self.expectSameStore(sqlite: sqlite, cluster: cluster)
    }
  }

  @Test(
    "a new store's big tables go to the server while the export loads: several COPYs, SQLite's rows",
    .needsExportGenerator)
  func newStoreStreamedWhileLoading() throws {
    let scratch = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let export = scratch.appendingPathComponent("export.xml")
    let made = try SQLiteExpectations.python(
      """
      import subprocess, sys, json
      subprocess.run([sys.executable, sys.argv[1], "--mb", "16", "--seed", "5", "-o", sys.argv[2]], check=True,
                     stdout=subprocess.DEVNULL)
      # The first record again at the end: the loader updates its row (copies = 2) long after it was sent.
      lines = open(sys.argv[2], encoding="utf-8").read().splitlines()
      first = next(l for l in lines if l.lstrip().startswith("<Record ") and l.rstrip().endswith("/>"))
      end = max(i for i, l in enumerate(lines) if l.startswith("</HealthData>"))
      open(sys.argv[2], "w", encoding="utf-8").write(chr(10).join(lines[:end] + [first] + lines[end:]) + chr(10))
      print(json.dumps({"ok": True}))
      """, [TestEnvironment.exportGenerator.path, export.path])
    #expect(made["ok"] as? Bool == true)
    let sqlite = scratch.appendingPathComponent("health.db")
    let toSQLite = try Self.load([export.path, "--db", sqlite.path, "-q"])
    #expect(toSQLite.status == 0, "\(toSQLite.stderr)")
    try PostgresCluster.with { cluster in
      // The server logs each statement of this load's session.
      let result = try Self.load(
        [export.path, "--db", cluster.uri(), "-q"], environment: ["PGOPTIONS": "-c log_statement=all"])
      #expect(result.status == 0, "\(result.stderr)")
      let log = try String(contentsOf: cluster.folder.appendingPathComponent("log"), encoding: .utf8)
      let copies = log.split(separator: "\n").filter { $0.contains("statement: COPY records (") }
      // One COPY after each batch the loader committed (20,000 rows), then the rest.
      #expect(copies.count >= 2, "\(copies.count) COPY statements into records")
      #expect(copies.allSatisfy { $0.contains("FREEZE") }, "\(copies)")
      #expect(try cluster.psql("SELECT count(*) FROM healthport.records WHERE copies = 2") == "1\n")
      try Self.expectSameStore(sqlite: sqlite, cluster: cluster)
    }
  }

  @Test("a second person's export without --person is warned about, as in SQLite", .needsExportGenerator)
  func twoPeopleWarn() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (first, second) = try StorePersonCheckTests.twoPeople(in: directory)
    try PostgresCluster.with { cluster in
      let load = try Self.load([first, "--db", cluster.uri(), "-q"])
      #expect(load.status == 0 && load.stderr.isEmpty, "\(load.stderr)")
      let other = try Self.load([second, "--db", cluster.uri(), "-q"])
      #expect(other.status == 0, "\(other.stderr)")
      #expect(
        other.stderr.contains("healthport load: warning: \(second): this looks like another person's export"),
        "\(other.stderr)")
      #expect(other.stderr.contains("--person NAME"), "\(other.stderr)")
      let apart = try Self.load([second, "--db", cluster.uri(), "--person", "alex", "-q"])
      #expect(apart.status == 0 && apart.stderr.isEmpty, "\(apart.stderr)")
    }
  }

  @Test("a load that waits 90 s for another one's lock in vain stops with exit 1", .stress)
  func lockTimeout() throws {
    try PostgresCluster.with { cluster in
      let holder = try cluster.startPSQL(
        "SELECT pg_advisory_lock(hashtext('healthport load healthport')::bigint); SELECT pg_sleep(120)")
      defer {
        _ = try? cluster.psql(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(120)%' AND pid <> pg_backend_pid()"
        )
        PostgresCluster.finish(holder)
      }
      for _ in 0..<200 {
        if try cluster.psql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted") == "1\n" { break }
        usleep(20_000)
      }
      let start = Date()
      let result = try Self.load([Self.sample.path, "--db", cluster.uri(), "-q"])
      let waited = Date().timeIntervalSince(start)
      #expect(result.status == 1)
      #expect(
        result.stderr.hasPrefix("healthport load: error: another load into schema healthport of ")
          && result.stderr.contains("waited 90 s"), "\(result.stderr)")
      #expect(waited >= 90 && waited < 110, "waited \(waited) s")
      #expect(try cluster.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'healthport'") == "0\n")
    }
  }

  @Test(
    "a generated zip with routes and an ECG: the same rows as SQLite, loaded once and twice; the header as jsonb",
    .needsExportGenerator)
  func sideFilesAsInSQLite() throws {
    let scratch = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let zip = scratch.appendingPathComponent("export.zip")
    _ = try SQLiteExpectations.python(
      """
      import subprocess, sys, json
      subprocess.run([sys.executable, sys.argv[1], "--records", "3000", "--zip", "export.xml", "-o", sys.argv[2]],
                     check=True, stdout=subprocess.DEVNULL)
      print(json.dumps({"ok": True}))
      """, [TestEnvironment.exportGenerator.path, zip.path])
    let sqlite = scratch.appendingPathComponent("health.db")
    let toSQLite = try Self.load([zip.path, "--db", sqlite.path, "-q"])
    #expect(toSQLite.status == 0, "\(toSQLite.stderr)")
    try PostgresCluster.with { cluster in
      let result = try Self.load([zip.path, "--db", cluster.uri(), "-q"])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(
        try cluster.psql(
          "SELECT count(*) > 0 AND bool_and(jsonb_typeof(header) = 'array') FROM healthport.ecg_recordings")
          == "t\n")
      #expect(try cluster.psql("SELECT count(*) > 100 FROM healthport.route_points") == "t\n")
      try Self.expectSameStore(sqlite: sqlite, cluster: cluster)
      // Again: only the rows the second load changed go to the server (ECG samples by recording).
      let again = try Self.load([zip.path, "--db", sqlite.path, "-q"])
      #expect(again.status == 0, "\(again.stderr)")
      let second = try Self.load([zip.path, "--db", cluster.uri(), "-q"])
      #expect(second.status == 0, "\(second.stderr)")
      try Self.expectSameStore(sqlite: sqlite, cluster: cluster)
    }
  }

  @Test("a second load of the same export adds nothing")
  func secondLoadAddsNothing() throws {
    try PostgresCluster.with { cluster in
      let first = try Self.load([Self.sample.path, "--db", cluster.uri(), "-q"])
      #expect(first.status == 0, "\(first.stderr)")
      let before = try Self.counts(cluster)
      #expect(before.contains("records=") && !before.contains("records=0 "), "\(before)")
      let second = try Self.load([Self.sample.path, "--db", cluster.uri()])
      #expect(second.status == 0, "\(second.stderr)")
      #expect(second.stderr.contains("nothing new"), "\(second.stderr)")
      let after = try Self.counts(cluster)
      // One more exports row (each load is recorded), nothing else.
      let strip = { (text: String) in
        text.split(separator: " ").filter { !$0.hasPrefix("exports=") }.joined(separator: " ")
      }
      #expect(strip(after) == strip(before), "before \(before)\nafter \(after)")
    }
  }

  /// Sequential scans per table of the schema, once the server has counted every ended session.
  static func sequentialScans(_ cluster: PostgresCluster) throws -> [String: Int] {
    for _ in 0..<100 {
      let others = try cluster.psql(
        "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")
      if others == "0\n" { break }
      usleep(50_000)
    }
    var scans: [String: Int] = [:]
    let text = try cluster.psql(
      "SELECT relname, seq_scan FROM pg_stat_user_tables WHERE schemaname = 'healthport'", csv: true)
    for row in CSVTestParser.rows(text) where row.count == 2 { scans[row[0]] = Int(row[1]) }
    return scans
  }

  @Test("a second load of the same export: SQLite's rows, and the tables it left unchanged only read once")
  func secondLoadSendsOnlyChanges() throws {
    let scratch = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let sqlite = scratch.appendingPathComponent("health.db")
    for _ in 0..<2 {
      let result = try Self.load([Self.sample.path, "--db", sqlite.path, "-q"])
      #expect(result.status == 0, "\(result.stderr)")
    }
    try PostgresCluster.with { cluster in
      let first = try Self.load([Self.sample.path, "--db", cluster.uri(), "-q"])
      #expect(first.status == 0, "\(first.stderr)")
      let before = try Self.sequentialScans(cluster)
      let second = try Self.load([Self.sample.path, "--db", cluster.uri(), "-q"])
      #expect(second.status == 0, "\(second.stderr)")
      let after = try Self.sequentialScans(cluster)
      // Metadata, beats, route points and a workout's children never change when their element is
      // seen again: read once into the private copy, and neither compared nor written back.
      for table in ["metadata", "hrv_beats", "route_points", "workout_events", "workout_statistics"] {
        let scans = (after[table] ?? 0) - (before[table] ?? 0)
        #expect(scans == 1, "\(table): \(scans) sequential scans during the second load")
      }
      try Self.expectSameStore(sqlite: sqlite, cluster: cluster)
    }
  }

  @Test(
    "a second load that changes most of a table writes it anew: SQLite's rows, frozen, with its key and indexes",
    .needsExportGenerator)
  func secondLoadRewritesAChangedTable() throws {
    let scratch = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let export = scratch.appendingPathComponent("export.xml")
    try Self.generate(["--records", "30000", "--seed", "7"], to: export)
    let sqlite = scratch.appendingPathComponent("health.db")
    for _ in 0..<2 {
      let result = try Self.load([export.path, "--db", sqlite.path, "-q"])
      #expect(result.status == 0, "\(result.stderr)")
    }
    try PostgresCluster.with { cluster in
      let indexes =
        "SELECT string_agg(indexdef, E'\\n' ORDER BY indexname) FROM pg_indexes WHERE schemaname = 'healthport'"
      let first = try Self.load([export.path, "--db", cluster.uri(), "-q"])
      #expect(first.status == 0, "\(first.stderr)")
      let before = try cluster.psql(indexes)
      let second = try Self.load([export.path, "--db", cluster.uri(), "-q"])
      #expect(second.status == 0, "\(second.stderr)")
      try Self.expectSameStore(sqlite: sqlite, cluster: cluster)
      #expect(try cluster.psql(indexes) == before)
      // Every record was seen again: the table was written anew, frozen, rather than row by row.
      let notFrozen = try cluster.psql(
        """
        CREATE EXTENSION IF NOT EXISTS pg_visibility;
        SELECT count(*) FROM pg_visibility_map('healthport.records') WHERE NOT all_frozen
        """)
      #expect(notFrozen == "0\n", "records: \(notFrozen) pages not frozen")
    }
  }

  @Test("a new store's rows are written frozen, its keys built after them: no later pass rewrites a page")
  func newStoreWrittenFrozen() throws {
    try PostgresCluster.with { cluster in
      let first = try Self.load([Self.sample.path, "--db", cluster.uri(), "-q"])
      #expect(first.status == 0, "\(first.stderr)")
      // Pages not all-frozen per table (pg_visibility, from the server's contrib): none but meta's,
      // which is written after the rows.
      let notFrozen = try cluster.psql(
        """
        CREATE EXTENSION IF NOT EXISTS pg_visibility;
        SELECT c.relname || '=' || count(*) FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace,
          LATERAL pg_visibility_map(c.oid) AS v
        WHERE n.nspname = 'healthport' AND c.relkind = 'r' AND c.relname <> 'meta' AND NOT v.all_frozen
        GROUP BY c.relname ORDER BY 1
        """)
      #expect(notFrozen == "", "\(notFrozen)")
      let pages = try cluster.psql(
        "SELECT sum(relpages) > 0 FROM pg_class WHERE relnamespace = 'healthport'::regnamespace AND relkind = 'r'")
      #expect(pages == "t\n", "\(pages)")
      // Every table but meta still has its primary key.
      let unkeyed = try cluster.psql(
        """
        SELECT string_agg(c.relname, ' ' ORDER BY c.relname) FROM pg_class AS c
        WHERE c.relnamespace = 'healthport'::regnamespace AND c.relkind = 'r' AND c.relname <> 'meta'
          AND NOT EXISTS (SELECT 1 FROM pg_constraint AS k WHERE k.conrelid = c.oid AND k.contype = 'p')
        """)
      #expect(unkeyed == "\n", "\(unkeyed)")
    }
  }

  @Test("a newer schema version is refused and left untouched")
  func newerSchemaRefused() throws {
    try PostgresCluster.with { cluster in
      let first = try Self.load([Self.sample.path, "--db", cluster.uri(), "-q"])
      #expect(first.status == 0, "\(first.stderr)")
      try cluster.psql("UPDATE healthport.meta SET schema_version = 99")
      let before = try Self.counts(cluster)
      let result = try Self.load([Self.sample.path, "--db", cluster.uri(), "-q"])
      #expect(result.status == 1)
      #expect(
        result.stderr.hasPrefix("healthport load: error: schema healthport of ")
          && result.stderr.contains("version 99, later than this healthport's (5)"), "\(result.stderr)")
      #expect(try Self.counts(cluster) == before)
    }
  }

  /// Rows of a CSV equal field by field (numbers as numbers), over the first `columns` columns.
  static func sameRows(_ a: [[String]], _ b: [[String]], columns: Int) -> Bool {
    a.count == b.count
      && zip(a, b).allSatisfy { x, y in
        x.count >= columns && y.count >= columns
          && zip(x.prefix(columns), y.prefix(columns)).allSatisfy { same($0, $1) }
      }
  }

  @Test("psql reads the views as the commands answer")
  func psqlReadsTheViews() throws {
    try PostgresCluster.with { cluster in
      let load = try Self.load([Self.sample.path, "--db", cluster.uri(), "-q"])
      #expect(load.status == 0, "\(load.stderr)")
      let pairs: [(sql: String, command: [String], columns: Int)] = [
        ("SELECT period, steps, samples FROM healthport.daily_steps", ["steps", "--by", "day"], 3),
        ("SELECT period, steps, samples FROM healthport.daily_steps_dedupe", ["steps", "--dedupe", "--by", "day"], 3),
        (
          "SELECT activity, count, duration_min, distance, energy FROM healthport.workouts_summary",
          ["workouts", "--summary"], 5
        ),
      ]
      for pair in pairs {
        let command = try Harness.run(pair.command + [Self.sample.path, "--format", "csv"])
        #expect(command.status == 0, "\(command.stderr)")
        let expected = Array(CSVTestParser.rows(command.stdoutText).dropFirst())
        let actual = CSVTestParser.rows(try cluster.psql(pair.sql, csv: true))
        #expect(expected.count > 0)
        #expect(
          Self.sameRows(actual, expected, columns: pair.columns),
          "\(pair.sql):\n\(actual)\nvs healthport \(pair.command):\n\(expected)")
      }
    }
  }

  /// Reads three views with pandas through psycopg and with DuckDB's postgres extension (loaded by
  /// path: `LOAD postgres` would try the network); prints {"pandas"|"duckdb": {view: rows}}.
  static let clientScript = #"""
    import sys, json, warnings
    import pandas as pd, psycopg, duckdb
    uri, conninfo, extension = sys.argv[1], sys.argv[2], sys.argv[3]
    queries = {
        "daily_steps": "SELECT period, steps, samples FROM healthport.daily_steps ORDER BY period",
        "daily_steps_dedupe": "SELECT period, steps, samples FROM healthport.daily_steps_dedupe ORDER BY period",
        "workouts_summary": "SELECT activity, count, duration_min, distance, energy FROM healthport.workouts_summary "
                            "ORDER BY count DESC, activity",
    }
    def text(v):
        return "" if v is None or v != v else (repr(float(v)) if isinstance(v, float) else str(v))
    out = {"pandas": {}, "duckdb": {}}
    with psycopg.connect(uri) as conn, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas prefers SQLAlchemy, and reads a DBAPI connection alike
        for name, sql in queries.items():
            frame = pd.read_sql(sql, conn)
            out["pandas"][name] = [[text(v) for v in row] for row in frame.itertuples(index=False)]
    con = duckdb.connect()
    con.execute(f"LOAD '{extension}'")
    con.execute(f"ATTACH '{conninfo}' AS pg (TYPE postgres, READ_ONLY)")
    for name, sql in queries.items():
        rows = con.execute(sql.replace("healthport.", "pg.healthport.")).fetchall()
        out["duckdb"][name] = [[text(v) for v in row] for row in rows]
    print(json.dumps(out))
    """#

  @Test(
    "pandas through psycopg and DuckDB's postgres extension read the views as the commands answer",
    .needsPythonClients)
  func clientsReadTheViews() throws {
    let extensionFile = try #require(
      TestEnvironment.duckDBExtension(named: "postgres_scanner"),
      "duckdb-ext-postgres is not in .venv-clients (run scripts/python-clients.sh)")
    try PostgresCluster.with { cluster in
      let load = try Self.load([Self.sample.path, "--db", cluster.uri(), "-q"])
      #expect(load.status == 0, "\(load.stderr)")
      let conninfo = "host=\(cluster.folder.path) user=postgres dbname=health"
      let run = try TestEnvironment.runClientPython(Self.clientScript, [cluster.uri(), conninfo, extensionFile.path])
      #expect(run.status == 0, "\(run.stderr)")
      let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: [String: [[String]]]]
      let answers: [(view: String, command: [String], columns: Int)] = [
        ("daily_steps", ["steps", "--by", "day"], 3),
        ("daily_steps_dedupe", ["steps", "--dedupe", "--by", "day"], 3),
        ("workouts_summary", ["workouts", "--summary"], 5),
      ]
      for answer in answers {
        let command = try Harness.run(answer.command + [Self.sample.path, "--format", "csv"])
        let expected = Array(CSVTestParser.rows(command.stdoutText).dropFirst())
        #expect(expected.count > 0)
        for client in ["pandas", "duckdb"] {
          let rows = object?[client]?[answer.view] ?? []
          #expect(
            Self.sameRows(rows, expected, columns: answer.columns),
            "\(client) \(answer.view):\n\(rows)\nvs healthport \(answer.command):\n\(expected)")
        }
      }
    }
  }

  @Test(
    "kill -9 in the middle of a load leaves the store as it was; the next load works",
    .needsExportGenerator)
  func killedMidLoad() throws {
    let scratch = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let export = scratch.appendingPathComponent("export.xml")
    try Self.generate(["--mb", "6", "--seed", "3"], to: export)
    try PostgresCluster.with { cluster in
      let first = try Self.load([Self.sample.path, "--db", cluster.uri(), "-q"])
      #expect(first.status == 0, "\(first.stderr)")
      let before = try Self.counts(cluster)
      // The killed load cannot remove its private copy: TMPDIR is this test's folder.
      let pid = try PostgresCluster.spawn(
        [
          "/usr/bin/env", "TMPDIR=\(scratch.path)", Harness.binary.path, "load", export.path, "--db", cluster.uri(),
          "-q",
        ],
        output: scratch.appendingPathComponent("log").path)
      // Wait until rows are on their way to the server, then kill.
      let copying = try Self.waitForOne(
        cluster,
        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY%FROM STDIN%' AND pid <> pg_backend_pid()")
      kill(pid, SIGKILL)
      #expect(PostgresCluster.finish(pid) == 128 + SIGKILL)
      #expect(copying, "the load never reached its COPY")
      #expect(try Self.counts(cluster) == before)
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
      #expect(leftovers.contains { $0.hasPrefix("healthport-postgres-") }, "\(leftovers)")
      let again = try Self.load([export.path, "--db", cluster.uri(), "-q"])
      #expect(again.status == 0, "\(again.stderr)")
      #expect(try Self.counts(cluster) != before)
    }
  }

  @Test(
    "kill -9 while a new store streams: no schema left, another store unchanged, the next load works",
    .needsExportGenerator)
  func killedWhileStreaming() throws {
    let scratch = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let export = scratch.appendingPathComponent("export.xml")
    try Self.generate(["--mb", "16", "--seed", "5"], to: export)
    try PostgresCluster.with { cluster in
      let kept = try Self.load([Self.sample.path, "--db", cluster.uri(), "--schema", "kept", "-q"])
      #expect(kept.status == 0, "\(kept.stderr)")
      let before = try Self.counts(cluster, schema: "kept")
      // The server logs each statement of the load's session; TMPDIR keeps the private copy here.
      let pid = try PostgresCluster.spawn(
        [
          "/usr/bin/env", "TMPDIR=\(scratch.path)", "PGOPTIONS=-c log_statement=all", Harness.binary.path, "load",
          export.path, "--db", cluster.uri(), "-q",
        ],
        output: scratch.appendingPathComponent("stderr").path)
      // Until the stream's first COPY is on the server, then kill.
      let copying = try Self.waitForOne(
        cluster,
        "SELECT count(*) FROM pg_stat_activity WHERE datname = 'health' AND query LIKE 'COPY %' "
          + "AND pid <> pg_backend_pid()")
      kill(pid, SIGKILL)
      #expect(PostgresCluster.finish(pid) == 128 + SIGKILL)
      #expect(copying, "the load never reached its COPY")
      let log = try String(contentsOf: cluster.folder.appendingPathComponent("log"), encoding: .utf8)
      let statements = log.split(separator: "\n").filter { $0.contains("statement: COPY ") }
      #expect(statements.contains { $0.contains("COPY records (") }, "\(statements)")
      // Workouts go to the server only after the export has loaded: the kill came while it loaded.
      #expect(!statements.contains { $0.contains("COPY workouts (") }, "\(statements)")
      #expect(try cluster.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'healthport'") == "0\n")
      #expect(try Self.counts(cluster, schema: "kept") == before)
      let again = try Self.load([export.path, "--db", cluster.uri(), "-q"])
      #expect(again.status == 0, "\(again.stderr)")
      #expect(try cluster.psql("SELECT count(*) > 0 FROM healthport.records") == "t\n")
    }
  }

  @Test(
    "a connection lost while a new store streams stops the load at the next batch: one line, exit 1",
    .needsExportGenerator)
  func connectionLostWhileStreaming() throws {
    let scratch = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let export = scratch.appendingPathComponent("export.xml")
    try Self.generate(["--records", "120000", "--seed", "7"], to: export)
    // The load reads the export from stdin: its first 30,000 records (a batch of 20,000 rows and its
    // COPY), then, once the test says so, the rest but the closing tag, and stdin stays open. A load
    // that only looks at the stream's error after the export's end never ends: it waits for more.
    let feeder = #"""
      import json, os, subprocess, sys, time
      binary, export, uri, go, report, log = sys.argv[1:7]
      lines = open(export, "rb").read().split(b"\n")
      records = [i for i, line in enumerate(lines) if line.lstrip().startswith(b"<Record ")]
      cut = records[30000]
      end = max(i for i, line in enumerate(lines) if line.startswith(b"</HealthData>"))
      with open(log, "wb") as stderr:
          load = subprocess.Popen([binary, "load", "-", "--db", uri, "-q"], stdin=subprocess.PIPE,
                                  stdout=subprocess.DEVNULL, stderr=stderr)
          start = time.monotonic()
          try:
              load.stdin.write(b"\n".join(lines[:cut]) + b"\n")
              load.stdin.flush()
              while not os.path.exists(go) and load.poll() is None:
                  time.sleep(0.05)
              start = time.monotonic()
              load.stdin.write(b"\n".join(lines[cut:end]) + b"\n")
              load.stdin.flush()
          except BrokenPipeError:
              pass
          try:
              status = load.wait(timeout=90)
              early = True
          except subprocess.TimeoutExpired:
              load.kill()
              status = load.wait()
              early = False
          seconds = time.monotonic() - start
      json.dump({"status": status, "early": early, "seconds": seconds, "stderr": open(log).read()},
                open(report, "w"))
      """#
    let go = scratch.appendingPathComponent("go")
    let report = scratch.appendingPathComponent("report.json")
    try PostgresCluster.with { cluster in
      let uri = cluster.uri()
      let pid = try PostgresCluster.spawn(
        [
          "/usr/bin/env", "TMPDIR=\(scratch.path)", "python3", "-c", feeder, Harness.binary.path, export.path, uri,
          go.path, report.path, scratch.appendingPathComponent("stderr").path,
        ],
        output: scratch.appendingPathComponent("feeder").path)
      // Once the stream's first COPY is on the server, the server ends the load's session.
      let ended = try Self.waitForOne(
        cluster,
        "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = 'health' "
          + "AND query LIKE 'COPY %' AND pid <> pg_backend_pid()")
      _ = FileManager.default.createFile(atPath: go.path, contents: nil)
      #expect(PostgresCluster.finish(pid) == 0)
      #expect(ended, "the load never reached its COPY")
      let object = (try? JSONSerialization.jsonObject(with: Data(contentsOf: report))) as? [String: Any] ?? [:]
      #expect(object["early"] as? Bool == true, "the load waited for the end of its input: \(object)")
      #expect(object["status"] as? Int == 1, "\(object)")
      let stderr = object["stderr"] as? String ?? ""
      #expect(
        stderr.hasPrefix("healthport load: error: lost the connection to the PostgreSQL server of \(uri)")
          && stderr.contains("rolled back"), "\(stderr)")
      #expect(stderr.split(separator: "\n").count == 1, "\(stderr)")
      #expect(try cluster.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'healthport'") == "0\n")
    }
  }

  @Test("a second load into one schema waits for the first one's lock")
  func waitsForTheLock() throws {
    try PostgresCluster.with { cluster in
      let holder = try cluster.startPSQL(
        "SELECT pg_advisory_lock(hashtext('healthport load healthport')::bigint); SELECT pg_sleep(4)")
      defer { PostgresCluster.finish(holder) }
      // Until psql holds the lock.
      for _ in 0..<200 {
        let held = try cluster.psql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")
        if held == "1\n" { break }
        usleep(20_000)
      }
      let start = Date()
      let result = try Self.load([Self.sample.path, "--db", cluster.uri(), "-q"])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(Date().timeIntervalSince(start) > 2, "the load did not wait for the lock")
      #expect(try cluster.psql("SELECT count(*) FROM healthport.exports") == "1\n")
    }
  }

  @Test("an older store (a synthetic version 4) is migrated in place and then equals a new one")
  func olderSchemaMigrated() throws {
    try PostgresCluster.with { cluster in
      let fresh = try Self.load([Self.sample.path, "--db", cluster.uri(), "--schema", "fresh", "-q"])
      #expect(fresh.status == 0, "\(fresh.stderr)")
      let old = try Self.load([Self.sample.path, "--db", cluster.uri(), "-q"])
      #expect(old.status == 0, "\(old.stderr)")
      // Version 4 had no unreferenced_routes and no route_points.unreferenced_route_id.
      try cluster.psql(
        """
        DROP VIEW healthport.workout_routes_summary; DROP TABLE healthport.unreferenced_routes;
        ALTER TABLE healthport.route_points DROP COLUMN unreferenced_route_id;
        UPDATE healthport.meta SET schema_version = 4
        """)
      let migrated = try Self.load([Self.sample.path, "--db", cluster.uri()])
      #expect(migrated.status == 0, "\(migrated.stderr)")
      #expect(migrated.stderr.contains("nothing new"), "\(migrated.stderr)")
      #expect(try cluster.psql("SELECT schema_version FROM healthport.meta") == "5\n")
      #expect(try Self.counts(cluster).contains("unreferenced_routes="))
      let strip = { (text: String) in
        text.split(separator: " ").filter { !$0.hasPrefix("exports=") }.joined(separator: " ")
      }
      #expect(strip(try Self.counts(cluster)) == strip(try Self.counts(cluster, schema: "fresh")))
      let columns =
        "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = '%@' "
        + "ORDER BY 1, 2"
      #expect(
        try cluster.psql(columns.replacingOccurrences(of: "%@", with: "healthport"))
          == (try cluster.psql(columns.replacingOccurrences(of: "%@", with: "fresh"))))
      let routes = "SELECT workout_id, points, distance_m FROM %@.workout_routes_summary ORDER BY 1"
      #expect(
        try cluster.psql(routes.replacingOccurrences(of: "%@", with: "healthport"))
          == (try cluster.psql(routes.replacingOccurrences(of: "%@", with: "fresh"))))
    }
  }

  @Test(
    "--postgis: points as geography, route_lines with GiST, ST_Length within 0.5 % of distance_m; refused without the right",
    .enabled(
      if: PostgresCluster.hasPostGIS || TestEnvironment.skippingForbidden,
      "PostGIS is absent (scripts/install-deps.sh installs postgresql-15-postgis-3): skipped"))
  func routesInPostGIS() throws {
    try PostgresCluster.with { cluster in
      try cluster.psql("CREATE ROLE alice LOGIN PASSWORD 'right'; GRANT CREATE ON DATABASE health TO alice")
      let refused = try Self.load(
        [Self.sample.path, "--db", cluster.uri(user: "alice", password: "right"), "--postgis", "-q"])
      #expect(refused.status == 1)
      #expect(
        refused.stderr.hasPrefix("healthport load: error: --postgis: the role may not CREATE EXTENSION postgis")
          && refused.stderr.contains("nothing was changed"), "\(refused.stderr)")
      #expect(try cluster.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'healthport'") == "0\n")
      let load = try Self.load([Self.sample.path, "--db", cluster.uri(), "--postgis", "-q"])
      #expect(load.status == 0, "\(load.stderr)")
      let lines = try cluster.psql(
        """
        SELECT l.workout_id, ST_Length(l.geog), s.distance_m, ST_NPoints(l.geog::geometry), s.points
        FROM healthport.route_lines AS l JOIN healthport.workout_routes_summary AS s USING (workout_id)
        ORDER BY 1
        """, csv: true)
      let rows = CSVTestParser.rows(lines)
      #expect(rows.count == 2, "\(lines)")
      for row in rows {
        let length = Double(row[1]) ?? 0
        let distance = Double(row[2]) ?? -1
        #expect(abs(length - distance) <= 0.005 * distance, "\(row)")
        #expect(row[3] == row[4], "\(row)")
      }
      #expect(
        try cluster.psql(
          "SELECT count(*) = count(geog) AND count(*) > 0 AND bool_and(ST_X(geog::geometry) = longitude) "
            + "FROM healthport.route_points") == "t\n")
      #expect(
        try cluster.psql(
          "SELECT count(*) FROM pg_indexes WHERE schemaname = 'healthport' AND indexdef LIKE '%USING gist%'")
          == "2\n")
      // A second load keeps one line per route file.
      let again = try Self.load([Self.sample.path, "--db", cluster.uri(), "-q"])
      #expect(again.status == 0, "\(again.stderr)")
      #expect(try cluster.psql("SELECT count(*) FROM healthport.route_lines") == "2\n")
    }
  }

  @Test("server down, wrong password, no permission: one clear line each; PGPASSWORD is libpq's")
  func connectionErrors() throws {
    try PostgresCluster.with { cluster in
      try cluster.psql("CREATE ROLE alice LOGIN PASSWORD 'right'; GRANT CREATE ON DATABASE health TO alice")
      try cluster.psql("CREATE ROLE bob LOGIN PASSWORD 'bobs'")
      let wrong = try Self.load([Self.sample.path, "--db", cluster.uri(user: "alice", password: "wrong"), "-q"])
      #expect(wrong.status == 1)
      #expect(
        wrong.stderr.hasPrefix("healthport load: error: the PostgreSQL server of postgresql://alice@/health")
          && wrong.stderr.contains("refused the login") && !wrong.stderr.contains("wrong"), "\(wrong.stderr)")
      #expect(wrong.stderr.split(separator: "\n").count == 1, "\(wrong.stderr)")
      let denied = try Self.load([Self.sample.path, "--db", cluster.uri(user: "bob", password: "bobs"), "-q"])
      #expect(denied.status == 1)
      #expect(
        denied.stderr.hasPrefix("healthport load: error: the PostgreSQL server of postgresql://bob@/health")
          && denied.stderr.contains("permission denied") && denied.stderr.contains("nothing was changed"),
        "\(denied.stderr)")
      #expect(denied.stderr.split(separator: "\n").count == 1, "\(denied.stderr)")
      let viaEnvironment = try Self.load(
        [Self.sample.path, "--db", cluster.uri(user: "alice"), "--schema", "alices", "-q"],
        environment: ["PGPASSWORD": "right"])
      #expect(viaEnvironment.status == 0, "\(viaEnvironment.stderr)")
      #expect(try cluster.psql("SELECT count(*) > 0 FROM alices.records") == "t\n")
      let uri = cluster.uri()
      cluster.stop()
      let down = try Self.load([Self.sample.path, "--db", uri, "-q"])
      #expect(down.status == 1)
      #expect(
        down.stderr.hasPrefix("healthport load: error: cannot reach the PostgreSQL server of \(uri)")
          && down.stderr.contains("is it running"), "\(down.stderr)")
      #expect(down.stderr.split(separator: "\n").count == 1, "\(down.stderr)")
    }
  }
}

/// RFC 4180 CSV as psql --csv writes it.
enum CSVTestParser {
  static func rows(_ text: String) -> [[String]] {
    var rows: [[String]] = []
    var row: [String] = []
    var field = ""
    var quoted = false
    var characters = Array(text).makeIterator()
    var pending: Character? = nil
    while let character = pending ?? characters.next() {
      pending = nil
      if quoted {
        if character == "\"" {
          if let next = characters.next() {
            if next == "\"" {
              field.append("\"")
            } else {
              quoted = false
              pending = next
            }
          } else {
            quoted = false
          }
        } else {
          field.append(character)
        }
        continue
      }
      switch character {
      case "\"": quoted = true
      case ",":
        row.append(field)
        field = ""
      case "\n", "\r\n":
        row.append(field)
        rows.append(row)
        row = []
        field = ""
      default: field.append(character)
      }
    }
    if !field.isEmpty || !row.isEmpty {
      row.append(field)
      rows.append(row)
    }
    return rows
  }
}
