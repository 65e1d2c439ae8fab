import Foundation
import Testing

/// Tables for people: aligned by display width, invisible differences shown, units as people read them.
@Suite("Table output")
struct TableOutputTests {
  static let sample = Harness.samples.appendingPathComponent("export.xml")

  /// Sources whose names hold an emoji, CJK text, a combining accent, and two that differ only by
  /// a non-breaking space; `count` step records each.
  static let names: [(String, Int)] = [
    ("Ana 🏃 Steps", 1), ("歩数アプリ", 2), ("Cafe\u{301} Walk", 3), ("Anna Phone", 4), ("Anna\u{A0}Phone", 5),
    ("Plain", 12),
  ]

  static func export() -> String {
    var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
    text += " <ExportDate value=\"2024-12-03 20:15:42 +0100\"/>\n"
    for (name, count) in names {
      for index in 0..<count {
        text +=
          " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"\(name)\" unit=\"count\""
          + " startDate=\"2024-01-0\(index % 9 + 1) 08:00:00 +0100\" endDate=\"2024-01-0\(index % 9 + 1) 08:05:00 +0100\""
          + " value=\"10\"/>\n"
      }
    }
    return text + "</HealthData>\n"
  }

  /// Display widths of `lines`, computed by Python's unicodedata (East Asian W/F = 2, combining and
  /// format characters = 0, else 1).
  static func widths(_ lines: [String]) throws -> [Int] {
    let output = try MessagesTests.python(
      """
      import sys, unicodedata
      def width(s):
          w = 0
          for c in s:
              if unicodedata.combining(c) or unicodedata.category(c) in ('Mn', 'Me', 'Cf'):
                  continue
              w += 2 if unicodedata.east_asian_width(c) in ('W', 'F') else 1
          return w
      for line in sys.stdin.read().split('\\n'):
          print(width(line))
      """, [], stdin: lines.joined(separator: "\n"))
    return output.split(separator: "\n").compactMap { Int($0) }
  }

  @Test("info: source rows with emoji, CJK and combining marks line up; a non-breaking space is shown")
  func infoSources() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("export.xml")
    try Self.export().write(to: path, atomically: true, encoding: .utf8)
    let result = try Harness.run(["info", path.path])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let lines = result.stdoutText.components(separatedBy: "\n")
    let start = try #require(lines.firstIndex(of: "Sources (records)"))
    let rows = Array(lines[(start + 1)...].prefix { !$0.isEmpty })
    #expect(rows.count == Self.names.count, "\(rows)")
    // Every count ends in the same column.
    let widths = try Self.widths(rows)
    #expect(widths.count == rows.count && Set(widths).count == 1, "\(widths): \(rows)")
    #expect(rows.contains { $0.contains("Anna⍽Phone [unknown product]") }, "\(rows)")
    #expect(rows.contains { $0.contains("Anna Phone [unknown product]") }, "\(rows)")
    // JSON keeps the names as written.
    let json = try Harness.run(["info", path.path, "--format", "json"])
    #expect(json.stdoutText.contains("\"Anna\u{A0}Phone\""))
  }

  @Test("workouts: a source with an emoji keeps the product column aligned")
  func workoutsAlignment() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("export.xml")
    var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
    for (name, day) in [("Run 🏃 Club", 1), ("跑步", 2), ("Plain\u{A0}Run", 3)] {
      text +=
        " <Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" duration=\"30\" durationUnit=\"min\""
        + " sourceName=\"\(name)\" sourceVersion=\"1\" device=\"&lt;&lt;HKDevice: 0x1&gt;, name:Apple Watch, model:Watch&gt;\""
        + " startDate=\"2024-01-0\(day) 08:00:00 +0100\" endDate=\"2024-01-0\(day) 08:30:00 +0100\"/>\n"
    }
    try (text + "</HealthData>\n").write(to: path, atomically: true, encoding: .utf8)
    let result = try Harness.run(["workouts", path.path])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let rows = result.stdoutText.split(separator: "\n").map(String.init).filter { $0.hasPrefix("2024-") }
    #expect(rows.count == 3)
    #expect(rows.allSatisfy { $0.hasSuffix("Watch") }, "\(rows)")
    #expect(rows.contains { $0.contains("Plain⍽Run") })
    let widths = try Self.widths(rows)
    #expect(Set(widths).count == 1, "\(widths): \(rows)")
  }

  @Test("workouts: one workout is '1 workout'")
  func singular() throws {
    let result = try Harness.run(["workouts", Self.sample.path, "--activity", "cycling"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let total = try #require(result.stdoutText.split(separator: "\n").last)
    #expect(total.hasPrefix("total") && total.contains(" 1 workout "), "\(total)")
  }

  @Test("stats: % quantities are percentages in tables, fractions as written in CSV and JSON")
  func percent() throws {
    // The sample's one OxygenSaturation record has value="0.97" (unit %): 97 % in the table.
    let table = try Harness.run(["stats", Self.sample.path, "--type", "OxygenSaturation"])
    #expect(table.status == 0, "stderr: \(table.stderr)")
    let row = try #require(table.stdoutText.split(separator: "\n").dropFirst().first)
    #expect(row.split(separator: " ").prefix(4) == ["2024-11-28", "97", "1", "%"], "\(row)")
    let csv = try Harness.run(["stats", Self.sample.path, "--type", "OxygenSaturation", "--format", "csv"])
    #expect(csv.stdoutText == Harness.csvHeader("period,value,samples,unit") + "2024-11-28,0.97,1,%\n")
    let json = try Harness.run(["stats", Self.sample.path, "--type", "OxygenSaturation", "--format", "json"])
    #expect(json.stdoutText.contains("\"value\": 0.97,"), "\(json.stdoutText)")
    // A count stays a count.
    let count = try Harness.run(["stats", Self.sample.path, "--type", "OxygenSaturation", "--agg", "count"])
    let countRow = try #require(count.stdoutText.split(separator: "\n").dropFirst().first)
    #expect(countRow.split(separator: " ").prefix(2) == ["2024-11-28", "1"], "\(countRow)")
  }
}
