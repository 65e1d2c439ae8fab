import Foundation
import TestSupport
import Testing

/// One schema whatever the layout: every table of the dataset read by DuckDB
/// (`hive_partitioning = true`) and pyarrow (`partitioning="hive"`) has the same columns and rows
/// with no partitioning, `type`, `year` and `type,year`, with and without `--person`.
@Suite("convert --to parquet: one schema whatever the layout", .needsPythonClients)
struct ParquetSchemaTests {
  static let layouts = ["", "type", "year", "type,year"]

  /// For each dataset folder given, every table as DuckDB and pyarrow read it: columns and types,
  /// and the rows (sorted); the first folder is the reference. Prints the problems as JSON.
  static let script = #"""
    import contextlib, io, json, os, sys, duckdb
    import pyarrow.dataset as ds
    docs, folders = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2:]
    problems, checked = [], {}
    def canonical(rows):
        return sorted(repr(sorted(r.items())) for r in rows)
    # The queries of docs/parquet.md's "Reading it back", as written but for the folder.
    section = docs.split("### Reading it back", 1)[1].split("\n## ", 1)[0]
    sql = section.split("```sql\n", 1)[1].split("```", 1)[0]
    python = section.split("```python\n", 1)[1].split("```", 1)[0]
    def documented(folder):
        quoted = folder.replace("'", "''")
        namespace = {}
        with contextlib.redirect_stdout(io.StringIO()):
            exec(python.replace('"DIR/', '"' + folder + "/"), namespace)
        arrow = canonical(namespace["records"].to_pylist())
        return duckdb.sql(sql.replace("'DIR/", "'" + quoted + "/")).fetchall(), arrow
    answers = [documented(folder) for folder in folders]
    for folder, answer in zip(folders[1:], answers[1:]):
        if answer[0] != answers[0][0]: problems.append(f"{folder}: the DuckDB query of the docs: {answer[0]} != {answers[0][0]}")
        if answer[1] != answers[0][1]: problems.append(f"{folder}: the pyarrow call of the docs differs")
    def read(folder, table):
        glob = os.path.join(folder, table, "**", "*.parquet").replace("'", "''")
        relation = duckdb.sql(f"SELECT * FROM read_parquet('{glob}', hive_partitioning = true)")
        duck_columns = dict(zip(relation.columns, map(str, relation.types)))
        duck_rows = canonical(dict(zip(relation.columns, row)) for row in relation.fetchall())
        arrow = ds.dataset(os.path.join(folder, table), format="parquet", partitioning="hive").to_table()
        # pyarrow types a year folder int32 (an inferred integer), the files' column is int64.
        arrow_columns = {f.name: "int" if f.name == "year" else str(f.type) for f in arrow.schema}
        arrow_rows = canonical(arrow.to_pylist())
        return duck_columns, duck_rows, arrow_columns, arrow_rows
    reference = folders[0]
    tables = sorted(t for t in os.listdir(reference) if not t.startswith("."))
    expected = {t: read(reference, t) for t in tables}
    for folder in folders[1:]:
        names = sorted(t for t in os.listdir(folder) if not t.startswith("."))
        if names != tables: problems.append(f"{folder}: tables {names} != {tables}")
        for table in tables:
            got = read(folder, table)
            for index, what in enumerate(["DuckDB columns", "DuckDB rows", "pyarrow columns", "pyarrow rows"]):
                if got[index] != expected[table][index]:
                    detail = f"{got[index]} != {expected[table][index]}" if index % 2 == 0 else f"{len(got[index])} rows"
                    problems.append(f"{os.path.basename(folder)}/{table}: {what} differ: {detail}")
    records = expected.get("records")
    print(json.dumps({"problems": problems, "tables": tables, "query": [list(r) for r in answers[0][0]],
                      "records": records and {"columns": records[0], "rows": len(records[1])}}))
    """#

  @Test("the same columns and rows in every partitioning, read by DuckDB and pyarrow", arguments: [nil, "anna"])
  func sameSchema(person: String?) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let sample = Harness.samples.appendingPathComponent("export.zip").path
    var folders: [String] = []
    for layout in Self.layouts {
      let folder = directory.appendingPathComponent(layout.isEmpty ? "none" : layout).path
      var arguments = ["convert", sample, "--to", "parquet", "-o", folder, "--quiet"]
      if !layout.isEmpty { arguments += ["--partition-by", layout] }
      if let person { arguments += ["--person", person] }
      let run = try Harness.run(arguments)
      #expect(run.status == 0, "\(run.stderr)")
      folders.append(folder)
    }
    let docs = Harness.repoRoot.appendingPathComponent("docs/parquet.md").path
    let result = try TestEnvironment.runClientPython(Self.script, [docs] + folders)
    #expect(result.status == 0, "\(result.stderr)")
    let report = try Harness.json(Data(result.stdout.utf8)) as? [String: Any] ?? [:]
    #expect(report["problems"] as? [String] == [], "\(report["problems"] ?? result.stderr)")
    #expect((report["tables"] as? [String] ?? []).count > 10, "\(report["tables"] ?? "")")
    let records = report["records"] as? [String: Any] ?? [:]
    let columns = records["columns"] as? [String: String] ?? [:]
    #expect(records["rows"] as? Int == 76)
    // The whole identifier, the short name and the year, in every layout.
    #expect(columns["type_identifier"] == "VARCHAR")
    #expect(columns["type"] == "VARCHAR")
    #expect(columns["year"] == "BIGINT")
    #expect(columns["person"] == (person == nil ? nil : "VARCHAR"))
    // The docs' query: records per short type and year (the sample's 76, in 2 years or more).
    let query = report["query"] as? [[Any]] ?? []
    #expect(query.reduce(0) { $0 + (($1[2] as? Int) ?? 0) } == 76, "\(query)")
    #expect(query.contains { $0[0] as? String == "StepCount" }, "\(query)")
  }
}

/// Every DuckDB query of `docs/parquet.md` (Trino's DDL aside), run as written on a cohort dataset.
@Suite("docs/parquet.md's DuckDB queries run", .needsPythonClients)
struct ParquetDocumentedQueriesTests {
  static let script = #"""
    import json, re, sys, duckdb
    docs, folder = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2].replace("'", "''")
    results = []
    for block in re.findall(r"```sql\n(.*?)```", docs, re.S):
        if "CREATE TABLE" in block: continue
        query = block.replace("'DIR/", "'" + folder + "/").replace("'/shared/cohort/", "'" + folder + "/")
        results.append([block.split("\n", 1)[0], [list(map(str, r)) for r in duckdb.sql(query).fetchall()]])
    print(json.dumps(results))
    """#

  @Test("each query of the docs runs on a two-person dataset partitioned by type and year")
  func queriesRun() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let dataset = directory.appendingPathComponent("cohort").path
    for person in ["anna", "ben"] {
      let run = try Harness.run([
        "convert", Harness.samples.appendingPathComponent("export.zip").path, "--to", "parquet", "-o", dataset,
        "--person", person, "--partition-by", "type,year", "--quiet",
      ])
      #expect(run.status == 0, "\(run.stderr)")
    }
    let docs = Harness.repoRoot.appendingPathComponent("docs/parquet.md").path
    let result = try TestEnvironment.runClientPython(Self.script, [docs, dataset])
    #expect(result.status == 0, "\(result.stderr)")
    let queries = try Harness.json(Data(result.stdout.utf8)) as? [[Any]] ?? []
    #expect(queries.count == 3, "\(queries)")
    // The cohort query: steps per person and year, both people.
    let cohort = queries.first { ($0[0] as? String)?.hasPrefix("SELECT person, year") == true }
    let rows = cohort?[1] as? [[String]] ?? []
    #expect(Set(rows.map { $0[0] }) == ["anna", "ben"], "\(rows)")
  }
}
