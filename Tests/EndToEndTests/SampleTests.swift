import Foundation
import Testing

/// `Samples/` holds an export written by Benchmarks/generate_export.py together with the counts
/// that the generator computed itself (expected.json): an independent source of truth.
@Suite("healthport info on Samples/")
struct SampleTests {
  nonisolated(unsafe) static let expected: [String: Any] = {
    let data = (try? Data(contentsOf: Harness.samples.appendingPathComponent("expected.json"))) ?? Data()
    return ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any]) ?? [:]
  }()

  static let inputs = ["export.xml", "export.zip"]

  @Test("counts match the generator's", arguments: inputs)
  func counts(input: String) throws {
    let result = try Harness.run(["info", Harness.samples.appendingPathComponent(input).path, "--format", "json"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    try check(result.stdout)
  }

  @Test("reads from stdin, XML and zip alike", arguments: inputs)
  func stdin(input: String) throws {
    let result = try Harness.run(["info", "--format", "json"], stdin: Harness.samples.appendingPathComponent(input))
    #expect(result.status == 0, "stderr: \(result.stderr)")
    try check(result.stdout)
    let dash = try Harness.run(["info", "-", "--format=json"], stdin: Harness.samples.appendingPathComponent(input))
    #expect(dash.stdout == result.stdout)
  }

  @Test("reads an unzipped export folder, finding the export by content")
  func folder() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let export = directory.appendingPathComponent("apple_health_export")
    try FileManager.default.createDirectory(at: export, withIntermediateDirectories: true)
    try "<?xml version=\"1.0\"?>\n<ClinicalDocument/>\n".write(
      to: export.appendingPathComponent("export_cda.xml"), atomically: true, encoding: .utf8)
    try FileManager.default.copyItem(
      at: Harness.samples.appendingPathComponent("export.xml"), to: export.appendingPathComponent("eksport.xml"))
    for path in [directory.path, export.path] {
      let result = try Harness.run(["info", path, "--format", "json"])
      #expect(result.status == 0, "stderr: \(result.stderr)")
      try check(result.stdout)
    }
  }

  @Test("the table form names the essentials")
  func table() throws {
    let result = try Harness.run(["info", Harness.samples.appendingPathComponent("export.zip").path])
    #expect(result.status == 0)
    let text = result.stdoutText
    // The values' column follows the longest label (here "Vision prescriptions").
    #expect(text.contains("\nExport version        14\n"), "\(text)")
    #expect(text.contains("HKQuantityTypeIdentifierStepCount"))
    #expect(text.contains("[Watch]"))
    #expect(result.stderr.isEmpty, "no progress bar outside a terminal")
  }

  func check(_ stdout: Data) throws {
    let json = try #require(try Harness.json(stdout) as? [String: Any])
    let expected = Self.expected
    try #require(!expected.isEmpty, "Samples/expected.json is missing")
    for key in [
      "recordCount", "workoutCount", "correlationCount", "correlationRecordCount", "activitySummaryCount",
      "clinicalRecordCount", "audiogramCount", "visionPrescriptionCount", "exportVersion",
    ] {
      #expect(json[key] as? Int == expected[key] as? Int, "\(key)")
    }
    for key in ["firstDate", "lastDate", "locale", "exportDate"] {
      #expect(json[key] as? String == expected[key] as? String, "\(key)")
    }
    #expect(json["recordsByType"] as? [String: Int] == expected["recordsByType"] as? [String: Int])
    #expect(json["workoutsByActivity"] as? [String: Int] == expected["workoutsByActivity"] as? [String: Int])
    let elements = json["elementCounts"] as? [String: Int] ?? [:]
    #expect(elements.values.reduce(0, +) == expected["elementCount"] as? Int)
    #expect(elements["MetadataEntry"] == expected["metadataEntryCount"] as? Int)
    #expect(elements["InstantaneousBeatsPerMinute"] == expected["instantaneousBpmCount"] as? Int)
    #expect(elements["WorkoutEvent"] == expected["workoutEventCount"] as? Int)
    #expect(elements["WorkoutStatistics"] == expected["workoutStatisticsCount"] as? Int)
    #expect(elements["WorkoutActivity"] == expected["workoutActivityCount"] as? Int)
    #expect(elements["WorkoutRoute"] == expected["workoutRouteCount"] as? Int)
    let sources = json["sources"] as? [[String: Any]] ?? []
    #expect(sources.reduce(0) { $0 + ($1["records"] as? Int ?? 0) } == expected["recordCount"] as? Int)
  }
}
