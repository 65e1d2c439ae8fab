import Foundation
import TestSupport
import Testing

/// What `--split` writes to `attributes` and `elements` is, in a Parquet dataset, on the row it
/// belongs to (its `extra` JSON column), or a top-level row of `elements`.
@Suite("convert --to parquet: unknown attributes and children", .needsPythonClients)
struct ParquetExtrasTests {
  /// Unknown attributes and children on Records, their metadata and HRV beats, a Correlation, a
  /// Workout and each of its children, generic elements that fit their table and ones that do not,
  /// an unknown element holding known ones, and top-level elements of no table.
  static let export = #"""
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE HealthData [
    <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
    ]>
    <HealthData locale="en_US">
     <ExportDate value="2024-05-01 10:00:00 +0200"/>
     <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-01-02" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" futureTrait="x"/>
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" value="12" startDate="2024-04-01 10:00:00 +0200" endDate="2024-04-01 10:05:00 +0200" creationDate="2024-04-01 10:06:00 +0200" newAttr="a&quot;b" other="2">
      <MetadataEntry key="k" value="v" flag="1"/>
      <Extra note="n">some text<Inner deep="1"/></Extra>
      <Location date="2024-04-01 10:00:00 +0200" latitude="1" longitude="2"/>
      <HeartRateVariabilityMetadataList odd="o">
       <InstantaneousBeatsPerMinute bpm="60" time="10:00:00.00 AM" extra="e"><Note/></InstantaneousBeatsPerMinute>
      </HeartRateVariabilityMetadataList>
     </Record>
     <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" value="70" startDate="2024-04-02 10:00:00 +0200" endDate="2024-04-02 10:00:00 +0200"/>
     <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Cuff" startDate="2024-04-03 10:00:00 +0200" endDate="2024-04-03 10:00:00 +0200" cuff="left">
      <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Cuff" unit="mmHg" value="120" startDate="2024-04-03 10:00:00 +0200" endDate="2024-04-03 10:00:00 +0200" arm="left"/>
      <Mystery/>
     </Correlation>
     <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" startDate="2024-04-04 10:00:00 +0200" endDate="2024-04-04 10:30:00 +0200" weather="sunny">
      <WorkoutEvent type="HKWorkoutEventTypePause" date="2024-04-04 10:10:00 +0200" tag="t"><Why reason="tired"/></WorkoutEvent>
      <Weird kind="w"><Location date="2024-04-04 10:00:00 +0200" latitude="3" longitude="4"/><MetadataEntry key="inside" value="weird"/></Weird>
      <WorkoutActivity uuid="U1" startDate="2024-04-04 10:00:00 +0200" endDate="2024-04-04 10:30:00 +0200" lap="1"><Split n="1"/></WorkoutActivity>
      <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="2024-04-04 10:00:00 +0200" endDate="2024-04-04 10:30:00 +0200" average="140" unit="count/min" p95="170"><Zone z="3"/></WorkoutStatistics>
      <WorkoutRoute sourceName="Watch" startDate="2024-04-04 10:00:00 +0200" endDate="2024-04-04 10:30:00 +0200" format="gpx">
       <FileReference path="/workout-routes/route_x.gpx" checksum="abc"><Hash algo="sha"/></FileReference>
      </WorkoutRoute>
     </Workout>
     <ActivitySummary dateComponents="2024-04-04" activeEnergyBurned="500" activeEnergyBurnedGoal="600" activeEnergyBurnedUnit="kcal"><Ring color="red"/></ActivitySummary>
     <ActivitySummary activeEnergyBurned="500" dateComponents="2024-04-05"/>
     <Audiogram type="HKDataTypeIdentifierAudiogram" sourceName="Test" startDate="2024-04-06 10:00:00 +0200" endDate="2024-04-06 10:00:00 +0200">
      <SensitivityPoint frequencyValue="1000" frequencyUnit="Hz" leftEarValue="10" leftEarUnit="dBHL" odd="1"/>
      <SensitivityPoint frequencyValue="2000" frequencyUnit="Hz" leftEarValue="15" leftEarUnit="dBHL"/>
     </Audiogram>
     <FutureThing x="1" y="2">top text<Child c="1"><Grandchild/></Child></FutureThing>
     <ExportDate value="2024-05-01 10:00:00 +0200" tz="x"/>
    </HealthData>
    """#

  @Test("every attribute and element of --split's attributes and elements is in a row's extra, read by json.loads")
  func extrasEqualSplit() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("export.xml")
    try Self.export.write(to: input, atomically: true, encoding: .utf8)
    try ParquetDatasetTests.check(input, in: directory)
    let query = """
      import json, sys, pyarrow.dataset as ds
      def extra(table, id):
          rows = ds.dataset(sys.argv[1] + "/" + table, format="parquet").to_table().to_pylist()
          return json.loads(next(r for r in rows if r["id"] == id)["extra"])
      workout = extra("workouts", 15)
      print(json.dumps([extra("records", 3)["attributes"], workout["attributes"], workout["children"][0]["element"],
                        [c["id"] for c in workout["children"][0]["children"]], extra("elements", 34)]))
      """
    let result = try TestEnvironment.runClientPython(query, [directory.appendingPathComponent("dataset").path])
    #expect(
      result.stdout
        == #"[[["newAttr", "a\"b"], ["other", "2"]], [["weather", "sunny"]], "Weird", [19, 20], "#
        + #"{"attributes": [["x", "1"], ["y", "2"]], "children": [{"id": 35, "element": "Child", "#
        + #""attributes": [["c", "1"]], "children": [{"id": 36, "element": "Grandchild"}]}]}]"# + "\n",
      "\(result.stderr)")
  }

  @Test("--drop-identifiers filters what a row's extra holds too")
  func extrasDropIdentifiers() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("export.xml")
    try Self.export.replacingOccurrences(of: "sourceName=\"Test\"", with: "sourceName=\"Anna’s iPhone\" odd=\"1\"")
      .write(to: input, atomically: true, encoding: .utf8)
    let dataset = directory.appendingPathComponent("dataset")
    let run = try Harness.run(["convert", input.path, "--to", "parquet", "-o", dataset.path, "--drop-identifiers"])
    #expect(run.status == 0, "\(run.stderr)")
    let query = """
      import json, sys, pyarrow.dataset as ds
      rows = ds.dataset(sys.argv[1] + "/elements", format="parquet").to_table().to_pylist()
      names = ("HKCharacteristicTypeIdentifierDateOfBirth", "sourceName")
      print(json.dumps([[p for p in json.loads(r["extra"])["attributes"] if p[0] in names]
                        for r in rows if r["element"] in ("Me", "Audiogram")]))
      """
    let result = try TestEnvironment.runClientPython(query, [dataset.path])
    #expect(
      result.stdout == #"[[["HKCharacteristicTypeIdentifierDateOfBirth", "1990"]], [["sourceName", "iPhone"]]]"# + "\n",
      "\(result.stderr)")
  }
}
