import Foundation
import ParquetFile
import Testing

@Suite("ParquetWriter's typed errors")
struct WriterErrorTests {
  private func temporaryPath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("parquet-\(UUID().uuidString).parquet").path
  }

  @Test("schemas are checked: empty, duplicate names, a logical type on the wrong physical type")
  func schemaChecks() {
    #expect(throws: ParquetError.self) { try ParquetSchema([]) }
    #expect(throws: ParquetError.self) { try ParquetSchema([.string("a"), .string("a")]) }
    #expect(throws: ParquetError.self) { try ParquetSchema([ParquetColumn("d", .int64, logicalType: .date)]) }
    #expect(throws: ParquetError.self) { try ParquetSchema([ParquetColumn("", .int64)]) }
  }

  @Test("a wrong type, a null in a required column, a missing column, unequal columns, use after close")
  func appendChecks() throws {
    let path = temporaryPath()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let schema = try ParquetSchema([ParquetColumn("n", .int64), .string("s", optional: true)])
    let writer = try ParquetWriter(path: path, schema: schema, codec: .uncompressed)
    #expect(throws: ParquetError.typeMismatch(column: "n", columnType: .int64, appended: "DOUBLE")) {
      try writer.append(1.5, to: 0)
    }
    #expect(throws: ParquetError.nullInRequiredColumn(column: "n")) { try writer.appendNull(to: 0) }
    #expect(throws: ParquetError.noSuchColumn(2)) { try writer.append(Int64(1), to: 2) }
    try writer.append(Int64(1), to: 0)
    try writer.append(Int64(2), to: 0)
    try writer.appendNull(to: 1)
    #expect(writer.bufferedRows == 2)
    #expect(throws: ParquetError.unequalColumnLengths(column: "s", values: 1, expected: 2)) {
      try writer.flushRowGroup()
    }
    try writer.append("x", to: 1)
    try writer.close(synchronize: true)
    #expect(throws: ParquetError.closed) { try writer.append(Int64(3), to: 0) }
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(bytes.prefix(4) == Data("PAR1".utf8))
    #expect(bytes.suffix(4) == Data("PAR1".utf8))
    #expect(writer.writtenRows == 2)
  }

  @Test("an unwritable path is an I/O error naming it")
  func unwritablePath() throws {
    let schema = try ParquetSchema([ParquetColumn("n", .int64)])
    #expect(throws: ParquetError.io(operation: "open", path: "/nonexistent/x.parquet", errno: ENOENT)) {
      _ = try ParquetWriter(path: "/nonexistent/x.parquet", schema: schema)
    }
  }

  @Test("errors are Sendable and print a sentence")
  func descriptions() {
    let error: any Error & Sendable = ParquetError.nullInRequiredColumn(column: "n")
    #expect("\(error)" == "column \"n\" is required: cannot append null")
  }
}
