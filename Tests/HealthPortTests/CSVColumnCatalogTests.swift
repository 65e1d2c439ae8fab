import Foundation
import TestSupport
import Testing

@testable import HealthPort

/// The column tables of `docs/csv.md` and the catalog the writers take their headers from name the same
/// columns, in the same order.
struct CSVColumnCatalogTests {
  /// The lines of the `docs/csv.md` section that starts with `heading`, up to the next heading of the
  /// same or a higher level.
  static func section(_ heading: String) throws -> [Substring] {
    let page = try String(
      contentsOf: TestEnvironment.repoRoot.appendingPathComponent("docs/csv.md"), encoding: .utf8)
    let lines = page.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0.hasPrefix(heading) }) else { return [] }
    let level = heading.prefix { $0 == "#" }
    let end = lines[(start + 1)...].firstIndex { line in
      let hashes = line.prefix { $0 == "#" }
      return !hashes.isEmpty && hashes.count <= level.count && line.dropFirst(hashes.count).hasPrefix(" ")
    }
    return Array(lines[(start + 1)..<(end ?? lines.endIndex)])
  }

  /// The cells of the table rows whose first cell is code (header and rule lines are not).
  static func rows(_ lines: [Substring]) -> [[String]] {
    lines.filter { $0.hasPrefix("| `") }.map { line in
      line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map {
        $0.trimmingCharacters(in: .whitespaces)
      }
    }
  }

  /// The text inside backticks, in order.
  static func codeSpans(_ text: some StringProtocol) -> [String] {
    text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
      String($0.element)
    }
  }

  /// The column names a cell lists: the names in its code spans, up to the end of its first
  /// sentence or clause, leaving out parenthesised remarks; "+ the record columns" stands for
  /// the Record columns.
  static func columnNames(_ cell: String) -> [String] {
    var text = ""
    var depth = 0
    var inCode = false
    for character in cell {
      if character == "`" { inCode.toggle() }
      if !inCode, character == "(" { depth += 1 }
      if depth == 0 { text.append(character) }
      if !inCode, character == ")" { depth -= 1 }
    }
    if let end = [text.range(of: ". "), text.range(of: ": ")].compactMap({ $0?.lowerBound }).min() {
      text = String(text[..<end])
    }
    var names = codeSpans(text).flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
    if text.contains("+ the record columns") { names += ColumnCatalog.recordAttributes.map(\.name) }
    return names
  }

  /// True when a README name is the catalog's: the same, or `…Suffix` for a name that ends so.
  static func matches(_ documented: String, _ name: String) -> Bool {
    guard documented.hasPrefix("…") else { return documented == name }
    let suffix = documented.dropFirst()
    return name.hasSuffix(suffix) && name.count > suffix.count
  }

  static func expectSameColumns(_ documented: [String], _ table: TableDefinition) {
    let names = table.columnNames
    #expect(documented.count == names.count, "\(table.name): docs/csv.md lists \(documented), the catalog \(names)")
    for (readme, name) in zip(documented, names) {
      #expect(matches(readme, name), "\(table.name): docs/csv.md says \(readme) where the catalog has \(name)")
    }
  }

  @Test("the single-table columns of docs/csv.md are the catalog's")
  func singleTable() throws {
    let rows = Self.rows(try Self.section("## The single table"))
    #expect(!rows.isEmpty)
    let documented = rows.flatMap { Self.columnNames($0[0]) }
    Self.expectSameColumns(documented, ColumnCatalog.records)
    #expect(CSVRecordsWriter.columns == ColumnCatalog.records.columnNames)
  }

  @Test("the --split tables of docs/csv.md are the catalog's, with the same rows and columns")
  func splitTables() throws {
    let rows = Self.rows(try Self.section("### Tables"))
    #expect(rows.count == ColumnCatalog.splitTables.count)
    for (row, table) in zip(rows, ColumnCatalog.splitTables) {
      #expect(Self.codeSpans(row[0]).first == table.name + ".csv")
      #expect(row[1] == table.rows)
      Self.expectSameColumns(Self.columnNames(row[2]), table)
    }
  }

  @Test("every fixed --split table and the record tables come from the catalog")
  func splitSchema() {
    let fixed = CSVSplitSchema.Table.allCases.map(\.definition)
    #expect(Set(fixed + [ColumnCatalog.recordsOfType]) == Set(ColumnCatalog.splitTables))
    #expect(
      CSVSplitSchema.recordTableColumns == [
        "id", "type", "sourceName", "sourceVersion", "sourceProduct", "device", "unit", "value", "creationDate",
        "creationISO", "creationUTC", "startDate", "startISO", "startUTC", "endDate", "endISO", "endUTC",
      ])
    for table in CSVSplitSchema.Table.allCases {
      #expect(table.fileName == table.definition.name + ".csv")
      // The catalog's columns, each date followed by its derived ISO and UTC forms.
      #expect(table.columns.filter { !$0.hasSuffix("ISO") && !$0.hasSuffix("UTC") } == table.definition.columnNames)
      for column in table.definition.columns where column.type == .exportDate {
        let stem =
          column.name.hasSuffix("Date") && column.name.count > 4 ? String(column.name.dropLast(4)) : column.name
        let at = table.columns.firstIndex(of: column.name)!
        #expect(Array(table.columns[at...].prefix(3)) == [column.name, stem + "ISO", stem + "UTC"], "\(table)")
      }
    }
    #expect(CSVSplitSchema.Table.workoutEvents.columns.contains("dateUTC"))
    #expect(CSVSplitSchema.Table.export.columns.prefix(5) == ["id", "element", "value", "valueISO", "valueUTC"])
  }

  @Test("no table names a column twice, and every column says what it holds")
  func wellFormed() {
    for table in ColumnCatalog.splitTables + [ColumnCatalog.records, ColumnCatalog.legacyRecords] {
      #expect(Set(table.columnNames).count == table.columns.count, "\(table.name)")
      for column in table.columns { #expect(!column.meaning.isEmpty, "\(table.name).\(column.name)") }
    }
  }
}
