import Foundation
import TestSupport
import Testing

/// Partition values escaped as Hive does, read back whole by DuckDB and pyarrow; names Hive reads
/// as null, and names too long for a folder.
@Suite("convert --to parquet: Hive folder names", .needsPythonClients)
struct ParquetHivePathTests {
  static let long = String(repeating: "x", count: 300)

  /// Each type identifier of the export, its `type` value and its folder.
  static let types: [(identifier: String, xml: String, value: String, folder: String)] = [
    ("HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierStepCount", "StepCount", "type=StepCount"),
    ("HKQuantityTypeIdentifierA?b", "HKQuantityTypeIdentifierA?b", "A?b", "type=A%3Fb"),
    ("HKQuantityTypeIdentifierBack\\slash", "HKQuantityTypeIdentifierBack\\slash", "Back\\slash", "type=Back%5Cslash"),
    (
      "HKQuantityTypeIdentifierAll\"#%'*/:=?\\{[]^end", "HKQuantityTypeIdentifierAll&quot;#%'*/:=?\\{[]^end",
      "All\"#%'*/:=?\\{[]^end", "type=All%22%23%25%27%2A%2F%3A%3D%3F%5C%7B%5B%5D%5Eend"
    ),
    (
      "HKQuantityTypeIdentifierTab\tDel\u{7F}", "HKQuantityTypeIdentifierTab&#9;Del\u{7F}", "Tab\tDel\u{7F}",
      "type=Tab%09Del%7F"
    ),
    (
      "HKQuantityTypeIdentifierÄpfel, Birnen (2)", "HKQuantityTypeIdentifierÄpfel, Birnen (2)", "Äpfel, Birnen (2)",
      "type=Äpfel, Birnen (2)"
    ),
    (
      "__HIVE_DEFAULT_PARTITION__", "__HIVE_DEFAULT_PARTITION__", "record___HIVE_DEFAULT_PARTITION__",
      "type=record___HIVE_DEFAULT_PARTITION__"
    ),
    (
      "HKQuantityTypeIdentifier" + long, "HKQuantityTypeIdentifier" + long, "record_" + String(long.prefix(200)),
      "type=record_" + String(long.prefix(200))
    ),
  ]

  static func export(in directory: URL) throws -> URL {
    let records = types.enumerated().map { index, type in
      "<Record type=\"\(type.xml)\" sourceName=\"S\" unit=\"count\" creationDate=\"2024-01-0\(index + 1) 10:00:00 +0100\" "
        + "startDate=\"2024-01-0\(index + 1) 10:00:00 +0100\" endDate=\"2024-01-0\(index + 1) 10:01:00 +0100\" value=\"\(index + 1)\"/>"
    }
    let url = directory.appendingPathComponent("export.xml")
    try
      ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
      + records.joined(separator: "\n") + "\n</HealthData>\n").write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  /// `[person, type, type_identifier, value]` of every record, as DuckDB and as pyarrow read them.
  static let script = #"""
    import json, os, sys, duckdb
    import pyarrow.dataset as ds
    folder = sys.argv[1]
    glob = os.path.join(folder, "records", "**", "*.parquet").replace("'", "''")
    duck = duckdb.sql(f"SELECT person, type, type_identifier, value FROM read_parquet('{glob}', hive_partitioning = true) "
                      "ORDER BY person, value").fetchall()
    table = ds.dataset(os.path.join(folder, "records"), format="parquet", partitioning="hive").to_table()
    arrow = sorted(([r["person"], r["type"], r["type_identifier"], r["value"]] for r in table.to_pylist()),
                   key=lambda r: (r[0], r[3]))
    print(json.dumps({"duckdb": [list(r) for r in duck], "pyarrow": arrow}))
    """#

  @Test("types and --person escaped as Hive does, read back whole by DuckDB and pyarrow")
  func escaped() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = try Self.export(in: directory)
    let dataset = directory.appendingPathComponent("cohort")
    let persons = ["Who?\\Me: #1", String(repeating: "p", count: 300)]
    for person in persons {
      let run = try Harness.run([
        "convert", input.path, "--to", "parquet", "-o", dataset.path, "--partition-by", "type", "--person", person,
        "--quiet",
      ])
      #expect(run.status == 0, "\(run.stderr)")
    }
    let personFolders = try FileManager.default.contentsOfDirectory(
      atPath: dataset.appendingPathComponent("records").path
    ).sorted()
    #expect(personFolders == ["person=Who%3F%5CMe%3A %231", "person=" + String(repeating: "p", count: 200)])
    let typeFolders = try FileManager.default.contentsOfDirectory(
      atPath: dataset.appendingPathComponent("records/\(personFolders[0])").path)
    #expect(Set(typeFolders) == Set(Self.types.map(\.folder)))

    let result = try TestEnvironment.runClientPython(Self.script, [dataset.path])
    #expect(result.status == 0, "\(result.stderr)")
    let report = try Harness.json(Data(result.stdout.utf8)) as? [String: [[Any]]] ?? [:]
    let people = ["Who?\\Me: #1", String(repeating: "p", count: 200)]
    var expected: [[String]] = []
    for person in people {
      for (index, type) in Self.types.enumerated() {
        expected.append([person, type.value, type.identifier, String(Double(index + 1))])
      }
    }
    for reader in ["duckdb", "pyarrow"] {
      let rows = (report[reader] ?? []).map { row in
        row.map { cell in (cell as? NSNumber).map { String($0.doubleValue) } ?? "\(cell)" }
      }
      #expect(rows == expected, "\(reader)")
    }
  }

  @Test("--person __HIVE_DEFAULT_PARTITION__ is refused before the input is read (exit 64)")
  func defaultPartitionPerson() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    // A damaged input: were it read first, the exit would be 65.
    let damaged = directory.appendingPathComponent("damaged.xml")
    try "<?xml version=\"1.0\"?>\n<HealthData>\n<Record type=".write(to: damaged, atomically: true, encoding: .utf8)
    let dataset = directory.appendingPathComponent("dataset")
    let run = try Harness.run([
      "convert", damaged.path, "--to", "parquet", "-o", dataset.path, "--person", "__HIVE_DEFAULT_PARTITION__",
    ])
    #expect(run.status == 64, "\(run.stderr)")
    #expect(run.stderr.contains("--person __HIVE_DEFAULT_PARTITION__"), "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dataset.path))
  }
}
