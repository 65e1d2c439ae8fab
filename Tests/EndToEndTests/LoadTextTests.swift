import Foundation
import Testing

/// `load` keeps an element's text (an `extras` row of kind `text`), so it tells elements apart by
/// it too: docs/sqlite.md.
@Suite("load: elements differing only in their text")
struct LoadTextTests {
  static let export = """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">
     <ExportDate value="2024-03-01 10:00:00 +0100"/>
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" unit="count" creationDate="2024-01-02 10:00:00 +0100" startDate="2024-01-02 09:00:00 +0100" endDate="2024-01-02 09:05:00 +0100" value="10">one</Record>
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" unit="count" creationDate="2024-01-02 10:00:00 +0100" startDate="2024-01-02 09:00:00 +0100" endDate="2024-01-02 09:05:00 +0100" value="10">two</Record>
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" unit="count" creationDate="2024-01-02 10:00:00 +0100" startDate="2024-01-02 09:00:00 +0100" endDate="2024-01-02 09:05:00 +0100" value="10"/>
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" unit="count" creationDate="2024-01-02 10:00:00 +0100" startDate="2024-01-02 09:00:00 +0100" endDate="2024-01-02 09:05:00 +0100" value="10"/>
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" unit="count" creationDate="2024-01-02 10:00:00 +0100" startDate="2024-01-02 11:00:00 +0100" endDate="2024-01-02 11:05:00 +0100" value="20">
      <MetadataEntry key="note" value="v">x</MetadataEntry>
     </Record>
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Watch" unit="count" creationDate="2024-01-02 10:00:00 +0100" startDate="2024-01-02 11:00:00 +0100" endDate="2024-01-02 11:05:00 +0100" value="20">
      <MetadataEntry key="note" value="v">y</MetadataEntry>
     </Record>
     <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Cuff" creationDate="2024-01-03 08:00:00 +0100" startDate="2024-01-03 08:00:00 +0100" endDate="2024-01-03 08:00:00 +0100">first
      <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Cuff" unit="mmHg" creationDate="2024-01-03 08:00:00 +0100" startDate="2024-01-03 08:00:00 +0100" endDate="2024-01-03 08:00:00 +0100" value="120"/>
     </Correlation>
     <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Cuff" creationDate="2024-01-03 08:00:00 +0100" startDate="2024-01-03 08:00:00 +0100" endDate="2024-01-03 08:00:00 +0100">second
      <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Cuff" unit="mmHg" creationDate="2024-01-03 08:00:00 +0100" startDate="2024-01-03 08:00:00 +0100" endDate="2024-01-03 08:00:00 +0100" value="120"/>
     </Correlation>
    </HealthData>

    """

  @Test("two Records, MetadataEntries or Correlations differing only in their text are both kept; a reload adds none")
  func textTellsApart() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("text.xml")
    try Self.export.write(to: input, atomically: true, encoding: .utf8)
    let database = directory.appendingPathComponent("health.db").path
    // Counted from the export above: at 09:00 "one", "two" and the two without text (exact
    // duplicates: one row, 2 copies); at 11:00 the metadata texts "x" and "y"; two correlations.
    let query = """
      SELECT (SELECT count(*) FROM records WHERE type = 'HKQuantityTypeIdentifierStepCount'),
        (SELECT group_concat(copies, ',') FROM (SELECT copies FROM records
          WHERE type = 'HKQuantityTypeIdentifierStepCount' ORDER BY start_unix, copies)),
        (SELECT count(*) FROM correlations),
        (SELECT group_concat(value, ',') FROM (SELECT value FROM extras WHERE kind = 'text' ORDER BY value))
      """
    for run in 1...2 {
      let result = try Harness.run(["load", input.path, "--db", database, "-q"])
      #expect(result.status == 0, "load \(run): \(result.stderr)")
      let rows = try LoadStoreTests.sqlite(database, query)
      #expect(rows.first?[0] as? Int == 5, "load \(run): \(rows)")
      #expect(rows.first?[1] as? String == "1,1,2,1,1", "load \(run): \(rows)")
      #expect(rows.first?[2] as? Int == 2, "load \(run): \(rows)")
      let texts = (rows.first?[3] as? String)?.split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespacesAndNewlines)
      }
      #expect(texts?.sorted() == ["first", "one", "second", "two", "x", "y"], "load \(run): \(rows)")
    }
  }
}
