import Foundation
import TestSupport
import Testing

/// `--split` tables: after each date as written, `<stem>ISO` and `<stem>UTC`, derived; DuckDB
/// types them as timestamps; the reader ignores them and reads folders without them too.
@Suite("--split: ISO and UTC columns beside each date", .needsPythonClients)
struct SplitDateColumnsTests {
  /// Every date column of every table against its derived columns, computed apart by Python's
  /// strptime; DuckDB's types for StepCount.csv; then the folder rewritten without them (argv[2]).
  static let script = #"""
    import csv, datetime, glob, json, os, sys, duckdb
    folder, bare, docs = sys.argv[1], sys.argv[2], open(sys.argv[3], encoding="utf-8").read()
    # docs/csv.md's query on the derived columns, as written but for the folder.
    query = docs.split("**Dates.**", 1)[1].split("```sql\n", 1)[1].split("```", 1)[0]
    daily = duckdb.sql(query.replace("'out/", "'" + folder + "/")).fetchall()
    problems, checked = [], 0
    os.makedirs(bare)
    for path in sorted(glob.glob(os.path.join(folder, "*.csv"))):
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        header = rows[0]
        derived = [i for i, name in enumerate(header) if name.endswith(("ISO", "UTC"))]
        for i in derived:
            date = header[i - 1] if header[i].endswith("ISO") else header[i - 2]
            for row in rows[1:]:
                text = row[header.index(date)]
                try: when = datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S %z")
                except ValueError: when = None
                if header[i].endswith("ISO"): want = when.isoformat() if when else ""
                else: want = when.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if when else ""
                if row[i] != want: problems.append(f"{os.path.basename(path)} {header[i]}: {row[i]!r} for {text!r}")
                checked += 1
        with open(os.path.join(bare, os.path.basename(path)), "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
            for row in rows: writer.writerow([c for j, c in enumerate(row) if j not in derived])
    types = dict(zip(*(lambda r: (r.columns, map(str, r.types)))(duckdb.sql(f"SELECT * FROM read_csv_auto('{folder}/StepCount.csv')"))))
    print(json.dumps({"problems": problems[:20], "checked": checked, "days": len(daily), "steps": sum(r[1] for r in daily),
                      "types": {k: types[k] for k in ("startDate", "startISO", "startUTC")}}))
    """#

  @Test("derived ISO and UTC columns, typed by DuckDB, ignored on reading; folders without them still read")
  func derivedDates() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let sample = Harness.samples.appendingPathComponent("export.zip").path
    let split = directory.appendingPathComponent("split").path
    let bare = directory.appendingPathComponent("bare").path
    #expect(try Harness.run(["convert", sample, "--to", "csv", "--split", "-o", split, "--quiet"]).status == 0)
    let events = try String(contentsOfFile: split + "/workout_events.csv", encoding: .utf8)
    #expect(
      events.hasPrefix(Harness.csvHeader("id,parent_id,workout_id,type,date,dateISO,dateUTC,duration,durationUnit")))
    let docs = Harness.repoRoot.appendingPathComponent("docs/csv.md").path
    let result = try TestEnvironment.runClientPython(Self.script, [split, bare, docs])
    #expect(result.status == 0, "\(result.stderr)")
    let report = try Harness.json(Data(result.stdout.utf8)) as? [String: Any] ?? [:]
    #expect(report["problems"] as? [String] == [], "\(report)")
    #expect((report["checked"] as? Int ?? 0) > 400, "\(report)")
    // The docs' query: the sample's steps per UTC day (27 StepCount records, 17,851 steps).
    #expect(report["steps"] as? Double == 17_851, "\(report)")
    #expect(
      report["types"] as? [String: String] == [
        "startDate": "VARCHAR", "startISO": "TIMESTAMP WITH TIME ZONE", "startUTC": "TIMESTAMP WITH TIME ZONE",
      ])
    // The folder, and the folder without the derived columns, read back as the export.
    let original = try Harness.run(["convert", sample, "--to", "xml"])
    for folder in [split, bare] {
      let back = try Harness.run(["convert", folder, "--to", "xml"])
      #expect(back.status == 0, "\(back.stderr)")
      #expect(back.stdout == original.stdout, "\(folder)")
    }
  }
}
