import Foundation
import Testing

@testable import HealthPort

/// The `--split` folder: exact round trips of unusual exports, atomic output, the open-file
/// budget, and located errors in hand-edited folders.
struct CSVSplitTests {
  /// An export with what the Health app never writes but the model keeps: unknown attributes
  /// and elements, text, attribute orders that fit no table, repeated metadata keys, empty
  /// values, quotes and line breaks in values, legacy Locations, an HRV list with extras.
  static let oddExport = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE HealthData [
    <!-- HealthKit Export Version: 8 -->
    <!ELEMENT HealthData ANY>
    ]>
    <HealthData locale="en_GB" extra="1">
     <ExportDate value="2019-06-01 10:00:00 +0100"/>
     <Me HKCharacteristicTypeIdentifierDateOfBirth="" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexNotSet"/>
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A, &quot;B&quot;&#10;C" unit="" creationDate="2019-06-01 09:00:00 +0100" startDate="2019-06-01 08:00:00 +0100" endDate="2019-06-01 08:10:00 +0100" value="" note="x">
      <MetadataEntry key="k" value="1"/>
      <MetadataEntry key="k" value="2" flag="y"/>
      <Mystery a="1">some text<Inner/></Mystery>
     </Record>
     <Record type="stepcount" sourceName="lower" startDate="2019-06-01 08:00:00 +0100" endDate="2019-06-01 08:00:00 +0100"/>
     <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Watch" device="&lt;&lt;HKDevice: 0x1&gt;, name:Apple Watch, model:Watch&gt;" unit="ms" startDate="2019-06-01 08:00:00 +0100" endDate="2019-06-01 08:01:00 +0100" value="41">
      <HeartRateVariabilityMetadataList odd="z">
       <InstantaneousBeatsPerMinute bpm="61" time="8:00:01.00 AM" more="q"/>
       <Unknown/>
      </HeartRateVariabilityMetadataList>
     </Record>
     <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="BP" creationDate="2019-06-01 09:00:00 +0100" startDate="2019-06-01 08:00:00 +0100" endDate="2019-06-01 08:00:00 +0100">
      <MetadataEntry key="m" value=""/>
      <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="BP" unit="mmHg" startDate="2019-06-01 08:00:00 +0100" endDate="2019-06-01 08:00:00 +0100" value="120"/>
     </Correlation>
     <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30.5" durationUnit="min" sourceName="Watch" startDate="2019-06-01 07:00:00 +0100" endDate="2019-06-01 07:30:00 +0100">
      <MetadataEntry key="HKIndoorWorkout" value="0"/>
      <WorkoutEvent type="HKWorkoutEventTypePause" date="2019-06-01 07:10:00 +0100"><MetadataEntry key="e" value="1"/></WorkoutEvent>
      <WorkoutActivity uuid="U" startDate="2019-06-01 07:00:00 +0100">
       <WorkoutEvent type="HKWorkoutEventTypeLap" date="2019-06-01 07:05:00 +0100" duration="5" durationUnit="min"/>
       <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="2019-06-01 07:00:00 +0100" endDate="2019-06-01 07:30:00 +0100" average="140" unit="count/min"/>
      </WorkoutActivity>
      <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2019-06-01 07:00:00 +0100" endDate="2019-06-01 07:30:00 +0100" sum="300" unit="kcal"><Child/></WorkoutStatistics>
      <WorkoutRoute sourceName="iPhone" startDate="2019-06-01 07:00:00 +0100" endDate="2019-06-01 07:30:00 +0100">
       <FileReference path="/workout-routes/a.gpx" size="9"/>
       <Location date="2019-06-01 07:00:00 +0100" latitude="1" longitude="2" altitude="3" horizontalAccuracy="4" verticalAccuracy="5" course="6" speed="7"/>
       <Location latitude="1" date="2019-06-01 07:00:01 +0100"/>
      </WorkoutRoute>
      <MetadataEntry key="HKIndoorWorkout" value="0"/>
     </Workout>
     <ActivitySummary dateComponents="2019-06-01" appleStandHours="3" activeEnergyBurned="100"/>
     <ActivitySummary dateComponents="2019-06-02" activeEnergyBurned="100"/>
     <Audiogram type="HKDataTypeIdentifierAudiogram" sourceName="Test" startDate="2019-06-01 07:00:00 +0100" endDate="2019-06-01 07:00:00 +0100">
      <SensitivityPoint frequencyValue="250" frequencyUnit="Hz" leftEarValue="10" leftEarUnit="dBHL"/>
      <MetadataEntry key="a" value="b"/>
     </Audiogram>
     <VisionPrescription type="Glasses" dateIssued="2019-01-01">
      <RightEye sphere="-1" sphereUnit="D"/>
      <LeftEye sphere="-1.5" sphereUnit="D"/>
      <Attachment identifier="X"/>
     </VisionPrescription>
     <ClinicalRecord type="Observation" identifier="1" sourceName="H" sourceURL="u" fhirVersion="4.0.1" receivedDate="2019-01-01 00:00:00 +0000" resourceFilePath="/c.json"/>
     <ExportDate value="again"/>
     <Me/>
     <Strange><MetadataEntry key="x" value="y"/><MetadataEntry value="only"/><Record type="r"/></Strange>
    </HealthData>

    """

  static func roundTrip(_ xml: String) throws -> (CollectingSink, CollectingSink, URL) {
    let input = try CSVTestFiles.file(xml, name: "export.xml")
    let output = input.deletingLastPathComponent().appendingPathComponent("out")
    let original = CollectingSink()
    try ExportReader(path: input.path).read(into: TeeSink([original, try CSVSplitWriter(directory: output.path)]))
    let back = CollectingSink()
    try ExportReader(path: output.path).read(into: back)
    return (original, back, output)
  }

  @Test("an export with every oddity reads back identically")
  func oddities() throws {
    let (original, back, output) = try Self.roundTrip(Self.oddExport)
    #expect(original.elements.count == 15)
    #expect(back.header == original.header)
    #expect(back.elements == original.elements)
    let files = Set(try FileManager.default.contentsOfDirectory(atPath: output.path))
    // "HKQuantityTypeIdentifierStepCount" and "stepcount" share StepCount.csv.
    #expect(files.contains("StepCount.csv") && !files.contains("stepcount.csv"))
    #expect(files.isSuperset(of: ["elements.csv", "attributes.csv", "locations.csv", "metadata.csv", "export.csv"]))
    // The non-canonical ActivitySummary went to elements.csv, the other to its table.
    let summaries = try String(contentsOf: output.appendingPathComponent("activity_summaries.csv"), encoding: .utf8)
    #expect(summaries.split(separator: "\n").count == 2)
    // Present-but-empty values are quoted, absent ones are not.
    let steps = try String(contentsOf: output.appendingPathComponent("StepCount.csv"), encoding: .utf8)
    #expect(steps.contains(",\"A, \"\"B\"\"\nC\",,,,\"\",\"\",2019-06-01 09:00:00 +0100,"))
  }

  @Test("an empty export writes export.csv only")
  func emptyExport() throws {
    let (original, back, output) = try Self.roundTrip("<HealthData locale=\"en_US\"/>\n")
    #expect(original.elements.isEmpty && back.elements.isEmpty)
    #expect(back.header == original.header)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        == [".healthport-manifest.json", "export.csv"])
  }

  @Test("150 record types stay within the open-file budget and read back")
  func manyTypes() throws {
    var xml = "<HealthData locale=\"en_US\">\n"
    for round in 0..<3 {
      for type in 0..<150 {
        let padding = String(repeating: "x", count: 600 * (type % 3))
        xml += " <Record type=\"HKQuantityTypeIdentifierT\(type)\" sourceName=\"S\(padding)\" unit=\"count\" "
        xml +=
          "startDate=\"2020-01-01 00:00:0\(round) +0000\" endDate=\"2020-01-01 00:00:0\(round) +0000\" value=\"\(type)\"/>\n"
      }
    }
    // Enough rows that tables flush while others are open.
    for _ in 0..<200 {
      xml +=
        " <Record type=\"HKQuantityTypeIdentifierT7\" sourceName=\"\(String(repeating: "y", count: 900))\" startDate=\"2020-01-01 00:00:00 +0000\" endDate=\"2020-01-01 00:00:00 +0000\"/>\n"
    }
    xml += "</HealthData>\n"
    let (original, back, output) = try Self.roundTrip(xml)
    #expect(original.elements.count == 650)
    #expect(back.elements == original.elements)
    // 150 record tables, export.csv and the manifest.
    #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).count == 152)
  }

  final class FailingSink: ExportSink {
    func begin(_ header: ExportHeader) throws {}
    func consume(_ element: ExportElement) throws { throw HealthPortError(.failure, message: "stop") }
    func end(_ report: ReadReport) throws {}
  }

  @Test("on error nothing is left: no output folder, no temporary folder")
  func atomic() throws {
    let input = try CSVTestFiles.file(Self.oddExport, name: "export.xml")
    let folder = input.deletingLastPathComponent()
    let output = folder.appendingPathComponent("out")
    do {
      let writer = try CSVSplitWriter(directory: output.path)
      #expect(throws: HealthPortError.self) {
        try ExportReader(path: input.path).read(into: TeeSink([writer, FailingSink()]))
      }
    }
    let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    #expect(left == ["export.xml"], "\(left)")
  }

  @Test("a previous split folder is replaced; another folder is refused; the input is protected")
  func replacing() throws {
    let (_, _, output) = try Self.roundTrip(Self.oddExport)
    let input = output.deletingLastPathComponent().appendingPathComponent("export.xml")
    try ExportReader(path: input.path).read(into: try CSVSplitWriter(directory: output.path + "/"))
    #expect(CSVInput.detect(path: output.path) == .splitFolder)

    let other = output.deletingLastPathComponent().appendingPathComponent("photos")
    try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
    try Data().write(to: other.appendingPathComponent("a.jpg"))
    #expect(throws: HealthPortError.self) { _ = try CSVSplitWriter(directory: other.path) }
    #expect(throws: HealthPortError.self) { _ = try CSVSplitWriter(directory: output.path, protecting: output.path) }
    #expect(throws: HealthPortError.self) { _ = try CSVSplitWriter(directory: input.path) }
  }

  static func editedFolderError(_ edit: (URL) throws -> Void) throws -> String {
    let (_, _, output) = try Self.roundTrip(Self.oddExport)
    try edit(output)
    do {
      try ExportReader(path: output.path).read(into: CollectingSink())
    } catch let error as HealthPortError {
      #expect(error.kind == .malformed)
      return error.description.replacingOccurrences(of: output.path + "/", with: "")
    }
    Issue.record("no error")
    return ""
  }

  static func replace(_ file: String, in folder: URL, _ old: String, _ new: String) throws {
    let url = folder.appendingPathComponent(file)
    let text = try String(contentsOf: url, encoding: .utf8)
    #expect(text.contains(old))
    try Data(text.replacingOccurrences(of: old, with: new).utf8).write(to: url)
  }

  @Test("hand-edited folders fail with the table, line and field")
  func editedErrors() throws {
    var message = try Self.editedFolderError {
      try Self.replace("hrv_beats.csv", in: $0, ",61,", ",61,extra,")
    }
    #expect(message.hasPrefix("hrv_beats.csv:2:5: error: the row has 5 fields"), "\(message)")
    message = try Self.editedFolderError {
      try Self.replace("workouts.csv", in: $0, "2019-06-01 07:00:00 +0100", "soon")
    }
    // Column 16: after creationDate and its derived creationISO, creationUTC.
    #expect(message.hasPrefix("workouts.csv:2:16: error: startDate \"soon\" is not a date"), "\(message)")
    message = try Self.editedFolderError { folder in
      let url = folder.appendingPathComponent("metadata.csv")
      let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
      try Data((lines[0..<1] + [lines[2], lines[1]] + lines[3...]).joined(separator: "\n").utf8).write(to: url)
    }
    #expect(message.hasPrefix("metadata.csv:3:1: error: ids must increase"), "\(message)")
    message = try Self.editedFolderError { folder in
      let handle = try FileHandle(forWritingTo: folder.appendingPathComponent("locations.csv"))
      try handle.seekToEnd()
      try handle.write(contentsOf: Data("999,1,\"unterminated\n".utf8))
      try handle.close()
    }
    #expect(message.contains("never closed"), "\(message)")
  }

  @Test(
    "a hand-edited element is refused at the cell the builder's complaint is about",
    arguments: [
      (
        "correlation_records.csv", "Systolic,BP,", "Systolic,,",
        "correlation_records.csv:2:4: error: sourceName is missing"
      ),
      (
        "workout_activities.csv", ",U,2019-06-01 07:00:00 +0100,2019-06-01T07:00:00+01:00,2019-06-01T06:00:00Z,,",
        ",U,2019-06-01 07:00:00 +0100,2019-06-01T07:00:00+01:00,2019-06-01T06:00:00Z,\"\",",
        "workout_activities.csv:2:8: error: endDate \"\" is not a date of the form YYYY-MM-DD HH:MM:SS ±HHMM"
      ),
      ("workouts.csv", "HKWorkoutActivityTypeRunning,", ",", "workouts.csv:2:2: error: workoutActivityType is missing"),
      ("file_references.csv", "/workout-routes/a.gpx", "", "file_references.csv:2:3: error: path is missing"),
      ("hrv_beats.csv", ",61,", ",,", "hrv_beats.csv:2:3: error: bpm is missing"),
      (
        "attributes.csv", "45,type,r", "46,type,r",
        "attributes.csv:14:1: error: element_id 46 names no element that precedes it"
      ),
    ])
  func builderErrors(file: String, old: String, new: String, expected: String) throws {
    let message = try Self.editedFolderError { try Self.replace(file, in: $0, old, new) }
    #expect(message == expected)
  }
}
