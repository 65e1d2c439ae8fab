import Foundation
import Testing

/// An empty answer from an input that holds records says why on stderr, also with `--quiet`;
/// stdout and the exit code stay as they were.
@Suite("Empty answers explained")
struct EmptyAnswerTests {
  static let sample = Harness.samples.appendingPathComponent("export.zip")
  static var hasSamples: Bool { FileManager.default.fileExists(atPath: sample.path) }

  /// The days of the earliest start and latest end of a type's top-level Records, from Python.
  static func span(_ type: String) throws -> (count: Int, first: String, last: String) {
    let script = """
      import sys, zipfile, datetime, xml.etree.ElementTree as ET
      z = zipfile.ZipFile(sys.argv[1])
      name = next(n for n in z.namelist() if n.endswith("export.xml"))
      rs = [r for r in ET.fromstring(z.read(name)).findall("Record") if r.get("type") == sys.argv[2]]
      t = lambda s: datetime.datetime.strptime(s, "%Y-%m-%d %H:%M:%S %z").timestamp()
      print(len(rs), min(rs, key=lambda r: t(r.get("startDate"))).get("startDate")[:10],
            max(rs, key=lambda r: t(r.get("endDate"))).get("endDate")[:10])
      """
    let parts = try Harness.toolOutput("/usr/bin/env", ["python3", "-c", script, sample.path, type])
      .split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    return (Int(parts[0])!, parts[1], parts[2])
  }

  @Test("filters that leave nothing: the type's span", .enabled(if: hasSamples, "Samples/ is absent"))
  func span() throws {
    let steps = try Self.span("HKQuantityTypeIdentifierStepCount")
    for arguments in [["steps"], ["stats", "--type", "StepCount"]] {
      let result = try Harness.run(
        arguments + [Self.sample.path, "--from", "2031-01-01", "--quiet", "--format", "csv"])
      #expect(result.status == 0)
      #expect(result.stdoutText.split(separator: "\n").count == 1, "the header alone")
      #expect(
        result.stderr
          == "healthport \(arguments[0]): no StepCount records matched the filters; the input's \(steps.count) StepCount records span \(steps.first) … \(steps.last)\n"
      )
    }
    let sleep = try Self.span("HKCategoryTypeIdentifierSleepAnalysis")
    let nights = try Harness.run(["sleep", Self.sample.path, "--to", "2001-01-01", "-q"])
    #expect(nights.stdoutText.hasSuffix("(no data)\n"))
    #expect(nights.stderr.hasSuffix("span \(sleep.first) … \(sleep.last)\n"), "\(nights.stderr)")
    let workouts = try Harness.run(["workouts", Self.sample.path, "--activity", "Yoga", "-q"])
    #expect(workouts.status == 0)
    #expect(workouts.stderr.hasPrefix("healthport workouts: no Yoga workouts; the input holds "), "\(workouts.stderr)")
    // Something to answer: nothing more is said.
    #expect(try Harness.run(["steps", Self.sample.path, "-q"]).stderr.isEmpty)
  }

  @Test("a file of other types names them with their counts; stdin is not read twice")
  func otherTypes() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let csv = directory.appendingPathComponent("Steps.csv")
    var text = "type,sourceName,unit,startDate,endDate,value\n"
    for day in 1...3 { text += "Steps,Band,count,2024-01-0\(day) 10:00:00 +0000,2024-01-0\(day) 10:05:00 +0000,100\n" }
    try text.write(to: csv, atomically: true, encoding: .utf8)
    let result = try Harness.run(["steps", csv.path, "--quiet"])
    #expect(result.status == 0)
    #expect(result.stdoutText.hasSuffix("(no data)\n"))
    #expect(
      result.stderr.hasSuffix("healthport steps: no StepCount records; the input holds 3 records of type 'Steps'\n"))
    let piped = try Harness.run(["steps", "-", "--quiet"], stdin: csv)
    #expect(!piped.stderr.contains("no StepCount records"))
  }
}
