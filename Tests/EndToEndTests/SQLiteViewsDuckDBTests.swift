import Foundation
import TestSupport
import Testing

/// Every view of a loaded database read through DuckDB's SQLite scanner and through SQLite: the
/// same rows, numbers within 1e-9 (the views are portable SQL, see the README's "Views").
@Suite("SQLite views through DuckDB")
struct SQLiteViewsDuckDBTests {
  @Test("every view gives the same rows in DuckDB's SQLite scanner as in SQLite", .needsPythonClients)
  func viewsAgree() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("views.db").path
    let generated = directory.appendingPathComponent("gen.xml").path
    try LoadTests.generate(records: 2_000, to: generated)
    #expect(try LoadTests.load([LoadTests.sample.path], db: db).status == 0)
    #expect(try LoadTests.load([LoadStoreTests.rewrites], db: db, person: "anna").status == 0)
    #expect(try LoadTests.load([generated], db: db, person: "gen").status == 0)
    // The zip's routes, for workout_routes_summary.
    #expect(
      try LoadTests.load([Harness.samples.appendingPathComponent("export.zip").path], db: db, person: "zip").status == 0
    )
    let run = try TestEnvironment.runClientPython(
      #"""
      import sys, os, json, math, sqlite3, duckdb
      path = sys.argv[1]
      lite = sqlite3.connect(path)
      views = [r[0] for r in lite.execute("SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name")]
      duck = duckdb.connect()
      duck.execute("LOAD '%s'" % os.environ["DUCKDB_SQLITE_EXTENSION"].replace("'", "''"))
      duck.execute("ATTACH '%s' AS h (TYPE sqlite, READ_ONLY)" % path.replace("'", "''"))
      report = {"views": views, "problems": [], "rows": {}}
      def norm(rows):
          return sorted([tuple(v for v in r) for r in rows], key=lambda r: tuple(str(v) for v in r))
      for view in views:
          a = norm(lite.execute(f'SELECT * FROM "{view}"').fetchall())
          try:
              b = norm(duck.execute(f'SELECT * FROM h."{view}"').fetchall())
          except Exception as e:
              report["problems"].append(f"{view}: DuckDB: {e}")
              continue
          report["rows"][view] = len(a)
          if len(a) != len(b):
              report["problems"].append(f"{view}: {len(a)} rows in SQLite, {len(b)} in DuckDB")
              continue
          for x, y in zip(a, b):
              for u, v in zip(x, y):
                  if isinstance(u, (int, float)) and isinstance(v, (int, float)) and not isinstance(u, bool):
                      if not (abs(u - v) <= 1e-9 * max(1.0, abs(u))):
                          report["problems"].append(f"{view}: {x} vs {y}")
                  elif u != v:
                      report["problems"].append(f"{view}: {x} vs {y}")
      print(json.dumps(report))
      """#, [db])
    #expect(run.status == 0, "stderr: \(run.stderr)")
    let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] ?? [:]
    #expect(
      report["views"] as? [String] == [
        "daily_steps", "daily_steps_as_written", "daily_steps_dedupe", "workout_routes_summary", "workouts_summary",
        "workouts_summary_as_written",
      ])
    #expect(report["problems"] as? [String] == [], "\(report["problems"] ?? "")")
    // Views with rows of every person: a comparison of empty views could not fail.
    for (view, rows) in report["rows"] as? [String: Int] ?? [:] {
      #expect(rows > (view == "workout_routes_summary" ? 1 : 3), "\(view)")
    }
  }
}
