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
        "id", "type_identifier", "source_name", "source_version", "source_product", "device", "unit", "value",
        "value_text", "creation_utc", "creation_offset_min", "start_utc", "start_offset_min", "start_local_day",
        "end_utc", "end_offset_min", "extra", "type", "year",
      ])
    #expect(layout.keyColumns == [.type, .year])
    let partitioned = try ParquetTableLayout(ParquetTables.records, partitionBy: [.type, .year], generic: false)
    #expect(!partitioned.schema.columns.map(\.name).contains("type"))
    #expect(!partitioned.schema.columns.map(\.name).contains("year"))
    #expect(partitioned.schema.columns.map(\.name).prefix(2) == ["id", "type_identifier"])
    #expect(partitioned.partitionKeys == [.type, .year])
    // A key is a folder or the last column, never both.
    let byYear = try ParquetTableLayout(ParquetTables.records, partitionBy: [.year], generic: false)
    #expect(byYear.schema.columns.map(\.name).suffix(2) == ["extra", "type"])
    #expect(byYear.keyColumns == [.type])
    let me = try ParquetTableLayout(ColumnCatalog.me, partitionBy: [.type, .year], generic: true)
    #expect(me.partitionKeys.isEmpty)
    #expect(me.schema.columns.map(\.name).contains("date_of_birth_text"))
  }

  @Test("every table of the dataset has a valid schema in every partitioning")
  func everyTable() throws {
    for entry in ParquetTables.all {
      for keys in [[], [PartitionKey.type], [.year], [.type, .year]] {
        _ = try ParquetTables.layout(entry, partitionBy: keys)
      }
    }
    #expect(ParquetTables.all.map(\.definition.name).contains("records"))
    #expect(!ParquetTables.all.map(\.definition.name).contains("<Type>"))
  }

  @Test(
    "only decimal numbers are numbers, with the value strtod gives",
    arguments: [
      "77.1003", "-3", "812.", "1.5e-05", ".5", "+2", "0.00377794", "-0.0", "123456789012345", "1234567890123456789",
      "0.1", "0.30000000000000004", "99999999999999.9", "4.35", "1.23457e+06", "00012.50", "9007199254740993",
    ])
  func decimal(text: String) {
    let parsed = DecimalText.decimal(text)
    #expect(parsed?.bitPattern == Double(text)?.bitPattern)
  }

  @Test("the fast path rounds as strtod does, on many decimals")
  func decimalsAgreeWithStrtod() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<20_000 {
      let digits = Int.random(in: 1...15, using: &generator)
      var text = (0..<digits).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
      let point = Int.random(in: 0...digits, using: &generator)
      text.insert(".", at: text.index(text.startIndex, offsetBy: point))
      if Bool.random(using: &generator) { text = "-" + text }
      guard text != "." && text != "-." else { continue }
      #expect(DecimalText.decimal(text)?.bitPattern == Double(text)?.bitPattern, "\(text)")
    }
  }

  @Test(
    "words stay text",
    arguments: ["nan", "inf", "0x1p3", "", "-", "1e", "1.2.3", "HKCategoryValueAsleep", " 1", "1e+-5", "+-1", "."])
  func notDecimal(text: String) { #expect(DecimalText.decimal(text) == nil) }

  @Test("Hive folder names percent-encode what Hive escapes, and only that")
  func hiveEscape() {
    #expect(HivePath.escape("StepCount") == "StepCount")
    #expect(HivePath.escape("a/b=c d%") == "a%2Fb%3Dc d%25")
    #expect(HivePath.escape("Smith, Anna") == "Smith, Anna")
    #expect(HivePath.escape("Zoë\u{7}\n") == "Zoë%07%0A")
    #expect(HivePath.escape("\"#%'*/:=?\\{[]^\u{7F}") == "%22%23%25%27%2A%2F%3A%3D%3F%5C%7B%5B%5D%5E%7F")
    // Every other printable ASCII character stays as it is.
    let kept = (0x20...0x7E).map { Character(UnicodeScalar(UInt8($0))) }.filter { !"\"#%'*/:=?\\{[]^".contains($0) }
    #expect(HivePath.escape(String(kept)) == String(kept))
    #expect(HivePath.escape("") == "__HIVE_DEFAULT_PARTITION__")
    #expect(HivePath.escape(nil) == "__HIVE_DEFAULT_PARTITION__")
  }

  @Test(
    "type= folders: Apple's prefixes left out, other names whole",
    arguments: [
      ("HKQuantityTypeIdentifierStepCount", "StepCount"), ("HKCategoryTypeIdentifierSleepAnalysis", "SleepAnalysis"),
      ("HKCorrelationTypeIdentifierBloodPressure", "BloodPressure"),
      ("HKDataTypeSleepDurationGoal", "SleepDurationGoal"),
      ("HKDataTypeIdentifierAudiogram", "Audiogram"), ("HKWorkoutTypeIdentifier", "HKWorkoutTypeIdentifier"),
      ("HKQuantityTypeIdentifier", "HKQuantityTypeIdentifier"), ("com.example.Mood", "com.example.Mood"),
      ("StepCount", "StepCount"),
    ])
  func shortTypeNames(type: String, short: String) { #expect(KnownNames.folderTypeName(type) == short) }

  @Test(
    "--drop-identifiers: the owner's name in the forms Apple writes",
    arguments: [
      ("Anna’s Apple Watch", "Apple Watch"), ("DonorTwo's iPhone", "iPhone"), ("slobo's watch", "watch"),
      ("Chris’ iPad", "iPad"), ("Jess' iPhone", "iPhone"), ("iPhone de Anna", "iPhone"),
      ("iPhone von Anna", "iPhone"), ("Apple Watch de Ana María", "Apple Watch"), ("iPad Pro di Luca", "iPad Pro"),
      ("AnnaのiPhone", "iPhone"), ("Anna の Apple Watch", "Apple Watch"), ("Anna의 iPhone", "iPhone"),
      ("Ryan Phone", "Ryan Phone"), ("Health", "Health"), ("Café de Flore", "Café de Flore"),
      ("'Quoted' iPhone", "'Quoted' iPhone"),
    ])
  func ownerNames(name: String, kept: String) { #expect(IdentifierFilter().sourceName(name) == kept) }

  @Test("--drop-identifiers: a device's name field, which may hold ', ', loses its owner")
  func deviceNames() {
    let filter = IdentifierFilter()
    #expect(
      filter.device("<<HKDevice: 0x1>, name:Anna’s Apple Watch, manufacturer:Apple Inc., model:Watch>")
        == "<<HKDevice: 0x1>, name:Apple Watch, manufacturer:Apple Inc., model:Watch>")
    #expect(
      filter.device("<<HKDevice: 0x2>, name:Smith, Anna’s iPhone, manufacturer:Apple Inc., model:iPhone>")
        == "<<HKDevice: 0x2>, name:iPhone, manufacturer:Apple Inc., model:iPhone>")
    #expect(filter.device("<<HKDevice: 0x3>, name:iPhone de Anna>") == "<<HKDevice: 0x3>, name:iPhone>")
    let plain = "<<HKDevice: 0x4>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone16,1>"
    #expect(filter.device(plain) == plain)
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
