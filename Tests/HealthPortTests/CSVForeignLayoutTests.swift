import Foundation
import Testing

@testable import HealthPort

/// Other tools' CSV read as what it is: short type names.
struct CSVForeignLayoutTests {
  static let recordHeader = "sourceName,sourceVersion,device,type,unit,creationDate,startDate,endDate,value\n"

  @Test("the short name of every identifier healthport knows expands to that identifier")
  func everyShortName() throws {
    for identifier in KnownNames.typeIdentifiers {
      let short = try #require(
        KnownNames.typePrefixes.first { identifier.hasPrefix($0) }.map { String(identifier.dropFirst($0.count)) })
      #expect(KnownNames.readTypeName(short) == .expanded(identifier), "\(short)")
      #expect(KnownNames.readTypeName(short.uppercased()) == .expanded(identifier), "\(short)")
      #expect(KnownNames.readTypeName(identifier) == .asWritten)
    }
    // Read from a file: every row gets its full identifier, and nothing is worth a warning.
    let rows = KnownNames.typeIdentifiers.map { identifier in
      "\"Health\",,,\"\(KnownNames.shortTypeName(identifier))\",,,2024-01-02 03:04:05 +0100,2024-01-02 03:04:05 +0100,1\n"
    }
    let sink = try CSVForeignInputTests.read(Self.recordHeader + rows.joined(), name: "all.csv")
    #expect(CSVForeignInputTests.records(sink).map(\.type) == KnownNames.typeIdentifiers)
    #expect(sink.report?.warnings == [])
  }

  @Test("a name matching no known type, or several, stays as written; one warning names them")
  func unmatchedNames() throws {
    let known = ["HKQuantityTypeIdentifierFoo", "HKCategoryTypeIdentifierFoo", "HKQuantityTypeIdentifierBar"]
    #expect(KnownNames.readTypeName("foo", known: known) == .unmatched(candidates: Array(known.prefix(2))))
    #expect(KnownNames.readTypeName("Bar", known: known) == .expanded("HKQuantityTypeIdentifierBar"))
    #expect(KnownNames.readTypeName("Baz", known: known) == .unmatched(candidates: []))
    #expect(KnownNames.readTypeName("HKQuantityTypeIdentifierNewer") == .asWritten)

    let text =
      "type,startDate,value\nSteps,2024-01-01,1\nSteps,2024-01-02,2\nHeartRate,2024-01-02,60\n"
      + "Weight,2024-01-03,70\nSteps,2024-01-04,3\nHKQuantityTypeIdentifierNewer,2024-01-04,3\n"
    let sink = try CSVForeignInputTests.read(text, name: "mixed.csv")
    #expect(
      CSVForeignInputTests.records(sink).map(\.type) == [
        "Steps", "Steps", "HKQuantityTypeIdentifierHeartRate", "Weight", "Steps", "HKQuantityTypeIdentifierNewer",
      ])
    let warnings = sink.report?.warnings ?? []
    #expect(warnings.count == 1)
    let warning = try #require(warnings.first)
    #expect(warning.contains("mixed.csv: 2 type names kept as written"), "\(warning)")
    #expect(warning.contains("'Steps', 'Weight';"), "\(warning)")
  }

  @Test("healthport's own single table keeps its types as written, without a warning")
  func ownTableUnchanged() throws {
    let header = CSVRecordsTable.columns.map { "\"\($0)\"" }.joined(separator: ",")
    let cells = CSVRecordsTable.columns.map { column -> String in
      switch column {
      case "type": "StepCount"
      case "sourceName": "Phone"
      case "startDate", "endDate": "2024-01-02T03:04:05+01:00"
      case "value": "5."
      default: ""
      }
    }
    let sink = try CSVForeignInputTests.read(header + "\n" + cells.joined(separator: ",") + "\n")
    #expect(CSVForeignInputTests.records(sink).map(\.type) == ["StepCount"])
    #expect(sink.report?.warnings == [])
  }
}
