import Foundation
import TestSupport
import Testing

/// Incremental equals fresh (issue 30, item 10): `load A; load B` holds what `load B` alone holds,
/// when A writes every date in −0800 and B in −0700. Each load rewrites the date strings, offsets
/// and local days of the rows it sees again to its own: the latest export wins.
@Suite("SQLite: an incremental load holds what a fresh load of the latest export holds")
struct StoreIncrementalTests {
  /// `../shared/bench/gen_export.py`'s incremental exports A and B (its README), over a shorter
  /// span to keep them small (1.4 and 2.3 MB): A exported on 2021-03-01 (−0800), B on 2021-06-01
  /// (−0700), every date in the export's offset, the same history up to A's last day.
  static func generate(until: String, to path: String, seed: Int = 31) throws {
    let run = try Harness.runTool(
      "/usr/bin/env",
      [
        "python3", TestEnvironment.exportGenerator.path, "--per-day", "40", "--start", "2021-01-01", "--until", until,
        "--offsets", "fixed", "--export-date", "\(until)T18:00:00", "--version", "14", "--modern-workouts", "--seed",
        "\(seed)", "-o", path,
      ])
    try #require(run.status == 0, "gen_export.py: \(run.output)")
  }

  static func exportA(in directory: URL) throws -> String {
    let path = directory.appendingPathComponent("a.xml").path
    try generate(until: "2021-03-01", to: path)
    return path
  }

  static func exportB(in directory: URL) throws -> String {
    let path = directory.appendingPathComponent("b.xml").path
    try generate(until: "2021-06-01", to: path)
    return path
  }

  /// Every data table and view of a database, each row with its foreign keys replaced by the
  /// rows they point to (recursively, so ids never count), without `id`, `export_id`,
  /// `seen_export` and `seen_count`; `exports` aside. Rows sorted: equal dumps hold the same data.
  static let dumpScript = #"""
    import sys, json, sqlite3
    db = sqlite3.connect(sys.argv[1])
    SKIP = {"id", "export_id", "seen_export", "seen_count"}
    REFERENCES = {"source_id": "sources", "record_id": "records", "correlation_id": "correlations",
        "workout_id": "workouts", "activity_id": "workout_activities", "route_id": "workout_routes",
        "recording_id": "ecg_recordings"}
    OWNERS = {"record": "records", "hrv_list": "records", "hrv_beat": "hrv_beats", "correlation": "correlations",
        "correlation_record": "correlation_records", "workout": "workouts", "workout_event": "workout_events",
        "workout_activity": "workout_activities", "workout_statistics": "workout_statistics",
        "workout_route": "workout_routes", "file_reference": "workout_routes", "route_location": "route_locations",
        "activity_summary": "activity_summaries", "me": "me", "metadata": "metadata"}
    objects = db.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') "
        "AND name NOT LIKE 'sqlite_%' AND name != 'exports' ORDER BY name").fetchall()
    columns = {name: [c[1] for c in db.execute(f'PRAGMA table_info("{name}")')] for name, _ in objects}
    memo = {}
    def identity(table, row_id):
        if row_id is None:
            return None
        if table == "sources":  # the natural key stands for the row (compared in full as a table)
            return db.execute("SELECT source_key FROM sources WHERE id = ?", (row_id,)).fetchone()[0]
        key = (table, row_id)
        if key not in memo:
            memo[key] = "?"  # no cycles in this schema; a guard all the same
            row = db.execute(f'SELECT * FROM "{table}" WHERE id = ?', (row_id,)).fetchone()
            memo[key] = None if row is None else resolve(table, dict(zip(columns[table], row)))
        return memo[key]
    def resolve(table, row):
        out = []
        for name, value in row.items():
            if name in SKIP:
                continue
            if name in REFERENCES:
                value = identity(REFERENCES[name], value)
            elif name == "owner_id":
                value = identity(OWNERS[row["owner_kind"]], value)
            out.append([name, value])
        return out
    dump = {}
    for name, kind in objects:
        rows = [resolve(name, dict(zip(columns[name], r))) for r in db.execute(f'SELECT * FROM "{name}"')]
        dump[name] = sorted(json.dumps(r, sort_keys=True) for r in rows)
    print(json.dumps({"dump": dump}))
    """#

  static func dump(_ db: String) throws -> [String: [String]] {
    let result = try SQLiteExpectations.python(dumpScript, [db])
    return result["dump"] as? [String: [String]] ?? [:]
  }

  @Test("load A; load B equals load B: every data table and view, rows by natural key", .needsExportGenerator)
  func incrementalEqualsFresh() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let a = try Self.exportA(in: directory)
    let b = try Self.exportB(in: directory)
    let stepwise = directory.appendingPathComponent("ab.db").path
    let fresh = directory.appendingPathComponent("b.db").path
    #expect(try LoadTests.load([a], db: stepwise).status == 0)
    let second = try LoadTests.load([b], db: stepwise)
    #expect(second.status == 0, "stderr: \(second.stderr)")
    #expect(try LoadTests.load([b], db: fresh).status == 0)

    let got = try Self.dump(stepwise)
    let want = try Self.dump(fresh)
    #expect(got.keys.sorted() == want.keys.sorted())
    for (table, rows) in want.sorted(by: { $0.key < $1.key }) {
      let other = got[table] ?? []
      guard other != rows else { continue }
      let (mine, theirs) = (Set(other), Set(rows))
      let missing = rows.filter { !mine.contains($0) }
      let extra = other.filter { !theirs.contains($0) }
      let example = { (rows: [String]) in rows.first.map { String($0.prefix(600)) } ?? "" }
      Issue.record(
        Comment(
          rawValue: "\(table): \(other.count) rows after A then B, \(rows.count) after B alone; \(missing.count) "
            + "missing, e.g. \(example(missing)); \(extra.count) extra, e.g. \(example(extra))"))
    }
    // Tables and views that were empty could not tell: the exports fill these.
    for table in [
      "records", "metadata", "hrv_beats", "correlations", "correlation_records", "workouts", "workout_activities",
      "workout_events", "workout_statistics", "workout_routes", "activity_summaries", "other_elements",
      "daily_steps", "daily_steps_dedupe", "workouts_summary",
    ] {
      #expect((want[table] ?? []).count > 0, "\(table) is empty")
    }
    // The dates are B's: every record written in −0700.
    #expect(
      try LoadStoreTests.sqlite(stepwise, "SELECT DISTINCT start_offset_min FROM records").map { $0.first as? Int }
        == [-420])
  }
}
