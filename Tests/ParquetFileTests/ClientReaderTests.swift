import Foundation
import ParquetFile
import TestSupport
import Testing

/// Files written here are read back by pyarrow, DuckDB and Polars (`.venv-clients`), which must find the
/// written types, values and per-row-group statistics.
@Suite("Parquet files read by pyarrow, DuckDB and Polars", .needsPythonClients)
struct ClientReaderTests {
  /// A column of the test files and how the expected JSON names its kind.
  struct TestColumn {
    var column: ParquetColumn
    var kind: String
  }

  static let everyType: [TestColumn] = [
    TestColumn(column: ParquetColumn("flag", .boolean), kind: "boolean"),
    TestColumn(column: ParquetColumn("maybe_flag", .boolean, optional: true), kind: "boolean"),
    TestColumn(column: ParquetColumn("small", .int32), kind: "int32"),
    TestColumn(column: ParquetColumn("maybe_small", .int32, optional: true), kind: "int32"),
    TestColumn(column: ParquetColumn("big", .int64), kind: "int64"),
    TestColumn(column: ParquetColumn("value", .double, optional: true), kind: "double"),
    TestColumn(column: .string("type"), kind: "string"),
    TestColumn(column: .string("note", optional: true), kind: "string"),
    TestColumn(column: .date("start_local_day", optional: true), kind: "date"),
    TestColumn(column: .timestamp("start_utc", optional: true), kind: "timestamp"),
    TestColumn(column: ParquetColumn("blob", .byteArray, optional: true), kind: "binary"),
    TestColumn(column: .string("always_null", optional: true), kind: "string"),
    TestColumn(column: ParquetColumn("never_set", .double, optional: true), kind: "double"),
  ]

  private static let notes = ["", "a", "é", "日本語", "zzz", "\u{1F600}", "A", "line\nbreak", "\u{7F}"]
  private static let specials: [Double] = [-0.0, 0.0, .infinity, -.infinity, .nan, 1e-300, -1e300, 0.1]

  /// Row `i` of the every-type file: extremes near the start, nulls in patterns, a NaN-only stretch.
  static func everyTypeRow(_ i: Int) -> [ParquetValue] {
    let extremesInt32: [Int32] = [.min, .max, 0, -1]
    let extremesInt64: [Int64] = [.min, .max, 0, -1]
    let small = i < 4 ? extremesInt32[i] : Int32(truncatingIfNeeded: i &* 2_654_435_761)
    let big = i < 4 ? extremesInt64[i] : Int64(i) * 1_000_003 - 5_000_000_000
    let value: ParquetValue =
      i % 7 == 3 ? .null : .double(i < specials.count ? specials[i] : (i % 97 == 5 ? .nan : Double(i) / 3 - 1000))
    let blob: ParquetValue = i % 5 == 0 ? .null : .bytes(i % 11 == 1 ? [0xFF, UInt8(i % 256)] : [UInt8(i % 200), 0])
    return [
      .boolean(i % 3 == 0),
      i % 4 == 1 ? .null : .boolean(i % 2 == 0),
      .int32(small),
      i % 6 == 2 ? .null : .int32(Int32(i % 1000) - 500),
      .int64(big),
      value,
      .string("HKQuantityTypeIdentifier\(["StepCount", "HeartRate", "BodyMass"][i % 3])"),
      i % 3 == 1 ? .null : .string(notes[i % notes.count] + (i % 13 == 0 ? "\(i)" : "")),
      i % 8 == 7 ? .null : .int32(Int32(16_000 + i % 4000) * (i % 2 == 0 ? 1 : -1)),
      i % 9 == 4 ? .null : .int64(1_700_000_000_000_000 + Int64(i) * 1_234_567 * (i % 2 == 0 ? 1 : -1)),
      blob,
      .null,
      .null,
    ]
  }

  // MARK: Writing and checking

  /// Writes `rows` rows, closing a row group every `rowGroupRows`; returns the row group sizes.
  static func write(
    _ path: String, columns: [TestColumn], rows: Int, rowGroupRows: Int, codec: ParquetCodec,
    configuration: ParquetWriter.Configuration, row: (Int) -> [ParquetValue]
  ) throws -> [Int] {
    let writer = try ParquetWriter(
      path: path, schema: try ParquetSchema(columns.map(\.column)), codec: codec, configuration: configuration)
    var groups: [Int] = []
    for i in 0..<rows {
      try writer.appendRow(row(i))
      if writer.bufferedRows == rowGroupRows {
        groups.append(writer.bufferedRows)
        try writer.flushRowGroup()
      }
    }
    if writer.bufferedRows > 0 { groups.append(writer.bufferedRows) }
    try writer.close()
    return groups
  }

  /// The JSON the comparison script reads: each column's kind and values, the row groups, the codec.
  static func expectedJSON(
    columns: [TestColumn], rows: Int, groups: [Int], codec: ParquetCodec, encodings: [String: [String]] = [:],
    row: (Int) -> [ParquetValue]
  ) throws -> Data {
    var values = Array(repeating: [Any](), count: columns.count)
    for i in 0..<rows {
      for (j, value) in row(i).enumerated() {
        switch value {
        case .null: values[j].append(NSNull())
        case .boolean(let v): values[j].append(v)
        case .int32(let v): values[j].append(Int(v))
        case .int64(let v): values[j].append(v)
        case .double(let v): values[j].append("\(v)")
        case .string(let v): values[j].append(v)
        case .bytes(let v): values[j].append(v.map { String(format: "%02x", $0) }.joined())
        }
      }
    }
    let described: [[String: Any]] = columns.enumerated().map { j, c in
      ["name": c.column.name, "kind": c.kind, "optional": c.column.isOptional, "values": values[j]]
    }
    return try JSONSerialization.data(withJSONObject: [
      "columns": described, "row_groups": groups, "codec": codec.description, "encodings": encodings,
    ])
  }

  static func readBack(
    columns: [TestColumn], rows: Int, rowGroupRows: Int, codec: ParquetCodec,
    configuration: ParquetWriter.Configuration = ParquetWriter.Configuration(),
    encodings: [String: [String]] = [:], row: (Int) -> [ParquetValue]
  ) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parquet-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("t.parquet")
    let groups = try write(
      file.path, columns: columns, rows: rows, rowGroupRows: rowGroupRows, codec: codec,
      configuration: configuration, row: row)
    let expected = directory.appendingPathComponent("expected.json")
    try expectedJSON(columns: columns, rows: rows, groups: groups, codec: codec, encodings: encodings, row: row)
      .write(to: expected)
    let result = try TestEnvironment.runClientPython(ClientReaderScripts.compareAll, [file.path, expected.path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout == "ok pyarrow\nok duckdb\nok polars\n", "\(result.stderr)")
  }

  // MARK: Tests

  @Test(
    "every type, nulls and extremes, in several row groups of several pages",
    arguments: [ParquetCodec.zstd(), .snappy, .uncompressed])
  func everyTypeInEveryCodec(codec: ParquetCodec) throws {
    var configuration = ParquetWriter.Configuration()
    configuration.pageSize = 4096
    try Self.readBack(
      columns: Self.everyType, rows: 25_000, rowGroupRows: 10_000, codec: codec, configuration: configuration,
      encodings: ["type": ["RLE_DICTIONARY"], "small": ["PLAIN"], "maybe_small": ["PLAIN"]],
      row: Self.everyTypeRow)
  }

  @Test("a dictionary that passes its limit falls back to PLAIN for the rest of the chunk, then starts afresh")
  func dictionaryFallback() throws {
    let columns = [
      TestColumn(column: .string("id"), kind: "string"),
      TestColumn(column: .string("unit", optional: true), kind: "string"),
    ]
    // 60 000 distinct ids of about 40 bytes pass the 1 MiB dictionary within the first row group.
    try Self.readBack(
      columns: columns, rows: 90_000, rowGroupRows: 60_000, codec: .zstd(),
      encodings: ["id": ["PLAIN", "RLE_DICTIONARY"], "unit": ["RLE_DICTIONARY"]]
    ) { i in
      [
        .string("workout-\(i)-0123456789abcdef0123456789"),
        i % 4 == 0 ? .null : .string(["count", "kg", "count/min"][i % 3]),
      ]
    }
  }

  @Test("bounds longer than maximumStatisticsSize are left out; the null count stays")
  func longBoundsLeftOut() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parquet-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("long.parquet").path
    let writer = try ParquetWriter(path: path, schema: try ParquetSchema([.string("json", optional: true)]))
    for row: ParquetValue in [.string(String(repeating: "a", count: 4097)), .string("b"), .null] {
      try writer.appendRow([row])
    }
    try writer.flushRowGroup()
    for row: ParquetValue in [.string(String(repeating: "c", count: 4096)), .string("d")] {
      try writer.appendRow([row])
    }
    try writer.close()
    let script = """
      import sys, pyarrow.parquet as pq
      meta = pq.ParquetFile(sys.argv[1]).metadata
      long, exact = (meta.row_group(g).column(0).statistics for g in range(2))
      assert (long.has_min_max, long.null_count) == (False, 1), (long.has_min_max, long.null_count)
      assert (exact.min, exact.max) == ("c" * 4096, "d"), (exact.min[:10], exact.max)
      assert pq.read_table(sys.argv[1]).column(0).to_pylist()[0] == "a" * 4097
      print("ok")
      """
    let result = try TestEnvironment.runClientPython(script, [path])
    #expect(result.status == 0 && result.stdout == "ok\n", "\(result.stderr)")
  }

  @Test("a file without rows has the schema and no row group")
  func emptyFile() throws {
    try Self.readBack(columns: Self.everyType, rows: 0, rowGroupRows: 1, codec: .zstd(), row: Self.everyTypeRow)
  }

  /// A long run (a million rows for each codec, about 30 s on two cores): `make stress` runs it.
  @Test("a million-row column through the typed appenders", .stress, arguments: [ParquetCodec.zstd(), .snappy])
  func millionRows(codec: ParquetCodec) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parquet-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("million.parquet").path
    let rows = 1_000_000
    let schema = try ParquetSchema([
      ParquetColumn("n", .int64), .string("type"), ParquetColumn("x", .double, optional: true),
    ])
    let writer = try ParquetWriter(path: path, schema: schema, codec: codec)
    var largestBuffer = 0
    for i in 0..<rows {
      try writer.append(Int64(i) * 7 - 3_000_000, to: 0)
      try writer.append("type\(i % 37)", to: 1)
      if i % 10 == 0 { try writer.appendNull(to: 2) } else { try writer.append(Double(i) / 4, to: 2) }
      largestBuffer = max(largestBuffer, writer.bufferedBytes)
      if writer.encodedBytes >= 4 << 20 { try writer.flushRowGroup() }
    }
    try writer.close()
    #expect(writer.writtenRows == Int64(rows))
    // bufferedBytes counts allocated capacity (arrays grow by doubling past the 4 MiB of pages).
    #expect(largestBuffer < 24 << 20, "one row group's pages stay bounded: \(largestBuffer) bytes")
    let result = try TestEnvironment.runClientPython(ClientReaderScripts.millionRows, [path, "\(rows)"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.hasPrefix("ok pyarrow"), "\(result.stdout) \(result.stderr)")
    #expect(result.stdout.hasSuffix("ok duckdb\nok polars\n"), "\(result.stdout) \(result.stderr)")
  }
}
