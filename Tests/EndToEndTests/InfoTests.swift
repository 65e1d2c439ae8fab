import Foundation
import TestSupport
import Testing

@Suite("healthport info on real exports")
struct InfoRealFixtureTests {
  static let exports = Harness.realExports()

  @Test("counts agree with an independent parser", .needsRealFixtures, arguments: exports)
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

@Suite("healthport info warnings")
struct InfoWarningTests {
  /// Sets the `startDate` of the line to `date`.
  static func setStart(_ line: String, _ date: String) -> String {
    guard let range = line.range(of: #"startDate="[^"]*""#, options: .regularExpression) else { return line }
    return line.replacingCharacters(in: range, with: "startDate=\"\(date)\"")
  }

  @Test("samples dated more than a day after the export's own date are counted in a warning")
  func futureDates() throws {
    let text = try String(contentsOf: Harness.samples.appendingPathComponent("export.xml"), encoding: .utf8)
    #expect(text.contains("<ExportDate value=\"2024-12-03 20:15:42 +0100\"/>"))
    var lines = text.components(separatedBy: "\n")
    let records = lines.indices.filter { lines[$0].hasPrefix(" <Record ") }
    let workout = try #require(lines.firstIndex { $0.hasPrefix(" <Workout ") })
    // Three samples a clock-skewed device dated years ahead, one two hours after the export (not counted).
    lines[records[0]] = Self.setStart(lines[records[0]], "2030-01-01 07:58:12 +0100")
    lines[records[5]] = Self.setStart(lines[records[5]], "2031-06-01 09:00:00 +0200")
    lines[workout] = Self.setStart(lines[workout], "2030-02-01 10:00:00 +0100")
    lines[records[9]] = Self.setStart(lines[records[9]], "2024-12-03 22:15:42 +0100")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("skewed.xml")
    try lines.joined(separator: "\n").write(to: path, atomically: true, encoding: .utf8)

    let result = try Harness.run(["info", path.path, "--format", "json"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let json = try #require(try Harness.json(result.stdout) as? [String: Any])
    let warnings = json["warnings"] as? [String] ?? []
    #expect(
      warnings.contains(
        "3 sample(s) dated more than a day after the export's own date 2024-12-03 20:15:42 +0100 (the latest 2031-06-01 09:00:00 +0200): a device's clock was probably wrong"
      ), "\(warnings)")
    let table = try Harness.run(["info", path.path])
    #expect(table.stdoutText.contains("  - 3 sample(s) dated more than a day after the export's own date"))

    // The sample itself has none.
    let clean = try Harness.run(["info", Harness.samples.appendingPathComponent("export.xml").path])
    #expect(!clean.stdoutText.contains("after the export's own date"))
  }
}
