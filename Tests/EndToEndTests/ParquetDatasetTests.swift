import Foundation
import TestSupport
import Testing

/// `convert --to parquet`: every table read by pyarrow, DuckDB and Polars and compared with the
/// `--split` CSV of the same export (`Tests/Clients/parquet_dataset.py`).
@Suite("convert --to parquet", .needsPythonClients)
struct ParquetDatasetTests {
  static let script =
    (try? String(
      contentsOf: Harness.repoRoot.appendingPathComponent("Tests/Clients/parquet_dataset.py"), encoding: .utf8)) ?? ""

  /// Converts `input` both ways into `directory` and checks the dataset against the split folder.
  static func check(
    _ input: URL, in directory: URL, partitions: String = "", compression: String? = nil, codec: String = "ZSTD"
  ) throws {
    let split = directory.appendingPathComponent("split")
    let dataset = directory.appendingPathComponent("dataset")
    let splitRun = try Harness.run(["convert", input.path, "--to", "csv", "--split", "-o", split.path, "--quiet"])
    #expect(splitRun.status == 0, "\(splitRun.stderr)")
    var arguments = ["convert", input.path, "--to", "parquet", "-o", dataset.path, "--quiet"]
    if !partitions.isEmpty { arguments += ["--partition-by", partitions] }
    if let compression { arguments += ["--compression", compression] }
    let run = try Harness.run(arguments)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.isEmpty)
    let info = try Harness.run(["info", "--format", "json", input.path])
    #expect(info.status == 0, "\(info.stderr)")
    let result = try TestEnvironment.runClientPython(
      script, [split.path, dataset.path, partitions, codec, input.path, String(decoding: info.stdout, as: UTF8.self)])
    #expect(result.status == 0, "\(input.lastPathComponent): \(result.stdout) \(result.stderr)")
  }

  @Test(
    "the generated bundle: route_points, ecg_recordings and ecg_samples as --split, info and a count apart",
    arguments: [("zip", ""), ("zip", "type,year"), ("folder", "year")])
  func generatedBundle(form: String, partitions: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = form == "zip" ? GeneratedBundle.zip : GeneratedBundle.exportFolder
    try Self.check(input, in: directory, partitions: partitions)
  }

  @Test("a damaged GPX file: the reader's path:line:col error, exit 65, no dataset folder")
  func damagedRoute() throws {
    let folder = try GeneratedBundle.copy()
    let directory = folder.deletingLastPathComponent()
    defer { try? FileManager.default.removeItem(at: directory) }
    let route = folder.appendingPathComponent("workout-routes/route_bundle_second.gpx")
    var lines = try String(contentsOf: route, encoding: .utf8).components(separatedBy: "\n")
    lines[10] = lines[10].replacingOccurrences(of: "lat=\"", with: "lat=\"north")
    try lines.joined(separator: "\n").write(to: route, atomically: true, encoding: .utf8)
    let output = directory.appendingPathComponent("dataset")
    let run = try Harness.run(["convert", folder.path, "--to", "parquet", "-o", output.path])
    #expect(run.status == 65, "\(run.stderr)")
    #expect(run.stderr.contains("route_bundle_second.gpx:11:"), "\(run.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["apple_health_export"])
  }

  @Test("a real export folder with routes: every table equals --split", .needsRealFixtures)
  func realFolderWithRoutes() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let folder = Harness.realFixtures.appendingPathComponent(
      "dogsheep-healthkit-to-sqlite/zip_contents/apple_health_export")
    try Self.check(folder, in: directory, partitions: "type,year")
  }

  @Test(
    "Samples/export.zip: every table equals --split, in each partitioning and codec",
    arguments: [
      ("", nil, "ZSTD"), ("type,year", nil, "ZSTD"), ("type", "snappy", "SNAPPY"), ("year", "none", "UNCOMPRESSED"),
    ]
  )
  func sample(partitions: String, compression: String?, codec: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try Self.check(
      Harness.samples.appendingPathComponent("export.zip"), in: directory, partitions: partitions,
      compression: compression, codec: codec)
  }

  @Test("the real exports: every table equals --split", .needsRealFixtures, arguments: ["", "type,year"])
  func realExports(partitions: String) throws {
    let exports = Harness.realExports()
    #expect(!exports.isEmpty)
    for (index, export) in exports.enumerated() {
      let directory = try Harness.temporaryDirectory()
      defer { try? FileManager.default.removeItem(at: directory) }
      _ = index
      try Self.check(export, in: directory, partitions: partitions)
    }
  }

  @Test("a damaged input ends with the reader's error and leaves no folder")
  func damagedInput() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("cut.xml")
    let whole = try Data(contentsOf: Harness.samples.appendingPathComponent("export.xml"))
    try whole.prefix(whole.count / 2).write(to: input)
    let output = directory.appendingPathComponent("dataset")
    let run = try Harness.run(["convert", input.path, "--to", "parquet", "-o", output.path])
    #expect(run.status == 65, "\(run.stderr)")
    #expect(run.stderr.contains("error:"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["cut.xml"])
  }

  @Test("usage errors: no -o, unknown partition key or codec, a folder that is not a dataset")
  func usage() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let sample = Harness.samples.appendingPathComponent("export.zip").path
    let out = directory.appendingPathComponent("d").path
    let noPath = try Harness.run(["convert", sample, "--to", "parquet"])
    #expect(noPath.status == 64)
    #expect(noPath.stderr.contains("--to parquet writes a folder of tables: give it with -o DIR"))
    let key = try Harness.run(["convert", sample, "--to", "parquet", "-o", out, "--partition-by", "month"])
    #expect(key.status == 64)
    #expect(key.stderr.contains("unknown partition key 'month' for --partition-by (one of type, year)"))
    let codec = try Harness.run(["convert", sample, "--to", "parquet", "-o", out, "--compression", "lz4"])
    #expect(codec.status == 64)
    #expect(codec.stderr.contains("unknown codec 'lz4' for --compression (one of zstd, snappy, none)"))
    let other = try Harness.run(["convert", sample, "--to", "csv", "--partition-by", "type"])
    #expect(other.status == 64)
    #expect(other.stderr.contains("--partition-by works with --to parquet only"))
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: out + "/notes.txt", contents: Data("mine".utf8))
    let foreign = try Harness.run(["convert", sample, "--to", "parquet", "-o", out])
    #expect(foreign.status == 1)
    #expect(foreign.stderr.contains("the folder holds files healthport did not write"), "\(foreign.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["notes.txt"])
    #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("dataset").path))
  }
}

/// Cohorts: runs with `--person` into one folder, and `--drop-identifiers`.
@Suite("convert --to parquet: cohorts", .needsPythonClients)
struct ParquetCohortTests {
  static func parquetFiles(_ folder: URL) -> [String] {
    let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
    return files.filter { $0.hasSuffix(".parquet") }.sorted()
  }

  @Test("another person adds files; the same person again replaces only theirs")
  func replaceByPerson() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let sample = Harness.samples.appendingPathComponent("export.zip").path
    let dataset = directory.appendingPathComponent("cohort")
    func convert(_ person: String) throws {
      let run = try Harness.run([
        "convert", sample, "--to", "parquet", "-o", dataset.path, "--person", person, "--partition-by", "type,year",
        "--quiet",
      ])
      #expect(run.status == 0, "\(run.stderr)")
    }
    try convert("alice")
    let alice = Self.parquetFiles(dataset)
    try convert("bob")
    let both = Self.parquetFiles(dataset)
    #expect(both.count == 2 * alice.count)
    #expect(Set(alice).isSubset(of: Set(both)))
    try convert("alice")
    let again = Self.parquetFiles(dataset)
    #expect(again.count == both.count)
    let bobs = both.filter { $0.contains("person=bob/") }
    #expect(Set(bobs).isSubset(of: Set(again)))
    #expect(Set(again.filter { $0.contains("person=alice/") }).isDisjoint(with: Set(alice)))
    #expect(!again.contains { $0.split(separator: "/").last!.hasPrefix(".") })
    let query = """
      import duckdb, sys
      rows = duckdb.sql(f"select person, count(*) from read_parquet('{sys.argv[1]}/records/**/*.parquet', \
      hive_partitioning = true) group by person order by person").fetchall()
      print(rows)
      """
    let result = try TestEnvironment.runClientPython(query, [dataset.path])
    #expect(result.stdout == "[('alice', 76), ('bob', 76)]\n", "\(result.stderr)")
  }

  @Test("--drop-identifiers keeps the year of birth and leaves owners' names out")
  func dropIdentifiers() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let sample = Harness.samples.appendingPathComponent("export.zip").path
    let dataset = directory.appendingPathComponent("shared")
    let run = try Harness.run([
      "convert", sample, "--to", "parquet", "-o", dataset.path, "--drop-identifiers", "--quiet",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let query = """
      import duckdb, sys
      d = sys.argv[1]
      me = duckdb.sql(f"select date_of_birth, date_of_birth_text from read_parquet('{d}/me/*.parquet')").fetchall()
      names = duckdb.sql(f"select distinct source_name from read_parquet('{d}/records/*.parquet')").fetchall()
      devices = duckdb.sql(f"select count(*) from read_parquet('{d}/records/*.parquet') where device like '%’s%'").fetchall()
      print(me, any("’s" in n[0] or "'s" in n[0] for n in names), devices[0][0])
      """
    let result = try TestEnvironment.runClientPython(query, [dataset.path])
    #expect(result.stdout.hasPrefix("[(None, '19"), "\(result.stdout) \(result.stderr)")
    #expect(result.stdout.hasSuffix(")] False 0\n"), "\(result.stdout) \(result.stderr)")
  }

  @Test("--drop-identifiers leaves the ECG's name out and keeps the year of birth, in the header too")
  func dropIdentifiersECG() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let dataset = directory.appendingPathComponent("shared")
    let run = try Harness.run([
      "convert", GeneratedBundle.zip.path, "--to", "parquet", "-o", dataset.path, "--drop-identifiers", "--quiet",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let query = """
      import duckdb, json, sys
      rows = duckdb.sql(f"select name, date_of_birth, header from read_parquet('{sys.argv[1]}/ecg_recordings/*.parquet')").fetchall()
      print(json.dumps([[name, birth, json.loads(header)[:2]] for name, birth, header in rows]))
      """
    let result = try TestEnvironment.runClientPython(query, [dataset.path])
    let expected = #"[null, "2002", [["Date of Birth", "2002"], ["Recorded Date", "#
    #expect(result.stdout.hasPrefix("[" + expected), "\(result.stdout) \(result.stderr)")
    #expect(result.stdout.components(separatedBy: expected).count == 3, "two recordings: \(result.stdout)")
    #expect(!result.stdout.contains("Bundle Person"))
  }
}
