import Foundation
import ParquetFile
import TestSupport
import Testing

/// Strings that share storage (as a reader's interned strings do) find their dictionary entry by
/// storage; the values read back must be exactly those appended, across row groups, dictionary
/// fallbacks and more distinct strings than the cache holds.
@Suite("Parquet: interned strings", .needsPythonClients)
struct InternedStringTests {
  static let readColumn = #"""
    import json, sys
    import duckdb, pyarrow.parquet as pq
    path = sys.argv[1]
    arrow = pq.read_table(path).column("text").to_pylist()
    duck = [r[0] for r in duckdb.sql(f"select text from read_parquet('{path}')").fetchall()]
    print(json.dumps({"arrow": arrow, "duckdb": duck}))
    """#

  /// `count` strings of more than 15 bytes (each its own storage) and a few short ones.
  static func pool(_ count: Int) -> [String] {
    (0..<count).map { "HKQuantityTypeIdentifier-\($0)-" + String(repeating: "x", count: $0 % 5) } + [
      "count", "kg", "é", "",
    ]
  }

  @Test(
    "values read back equal the appended ones", arguments: [(4, 1 << 20), (40, 1 << 20), (40, 600), (12, 0)])
  func interned(distinct: Int, dictionaryLimit: Int) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pq-interned-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("strings.parquet").path
    let shared = Self.pool(distinct)
    // The same contents in other storage: equal strings that are not the same object.
    let copies = shared.map { String(decoding: Array($0.utf8), as: UTF8.self) }
    var configuration = ParquetWriter.Configuration()
    configuration.dictionaryPageLimit = dictionaryLimit
    configuration.maximumPageValues = 500
    let writer = try ParquetWriter(
      path: path, schema: ParquetSchema([.string("text", optional: true)]), codec: .uncompressed,
      configuration: configuration)
    var expected: [String?] = []
    var state: UInt64 = 0x1234_5678
    for row in 0..<6000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let pick = Int(state >> 33) % (shared.count + 1)
      if pick == shared.count {
        try writer.appendNull(to: 0)
        expected.append(nil)
      } else {
        let text = row % 3 == 0 ? copies[pick] : shared[pick]
        try writer.append(text, to: 0)
        expected.append(text)
      }
      if row % 1700 == 1699 { try writer.flushRowGroup() }
    }
    try writer.close()
    let result = try TestEnvironment.runClientPython(Self.readColumn, [path])
    #expect(result.status == 0, "\(result.stderr)")
    let decoded = try JSONDecoder().decode([String: [String?]].self, from: Data(result.stdout.utf8))
    #expect(decoded["arrow"] == expected)
    #expect(decoded["duckdb"] == expected)
  }
}
