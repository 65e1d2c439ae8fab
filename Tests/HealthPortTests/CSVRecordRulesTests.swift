import Foundation
import Testing

@testable import HealthPort

/// The single-table CSV reader builds its Records through the ``ElementBuilder`` with the rules
/// CSV tables always had: values kept as written, ISO 8601 dates, and each row's first problem
/// reported as before.
struct CSVRecordRulesTests {
  static let ownHeader = CSVRecordsTable.columns.joined(separator: ",")

  /// A row of today's single table with the given cells, the others empty.
  static func ownRow(_ cells: [String: String]) -> String {
    CSVRecordsTable.columns.map { cells[$0] ?? "" }.joined(separator: ",")
  }

  @Test("a foreign file keeps values as written beside a unit: spaces of `a, b` files, category text")
  func foreignValuesAsWritten() throws {
    let records = CSVForeignInputTests.records(
      try CSVForeignInputTests.read(
        "type,startDate, value, unit\nHKQuantityTypeIdentifierStepCount,2024-01-01T08:00Z, 812, count\nHKCategoryTypeIdentifierSleepAnalysis,2024-01-01T22:00Z, HKCategoryValueSleepAnalysisAsleepCore, min\n"
      ))
    #expect(records.map(\.value) == [" 812", " HKCategoryValueSleepAnalysisAsleepCore"])
    #expect(records.map(\.unit) == [" count", " min"])
    #expect(
      records.map(\.startDate) == [HealthDate.flexible("2024-01-01T08:00Z"), HealthDate.flexible("2024-01-01T22:00Z")])
  }

  @Test("healthport's own table, edited by hand, is read as written: a text value beside a unit")
  func ownTableUnchecked() throws {
    let row = Self.ownRow([
      "type": "HKQuantityTypeIdentifierStepCount", "sourceName": "Phone", "unit": "count", "valueText": "many",
      "startDate": "2024-01-01 08:00:00 +0100", "endDate": "2024-01-01T08:05:00Z",
    ])
    let records = CSVForeignInputTests.records(try CSVForeignInputTests.read(Self.ownHeader + "\n" + row + "\n"))
    #expect(records.map(\.value) == ["many"])
    #expect(records.first?.endDate == HealthDate.flexible("2024-01-01T08:05:00Z"))
  }

  @Test("the export's rule still holds for XML: a text value beside a unit is refused")
  func xmlKeepsTheExportRule() throws {
    let url = try CSVTestFiles.file(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <HealthData locale="en_US">
       <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-01-01 08:00:00 +0100" endDate="2024-01-01 08:05:00 +0100" value="many"/>
      </HealthData>

      """, name: "export.xml")
    #expect(throws: HealthPortError.self) { try ExportReader(path: url.path).read(into: CollectingSink()) }
  }

  @Test(
    "a row with several problems reports the one the reader always reported first",
    arguments: [
      ("type,startDate,value\n,2024-13-01,lots\n", "FILE:2:1: error: the type is empty"),
      ("type,startDate,value\nHKQuantityTypeIdentifierStepCount,2024-13-01,lots\n", "FILE:2:2: error: startDate"),
      (
        "type,startDate,creationDate,value\nHKQuantityTypeIdentifierStepCount,2024-01-01,never,lots\n",
        "FILE:2:4: error: the value \"lots\" of HKQuantityTypeIdentifierStepCount is not a number"
      ),
      (
        "type,startDate,creationDate,value,metadata\nX,2024-01-01,never,1,{oops}\n",
        "FILE:2:3: error: creationDate \"never\" is not a date"
      ),
    ])
  func firstProblem(text: String, expected: String) throws {
    let message = try CSVForeignInputTests.error(text)
    #expect(message.hasPrefix(expected), "\(message)")
  }

  @Test("in healthport's own table a value beside a valueText is reported after an empty source name")
  func ownTableFirstProblem() throws {
    let row = Self.ownRow([
      "type": "X", "value": "1.", "valueText": "one", "startDate": "2024-01-01T08:00Z", "endDate": "2024-01-01T08:00Z",
    ])
    let message = try CSVForeignInputTests.error(Self.ownHeader + "\n" + row + "\n")
    #expect(message.hasPrefix("FILE:2:2: error: the source name is empty"), "\(message)")
  }
}
