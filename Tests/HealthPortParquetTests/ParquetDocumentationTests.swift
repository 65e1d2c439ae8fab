import Foundation
import ParquetFile
import TestSupport
import Testing

@testable import HealthPort
@testable import HealthPortParquet

/// `docs/parquet.md`'s tables and columns are rendered from the catalog and the layouts; this test
/// keeps them equal (`HEALTHPORT_WRITE_DOCS=PATH` writes the rendering to PATH).
@Suite("docs/parquet.md lists every table and column")
struct ParquetDocumentationTests {
  static func typeName(_ column: ParquetColumn) -> String {
    switch column.logicalType {
    case .string: "STRING"
    case .date: "DATE"
    case .timestampMicrosUTC: "TIMESTAMP(MICROS, UTC)"
    case .none: column.physicalType.description
    }
  }

  static func rendered() throws -> String {
    var out = ""
    for entry in ParquetTables.all {
      let layout = try ParquetTables.layout(entry, partitionBy: [])
      out += "#### `\(entry.definition.name)/`\n\nRows: \(entry.definition.rows).\n\n"
      out += "| column | type | meaning |\n|---|---|---|\n"
      for (index, slot) in layout.slots.enumerated() {
        let first = slot.firstColumn
        let end = index + 1 < layout.slots.count ? layout.slots[index + 1].firstColumn : layout.firstKeyColumn
        for column in layout.schema.columns[first..<end] {
          let required = column.isOptional ? "" : ", required"
          var meaning = slot.catalogColumn.meaning
          if column.name.hasSuffix("_offset_min") { meaning = "its UTC offset as written, in minutes" }
          if column.name.hasSuffix("_local_day") { meaning = "its calendar day in that offset" }
          if column.name.hasSuffix("_text") {
            meaning =
              "the value as written when it is not a \([.exportDate, .instant].contains(slot.catalogColumn.type) ? "date" : "number")"
          }
          if column.name.hasSuffix("_utc") { meaning = slot.catalogColumn.meaning + " (the instant)" }
          out +=
            "| `\(column.name)` | \(typeName(column))\(required) | \(meaning.replacingOccurrences(of: "|", with: "\\|")) |\n"
        }
      }
      for (key, column) in zip(layout.keyColumns, layout.schema.columns[layout.firstKeyColumn...]) {
        let meaning =
          switch key {
          case .type: "the type's short name (`StepCount`); a `type=` folder instead with `--partition-by type`"
          case .year:
            [
              "route_points": "the year of `time` in its offset",
              "ecg_recordings": "the year of the recorded date in its offset",
            ][entry.definition.name, default: "the year of the start in the offset the export wrote"]
              + "; a `year=` folder instead with `--partition-by year`"
          }
        out += "| `\(column.name)` | \(typeName(column)) | \(meaning) |\n"
      }
      out += "\n"
    }
    return out
  }

  @Test func tablesAreDocumented() throws {
    let text = try Self.rendered()
    if let path = ProcessInfo.processInfo.environment["HEALTHPORT_WRITE_DOCS"] {
      try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
    let docs = try String(
      contentsOf: TestEnvironment.repoRoot.appendingPathComponent("docs/parquet.md"), encoding: .utf8)
    #expect(docs.contains(text))
  }
}
