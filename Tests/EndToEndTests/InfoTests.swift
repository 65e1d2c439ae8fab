import Foundation
import TestSupport
import Testing

@Suite("healthport info on real exports")
struct InfoRealFixtureTests {
  static let exports = Harness.realExports()

  @Test("counts agree with an independent parser", arguments: exports)
  func countsMatch(export: URL) throws {
    let result = try Harness.run(["info", export.path, "--format", "json"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let json = try #require(try Harness.json(result.stdout) as? [String: Any])
    let xml: Data
    if export.pathExtension == "zip" {
      xml = try unzipExport(export)
    } else {
      xml = try Data(contentsOf: export)
    }
    let expected = IndependentCount.count(xml)
    #expect(json["recordCount"] as? Int == expected.topLevelRecords)
    #expect(json["recordsByType"] as? [String: Int] == expected.topLevelRecordsByType)
    #expect(json["workoutsByActivity"] as? [String: Int] == expected.workoutsByActivity)
    #expect(json["correlationRecordCount"] as? Int == expected.correlationRecords)
    #expect(json["elementCounts"] as? [String: Int] == expected.elementCounts)
  }

  @Test("the iOS 16.0 export with the malformed DTD reads and says so", .needsRealFixtures)
  func brokenDTD() throws {
    let zip = Harness.realFixtures.appendingPathComponent("jshrake-healthkit-to-sqlite/export.zip")
    let result = try Harness.run(["info", zip.path, "--format", "json"])
    #expect(result.status == 0)
    let json = try #require(try Harness.json(result.stdout) as? [String: Any])
    #expect(json["exportVersion"] as? Int == 12)
    #expect(json["workoutCount"] as? Int == 1)
    let warnings = json["warnings"] as? [String] ?? []
    #expect(warnings.contains { $0.contains("iOS 16.0") })
  }

  /// The HealthData member of a zip, extracted with the system's unzip (an independent path).
  func unzipExport(_ zip: URL) throws -> Data {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "python3", "-c",
      """
      import sys, zipfile
      z = zipfile.ZipFile(sys.argv[1])
      for n in z.namelist():
          d = z.read(n)
          if b"<HealthData" in d[:1 << 20] and not n.startswith("__MACOSX"):
              sys.stdout.buffer.write(d); break
      """, zip.path,
    ]
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return data
  }
}
