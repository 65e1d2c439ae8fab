import Foundation
import Testing

@testable import HealthPort

/// Other tools' CSV read as what it is: short type names, tdda/applehealthdata's backslash
/// escapes, its Workout and ActivitySummary tables.
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

  @Test("a file of more distinct names than are remembered still reads, with one warning")
  func manyNames() throws {
    let count = CSVTypeNames.cachedNames + 20
    let rows = (0..<count).map { "T\($0),2024-01-01,1\n" }.joined()
    let sink = try CSVForeignInputTests.read("type,startDate,value\n" + rows + "T3,2024-01-02,2\n")
    #expect(CSVForeignInputTests.records(sink).count == count + 1)
    let warnings = sink.report?.warnings ?? []
    #expect(warnings.count == 1)
    #expect(
      warnings.first?.contains("more than \(CSVTypeNames.cachedNames) type names kept as written") == true,
      "\(warnings)")
    #expect(warnings.first?.contains("'T0', 'T1',") == true)
    #expect(warnings.first?.contains("'T9' and more;") == true, "\(warnings)")
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

  @Test(
    "tdda's backslash escapes inside quotes, also across buffer refills",
    arguments: [1, 2, 3, 7, 64 << 10])
  func backslashEscapes(bufferSize: Int) throws {
    // The values as tdda writes them: `"` → `\"`, `\` → `\\`; a lone backslash before another
    // byte is itself; a doubled quote still reads as a quote.
    let written = #""Tom \"T\" \\ Co","a\b","x""y",,"","# + "\"\"\n"
    let reader = try CSVRowReader(
      source: MemoryByteSource(bytes: Array(written.utf8), name: "t.csv"), bufferSize: bufferSize)
    reader.backslashEscapes = true
    #expect(try reader.next())
    #expect((0..<reader.fieldCount).map { reader.string($0) } == [#"Tom "T" \ Co"#, #"a\b"#, #"x"y"#, "", "", ""])
    #expect(reader.isAbsent(3) && !reader.isAbsent(4))
    #expect(try !reader.next())
  }

  @Test("a tdda table's source name with quotes and backslashes reads back as written in the export")
  func tddaSourceName() throws {
    let row =
      #""Tom \"T\" \\ Phone","14.4",,"StepCount","count",2021-01-01 08:10:00 +0100,2021-01-01 08:00:00 +0100,"#
      + "2021-01-01 08:10:00 +0100,812\n"
    let record = try #require(
      CSVForeignInputTests.records(try CSVForeignInputTests.read(Self.recordHeader + row, name: "StepCount.csv")).first)
    #expect(record.sourceName == #"Tom "T" \ Phone"#)
    #expect(record.type == "HKQuantityTypeIdentifierStepCount")
    #expect(record.value == "812")
  }

  @Test("RFC 4180 files keep reading backslashes as themselves")
  func rfcUnchanged() throws {
    let text = "type,startDate,sourceName,value\nHKQuantityTypeIdentifierStepCount,2024-01-01,\"C:\\x\\\",1\n"
    let record = try #require(CSVForeignInputTests.records(try CSVForeignInputTests.read(text)).first)
    #expect(record.sourceName == #"C:\x\"#)
  }

  @Test("only tdda's exact header lines choose the backslash dialect")
  func dialectRule() {
    #expect(CSVInput.isBackslashDialect(header: Array(Self.recordHeader.dropLast().utf8)[...]))
    #expect(!CSVInput.isBackslashDialect(header: Array("\"sourceName\",\"sourceVersion\"".utf8)[...]))
    #expect(!CSVInput.isBackslashDialect(header: Array(Self.recordHeader.dropLast().uppercased().utf8)[...]))
  }

  @Test("a Workout table becomes Workouts, in the export's attribute order")
  func workouts() throws {
    let text =
      "sourceName,sourceVersion,device,creationDate,startDate,endDate,workoutActivityType,duration,durationUnit,totalDistance,totalDistanceUnit,totalEnergyBurned,totalEnergyBurnedUnit\n"
      + #""NJR \"Apple\" Watch","2.2",,2016-04-02 11:12:57 +0100,2016-04-02 10:40:38 +0100,2016-04-02 11:12:22 +0100,"HKWorkoutActivityTypeOther",31.73680251737436,"min",0,"km",139.3170000000021,"kcal""#
      + "\n"
    let sink = try CSVForeignInputTests.read(text, name: "Workout.csv")
    #expect(sink.elements.count == 1)
    guard case .workout(let workout) = try #require(sink.elements.first) else {
      Issue.record("not a Workout: \(sink.elements)")
      return
    }
    #expect(workout.workoutActivityType == "HKWorkoutActivityTypeOther")
    #expect(workout.sourceName == #"NJR "Apple" Watch"#)
    #expect(workout.sourceVersion == "2.2")
    #expect(workout.device == nil)
    #expect(workout.duration == "31.73680251737436" && workout.durationUnit == "min")
    #expect(workout.totalDistance == "0" && workout.totalDistanceUnit == "km")
    #expect(workout.totalEnergyBurned == "139.3170000000021" && workout.totalEnergyBurnedUnit == "kcal")
    #expect(workout.startDate.description == "2016-04-02 10:40:38 +0100")
    #expect(workout.extraAttributes.isEmpty)
  }

  @Test("an ActivitySummary table becomes ActivitySummaries, empty cells left out")
  func activitySummaries() throws {
    let text =
      "dateComponents,activeEnergyBurned,activeEnergyBurnedGoal,activeEnergyBurnedUnit,appleExerciseTime,appleExerciseTimeGoal,appleStandHours,appleStandHoursGoal\n"
      + "2016-04-14,700.698,680,\"kcal\",\"89\",\"30\",16,12\n2016-04-15,,,,\"6\",\"30\",2,12\n"
    let sink = try CSVForeignInputTests.read(text, name: "ActivitySummary.csv")
    let nodes = sink.elements.compactMap { if case .activitySummary(let s) = $0 { s.node } else { nil } }
    #expect(nodes.count == 2)
    #expect(
      nodes.first?.attributes == [
        Attribute("dateComponents", "2016-04-14"), Attribute("activeEnergyBurned", "700.698"),
        Attribute("activeEnergyBurnedGoal", "680"), Attribute("activeEnergyBurnedUnit", "kcal"),
        Attribute("appleExerciseTime", "89"), Attribute("appleExerciseTimeGoal", "30"),
        Attribute("appleStandHours", "16"), Attribute("appleStandHoursGoal", "12"),
      ])
    #expect(
      nodes.last?.attributes.map(\.name) == ["dateComponents"] + [
        "appleExerciseTime", "appleExerciseTimeGoal", "appleStandHours", "appleStandHoursGoal",
      ])
    // Told by content, as on stdin.
    #expect(CSVInput.isTableHeader(Array(text.prefix { $0 != "\n" }.utf8)[...]))
  }

  @Test("a Workout row without an activity type names its column")
  func workoutError() throws {
    let text =
      "sourceName,startDate,endDate,workoutActivityType\n\"W\",2016-04-02 10:40:38 +0100,2016-04-02 11:12:22 +0100,\n"
    let url = try CSVTestFiles.file(text)
    do {
      try ExportReader(path: url.path).read(into: CollectingSink())
      Issue.record("no error")
    } catch let error as HealthPortError {
      #expect(
        error.description.hasPrefix(
          "\(url.path):2:4: error: Workout is missing its required attribute 'workoutActivityType'"), "\(error)")
    }
  }
}
