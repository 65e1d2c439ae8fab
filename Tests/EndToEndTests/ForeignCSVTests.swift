import Foundation
import TestSupport
import Testing

/// The CSV files tdda/applehealthdata 1.3 writes from an export (`Tests/Fixtures/foreign-csv/
/// tdda_layout.py` writes them as it does: short type names, every string quoted, backslash
/// escapes) read as what they are: the answers equal the export's.
@Suite("Other tools' CSV files")
struct ForeignCSVTests {
  static let sampleZip = Harness.samples.appendingPathComponent("export.zip")
  static let writer = Harness.repoRoot.appendingPathComponent("Tests/Fixtures/foreign-csv/tdda_layout.py")

  /// The tdda files of `export`, in a folder of `directory`.
  static func tdda(_ export: URL, in directory: URL) throws -> URL {
    let folder = directory.appendingPathComponent("tdda-\(export.deletingPathExtension().lastPathComponent)")
    let run = try Harness.runTool("/usr/bin/env", ["python3", writer.path, export.path, folder.path])
    try #require(run.status == 0, "\(run.output)")
    return folder
  }

  /// An export as iOS 14 wrote them (Workouts carry `total*` attributes), with source names that
  /// need tdda's escapes, Records in a Correlation (which tdda leaves out, as their copies are
  /// top-level), workout events and metadata (which tdda drops), two years of steps from two
  /// sources, sleep, and activity summaries.
  static func olderExport(in directory: URL) throws -> URL {
    let phone = #"Tom's &quot;Best&quot; \ Phone"#
    let phoneDevice =
      "&lt;&lt;HKDevice: 0x2830a1b80&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone12,1, software:14.4&gt;"
    let watch = "Tom’s Apple Watch"
    let watchDevice =
      "&lt;&lt;HKDevice: 0x2830a2f30&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch5,2, software:7.3&gt;"
    var body = ""
    func record(
      _ type: String, _ source: String, _ device: String, _ unit: String?, _ start: String, _ end: String,
      _ value: String, metadata: Bool = false
    ) {
      let unitAttribute = unit.map { " unit=\"\($0)\"" } ?? ""
      let open =
        " <Record type=\"\(type)\" sourceName=\"\(source)\" sourceVersion=\"14.4\" device=\"\(device)\"\(unitAttribute) creationDate=\"\(end)\" startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(value)\""
      body +=
        metadata ? open + ">\n  <MetadataEntry key=\"HKWasUserEntered\" value=\"0\"/>\n </Record>\n" : open + "/>\n"
    }
    let days = ["2020-12-30", "2020-12-31", "2021-01-01", "2021-06-15"]
    for (index, day) in days.enumerated() {
      record(
        "HKQuantityTypeIdentifierStepCount", phone, phoneDevice, "count", "\(day) 08:00:00 +0100",
        "\(day) 08:10:00 +0100", "\(812 + index * 37)", metadata: index == 1)
      record(
        "HKQuantityTypeIdentifierStepCount", watch, watchDevice, "count", "\(day) 23:55:00 -0500",
        "\(day) 23:59:00 -0500", "\(95 + index)")
    }
    record(
      "HKCategoryTypeIdentifierSleepAnalysis", watch, watchDevice, nil, "2020-12-30 23:10:00 +0100",
      "2020-12-31 06:40:00 +0100", "HKCategoryValueSleepAnalysisInBed")
    record(
      "HKCategoryTypeIdentifierSleepAnalysis", watch, watchDevice, nil, "2020-12-30 23:30:00 +0100",
      "2020-12-31 06:20:00 +0100", "HKCategoryValueSleepAnalysisAsleep")
    record(
      "HKCategoryTypeIdentifierSleepAnalysis", phone, phoneDevice, nil, "2020-12-31 22:50:00 +0100",
      "2021-01-01 07:05:00 +0100", "HKCategoryValueSleepAnalysisInBed")
    record(
      "HKQuantityTypeIdentifierBloodPressureSystolic", phone, phoneDevice, "mmHg", "2021-01-01 09:00:00 +0100",
      "2021-01-01 09:00:00 +0100", "121")
    body += """
       <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="\(phone)" sourceVersion="14.4" creationDate="2021-01-01 09:00:00 +0100" startDate="2021-01-01 09:00:00 +0100" endDate="2021-01-01 09:00:00 +0100">
        <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="\(phone)" sourceVersion="14.4" unit="mmHg" creationDate="2021-01-01 09:00:00 +0100" startDate="2021-01-01 09:00:00 +0100" endDate="2021-01-01 09:00:00 +0100" value="121"/>
       </Correlation>

      """
    let workouts: [(String, String, String?, String?, String, String)] = [
      ("Running", "32.51666666666667", "5.012318204", "km", "351.2", "2020-12-30 08:40:02 +0100"),
      ("Walking", "45.2", "2.1", "mi", "180.5", "2020-12-31 17:00:00 +0100"),
      ("Running", "28.1", "4.5", "km", "300", "2021-01-01 08:00:00 +0100"),
      ("Yoga", "60", nil, nil, "150.25", "2021-01-01 18:00:00 +0100"),
      ("Cycling", "61.5", "21.75", "km", "512", "2021-06-15 07:00:00 +0100"),
      ("Swimming", "30", "1200", "m", "250", "2021-06-15 19:00:00 +0100"),
    ]
    for (activity, duration, distance, distanceUnit, energy, start) in workouts {
      let totals =
        distance.map { "totalDistance=\"\($0)\" totalDistanceUnit=\"\(distanceUnit ?? "")\" " } ?? ""
      body += """
         <Workout workoutActivityType="HKWorkoutActivityType\(activity)" duration="\(duration)" durationUnit="min" \(totals)totalEnergyBurned="\(energy)" totalEnergyBurnedUnit="kcal" sourceName="\(watch)" sourceVersion="7.3" device="\(watchDevice)" creationDate="\(start)" startDate="\(start)" endDate="\(start)">
          <MetadataEntry key="HKIndoorWorkout" value="0"/>
          <WorkoutEvent type="HKWorkoutEventTypePause" date="\(start)"/>
         </Workout>

        """
    }
    for (day, energy) in [("2020-12-30", "388.211"), ("2020-12-31", "402.87")] {
      body +=
        " <ActivitySummary dateComponents=\"\(day)\" activeEnergyBurned=\"\(energy)\" activeEnergyBurnedGoal=\"500\" activeEnergyBurnedUnit=\"kcal\" appleMoveTime=\"0\" appleMoveTimeGoal=\"0\" appleExerciseTime=\"24\" appleExerciseTimeGoal=\"30\" appleStandHours=\"11\" appleStandHoursGoal=\"12\"/>\n"
    }
    let text = """
      <?xml version="1.0" encoding="UTF-8"?>
      <HealthData locale="en_US">
       <ExportDate value="2021-07-01 10:00:00 +0100"/>
       <Me HKCharacteristicTypeIdentifierDateOfBirth="" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexNotSet" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet"/>
      \(body)</HealthData>

      """
    let url = directory.appendingPathComponent("older.xml")
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  /// Runs a command on the export and on one of its tdda files; both stdouts, equal when the
  /// file reads as what it holds.
  static func expectSameAnswer(
    _ arguments: [String], export: URL, file: URL, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let fromExport = try Harness.run([arguments[0], export.path] + arguments.dropFirst())
    let fromFile = try Harness.run([arguments[0], file.path] + arguments.dropFirst())
    #expect(fromExport.status == 0, "\(fromExport.stderr)", sourceLocation: sourceLocation)
    #expect(fromFile.status == 0, "\(fromFile.stderr)", sourceLocation: sourceLocation)
    #expect(!fromExport.stdout.isEmpty, sourceLocation: sourceLocation)
    #expect(!fromFile.stdoutText.contains("(no data)"), sourceLocation: sourceLocation)
    #expect(fromFile.stdoutText == fromExport.stdoutText, "\(arguments)", sourceLocation: sourceLocation)
    #expect(!fromFile.stderr.contains("kept as written"), "\(fromFile.stderr)", sourceLocation: sourceLocation)
  }

  @Test("steps, stats and sleep on the sample's tdda files equal the export's")
  func sampleAnswers() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let files = try Self.tdda(Self.sampleZip, in: directory)
    let steps = files.appendingPathComponent("StepCount.csv")
    for by in ["year", "day"] {
      try Self.expectSameAnswer(["steps", "--by", by, "--format", "csv"], export: Self.sampleZip, file: steps)
    }
    try Self.expectSameAnswer(["steps", "--by", "year"], export: Self.sampleZip, file: steps)
    try Self.expectSameAnswer(
      ["stats", "--type", "StepCount", "--by", "month", "--format", "csv"], export: Self.sampleZip, file: steps)
    try Self.expectSameAnswer(
      ["stats", "--type", "HeartRate", "--agg", "avg", "--format", "csv"], export: Self.sampleZip,
      file: files.appendingPathComponent("HeartRate.csv"))
    try Self.expectSameAnswer(
      ["sleep", "--format", "csv"], export: Self.sampleZip, file: files.appendingPathComponent("SleepAnalysis.csv"))
  }

  @Test("an iOS 14 export's tdda files: steps, sleep, workouts and their summary equal the export's")
  func olderExportAnswers() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let export = try Self.olderExport(in: directory)
    let files = try Self.tdda(export, in: directory)
    let steps = files.appendingPathComponent("StepCount.csv")
    let workouts = files.appendingPathComponent("Workout.csv")
    try Self.expectSameAnswer(["steps", "--by", "year", "--format", "csv"], export: export, file: steps)
    try Self.expectSameAnswer(["steps", "--by", "year"], export: export, file: steps)
    try Self.expectSameAnswer(
      ["stats", "--type", "StepCount", "--format", "csv"], export: export, file: steps)
    try Self.expectSameAnswer(
      ["sleep", "--format", "csv"], export: export, file: files.appendingPathComponent("SleepAnalysis.csv"))
    try Self.expectSameAnswer(["workouts", "--summary"], export: export, file: workouts)
    try Self.expectSameAnswer(["workouts", "--summary", "--format", "csv"], export: export, file: workouts)
    // One row per workout, the same but for `indoor`, which comes from the metadata tdda drops.
    func rows(_ input: URL) throws -> [String] {
      let run = try Harness.run(["workouts", input.path, "--format", "csv"])
      #expect(run.status == 0, "\(run.stderr)")
      return run.stdoutText.split(separator: "\n").map {
        $0.split(separator: ",", omittingEmptySubsequences: false).dropLast().joined(separator: ",")
      }
    }
    let fromExport = try rows(export)
    #expect(fromExport.count == 7)
    #expect(try rows(workouts) == fromExport)
  }

  @Test(
    "the tdda files of the real exports whose Workouts carry totals", .needsRealFixtures,
    arguments: ["tdda-applehealthdata/export6s3sample.xml", "dogsheep-healthkit-to-sqlite/export.xml"])
  func realExports(name: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let export = Harness.realFixtures.appendingPathComponent(name)
    let files = try Self.tdda(export, in: directory)
    try Self.expectSameAnswer(
      ["workouts", "--summary", "--format", "csv"], export: export, file: files.appendingPathComponent("Workout.csv"))
    let steps = files.appendingPathComponent("StepCount.csv")
    if FileManager.default.fileExists(atPath: steps.path) {
      try Self.expectSameAnswer(["steps", "--by", "year", "--format", "csv"], export: export, file: steps)
    }
  }

  @Test("source names with a quote and a backslash read back as the export holds them")
  func escapedSourceNames() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let export = try Self.olderExport(in: directory)
    let files = try Self.tdda(export, in: directory)
    let written = try String(contentsOf: files.appendingPathComponent("StepCount.csv"), encoding: .utf8)
    #expect(written.contains(#""Tom's \"Best\" \\ Phone""#), "the fixture is not in tdda's dialect")
    func sources(_ input: URL, _ extra: [String] = []) throws -> [String] {
      let run = try Harness.run(["info", input.path, "--format", "json"] + extra)
      #expect(run.status == 0, "\(run.stderr)")
      let json = try #require(try Harness.json(run.stdout) as? [String: Any])
      let sources = try #require(json["sources"] as? [[String: Any]])
      return sources.map { "\($0["name"] ?? "") \($0["product"] ?? "") \($0["records"] ?? "")" }
    }
    let names = try sources(files.appendingPathComponent("StepCount.csv"))
    #expect(names.contains(#"Tom's "Best" \ Phone iPhone 4"#), "\(names)")
    #expect(names == (try sources(export, ["--type", "StepCount"])))
  }

  @Test("convert writes the full identifiers, and the Records equal the export's")
  func convertToXML() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let files = try Self.tdda(Self.sampleZip, in: directory)
    let run = try Harness.run(["convert", files.appendingPathComponent("StepCount.csv").path, "--to", "xml"])
    #expect(run.status == 0, "\(run.stderr)")
    let lines = run.stdoutText.split(separator: "\n").filter { $0.contains("<Record ") }
    #expect(lines.count == 27)
    #expect(lines.allSatisfy { $0.contains(#"<Record type="HKQuantityTypeIdentifierStepCount" "#) })
    // The same Records as the export's top-level StepCount (tdda keeps no metadata).
    let export = try Harness.run(["convert", Self.sampleZip.path, "--to", "xml", "--type", "StepCount"])
    let exported = export.stdoutText.split(separator: "\n").filter { $0.hasPrefix(" <Record ") }
      .map { $0.hasSuffix("/>") ? String($0) : String($0.dropLast()) + "/>" }
    #expect(lines.map(String.init) == exported)
  }

  @Test("the activity summaries read as ActivitySummary elements, from a file and from stdin")
  func activitySummaries() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let files = try Self.tdda(Self.sampleZip, in: directory)
    let table = files.appendingPathComponent("ActivitySummary.csv")
    let run = try Harness.run(["convert", table.path, "--to", "xml"])
    #expect(run.status == 0, "\(run.stderr)")
    let export = try Harness.run(["convert", Self.sampleZip.path, "--to", "xml"])
    // tdda 1.3 writes no move time: the export's summaries without it.
    let expected = export.stdoutText.split(separator: "\n").filter { $0.contains("<ActivitySummary ") }
      .map { $0.replacingOccurrences(of: #" appleMoveTime(Goal)?="[^"]*""#, with: "", options: .regularExpression) }
    let got = run.stdoutText.split(separator: "\n").filter { $0.contains("<ActivitySummary ") }.map(String.init)
    #expect(got.count == 5)
    #expect(got == expected)
    let stdin = try Harness.run(["info", "--format", "json"], stdin: table)
    #expect(stdin.status == 0, "\(stdin.stderr)")
    #expect(stdin.stdoutText.contains(#""activitySummaryCount": 5"#))
    // And the steps on stdin, in tdda's dialect.
    let steps = try Harness.run(
      ["steps", "--by", "year", "--format", "csv"], stdin: files.appendingPathComponent("StepCount.csv"))
    let expectedSteps = try Harness.run(["steps", Self.sampleZip.path, "--by", "year", "--format", "csv"])
    #expect(steps.stdoutText == expectedSteps.stdoutText)
  }
}
