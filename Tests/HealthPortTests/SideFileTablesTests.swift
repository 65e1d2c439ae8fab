import Foundation
import Testing

@testable import HealthPort

struct SideFileTablesTests {
  @Test("the side-file tables of docs/csv.md list the catalog's columns")
  func readmeColumns() throws {
    let rows = CSVColumnCatalogTests.rows(try CSVColumnCatalogTests.section("### Side-file tables"))
    #expect(rows.count == ColumnCatalog.sideFileTables.count)
    for (row, table) in zip(rows, ColumnCatalog.sideFileTables) {
      #expect(row[0] == "`\(table.name).csv`")
      CSVColumnCatalogTests.expectSameColumns(CSVColumnCatalogTests.columnNames(row[2]), table)
    }
  }
}
