import Foundation
import TestSupport
import Testing

@testable import HealthPort
@testable import HealthPortParquet

@Suite("Parquet dataset: layouts from the catalog, limits")
struct ParquetLimitsTests {
  @Test("the records table's columns, typed, from the catalog")
  func recordsLayout() throws {
    let layout = try ParquetTableLayout(ParquetTables.records, partitionBy: [], generic: false)
    #expect(
      layout.schema.columns.map(\.name) == [
        "id", "type", "source_name", "source_version", "source_product", "device", "unit", "value", "value_text",
        "creation_utc", "creation_offset_min", "start_utc", "start_offset_min", "start_local_day", "end_utc",
        "end_offset_min",
      ])
    let partitioned = try ParquetTableLayout(ParquetTables.records, partitionBy: [.type, .year], generic: false)
    #expect(!partitioned.schema.columns.map(\.name).contains("type"))
    #expect(partitioned.partitionKeys == [.type, .year])
    let me = try ParquetTableLayout(ColumnCatalog.me, partitionBy: [.type, .year], generic: true)
    #expect(me.partitionKeys.isEmpty)
    #expect(me.schema.columns.map(\.name).contains("date_of_birth_text"))
  }

  @Test("every table of the dataset has a valid schema in every partitioning")
  func everyTable() throws {
    for entry in ParquetTables.all {
      for keys in [[], [PartitionKey.type], [.year], [.type, .year]] {
        _ = try ParquetTableLayout(entry.definition, partitionBy: keys, generic: entry.isGeneric)
      }
    }
    #expect(ParquetTables.all.map(\.definition.name).contains("records"))
    #expect(!ParquetTables.all.map(\.definition.name).contains("<Type>"))
  }

  @Test("only decimal numbers are numbers", arguments: ["77.1003", "-3", "812.", "1.5e-05", ".5", "+2"])
  func decimal(text: String) { #expect(DecimalNumber.parse(text) == Double(text)) }

  @Test("words stay text", arguments: ["nan", "inf", "0x1p3", "", "-", "1e", "1.2.3", "HKCategoryValueAsleep", " 1"])
  func notDecimal(text: String) { #expect(DecimalNumber.parse(text) == nil) }

  @Test("Hive folder names escape what a path or a reader would misread")
  func hiveEscape() {
    #expect(HivePath.escape("HKQuantityTypeIdentifierStepCount") == "HKQuantityTypeIdentifierStepCount")
    #expect(HivePath.escape("a/b=c d") == "a%2Fb%3Dc%20d")
    #expect(HivePath.escape("") == "__HIVE_DEFAULT_PARTITION__")
    #expect(HivePath.escape(".hidden") == "%2Ehidden")
  }

  @Test("row groups close at the row limit; files beyond the open-file limit close early", .needsPythonClients)
  func limits() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pq-limits-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    var settings = ParquetOutput.Settings()
    settings.partitionBy = ["type", "year"]
    settings.limits.rowGroupRows = 4
    settings.limits.openFiles = 2
    let writer = try ParquetOutput.Writer(directory: directory.path, settings: settings)
    try writer.sink.begin(ExportHeader(prolog: [], rootAttributes: []))
    let types = ["HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierHeartRate", "Odd/Type"]
    for i in 0..<120 {  // each type for 20 rows, over two years; then all again
      let start = HealthDate(secondsSince1970: 1_600_000_000 + Int64(i % 2) * 40_000_000, offsetSeconds: 3600)
      let record = Record(
        type: types[i / 20 % 3], sourceName: "Watch", unit: "count", startDate: start, endDate: start,
        value: i % 5 == 0 ? "HKCategoryValueNotApplicable" : "\(i)")
      try writer.sink.consume(.record(record))
    }
    try writer.sink.end(ReadReport(documentName: "test", format: .xml))
    try writer.commit()
    let script = """
      import glob, sys, duckdb, pyarrow.parquet as pq
      files = glob.glob(sys.argv[1] + '/records/**/*.parquet', recursive=True)
      groups = [pq.ParquetFile(f).metadata.row_group(g).num_rows for f in files for g in range(pq.ParquetFile(f).metadata.num_row_groups)]
      total = duckdb.sql(f"select count(*), count(distinct type), count(value_text) from read_parquet('{sys.argv[1]}/records/**/*.parquet', hive_partitioning = true)").fetchone()
      print(len(files), max(groups), total)
      """
    let result = try TestEnvironment.runClientPython(script, [directory.path])
    #expect(result.stdout == "12 4 (120, 3, 24)\n", "\(result.stderr)")
  }
}
