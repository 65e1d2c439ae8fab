import Foundation
import Testing

/// `--type` means the same for every command that reads input: for a CSV from another tool
/// without a type column, a single `--type` names the type of its rows; otherwise it filters.
@Suite("--type for a CSV without a type column")
struct TypeOptionTests {
  /// Weighings from another app: no type column, no source column.
  static let weight = """
    date,value,unit
    2024-01-02 08:00:00 +0100,70.5,kg
    2024-01-03 08:00:00 +0100,70.1,kg
    2024-02-01 08:00:00 +0100,69.0,kg

    """

  static let steps = """
    start,end,value
    2024-01-02T08:00:00Z,2024-01-02T08:10:00Z,500
    2024-01-02T09:00:00Z,2024-01-02T09:10:00Z,250
    2024-01-03T09:00:00Z,2024-01-03T09:10:00Z,100

    """

  func write(_ text: String, _ name: String, in directory: URL) throws -> String {
    let url = directory.appendingPathComponent(name)
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url.path
  }

  @Test("stats: the rows take the type, and are aggregated")
  func stats() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = try write(Self.weight, "weight.csv", in: directory)
    let result = try Harness.run(["stats", path, "--type", "BodyMass", "--by", "month", "--format", "csv"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    // January: (70.5 + 70.1) / 2 = 70.3 over 2 samples; February: 69 from 1.
    #expect(
      result.stdoutText == Harness.csvHeader("period,value,samples,unit") + "2024-01,70.3,2,kg\n2024-02,69,1,kg\n")
  }

  @Test("steps accepts --type StepCount and refuses another type")
  func steps() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = try write(Self.steps, "pedometer.csv", in: directory)
    let result = try Harness.run(["steps", "--type", "StepCount", path, "--format", "csv"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    #expect(result.stdoutText == Harness.csvHeader("period,steps,samples") + "2024-01-02,750,2\n2024-01-03,100,1\n")
    let other = try Harness.run(["steps", "--type", "HeartRate", path])
    #expect(other.status == 64)
    #expect(other.stderr.contains("stats --type"), "stderr: \(other.stderr)")
  }

  @Test("info counts the rows under the type given")
  func info() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = try write(Self.weight, "weight.csv", in: directory)
    let result = try Harness.run(["info", path, "--type", "BodyMass", "--format", "json"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let json = try #require(try Harness.json(result.stdout) as? [String: Any])
    #expect(json["recordsByType"] as? [String: Int] == ["HKQuantityTypeIdentifierBodyMass": 3])
    let sources = try #require(json["sources"] as? [[String: Any]])
    #expect(sources.first?["name"] as? String == "weight")
  }

  @Test("workouts accepts --type: the file is read (it holds no workouts)")
  func workouts() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = try write(Self.weight, "weight.csv", in: directory)
    let result = try Harness.run(["workouts", path, "--type", "BodyMass", "--format", "json"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    #expect(result.stdoutText == "[]\n")
    // Without --type the same file is refused, as the README says.
    let refused = try Harness.run(["workouts", path])
    #expect(refused.status == 65)
    #expect(refused.stderr.contains("name the type of every row with --type"))
  }

  @Test("convert, as before")
  func convert() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = try write(Self.weight, "weight.csv", in: directory)
    let result = try Harness.run(["convert", path, "--type", "BodyMass", "--to", "csv", "--quiet"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let lines = result.stdoutText.split(separator: "\n")
    #expect(lines.count == 4)
    #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("HKQuantityTypeIdentifierBodyMass,weight,") })
  }
  @Test("load (a path or stdin) and convert --to sqlite: the rows take the type; --type filters an export")
  func load() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = try write(Self.steps, "pedometer.csv", in: directory)
    let query = """
      SELECT r.type, s.name, r.value_num, r.start_local_day FROM records r JOIN sources s ON s.id = r.source_id
      ORDER BY r.id
      """
    // The three rows of `steps`, typed StepCount; the source is the file's base name, or `stdin`.
    func expected(_ source: String) -> String {
      ["500.0|2024-01-02", "250.0|2024-01-02", "100.0|2024-01-03"]
        .map { "HKQuantityTypeIdentifierStepCount|\(source)|\($0)" }.joined(separator: "\n")
    }
    func rows(_ db: String) throws -> String {
      try LoadStoreTests.sqlite(db, query).map { $0.map { "\($0)" }.joined(separator: "|") }
        .joined(separator: "\n")
    }
    let fromPath = directory.appendingPathComponent("path.db").path
    let loaded = try Harness.run(["load", path, "--type", "StepCount", "--db", fromPath, "-q"])
    #expect(loaded.status == 0, "stderr: \(loaded.stderr)")
    #expect(try rows(fromPath) == expected("pedometer"))

    let fromStdin = directory.appendingPathComponent("stdin.db").path
    let piped = try Harness.run(
      ["load", "-", "--type", "StepCount", "--db", fromStdin, "-q"], stdin: URL(fileURLWithPath: path))
    #expect(piped.status == 0, "stderr: \(piped.stderr)")
    #expect(try rows(fromStdin) == expected("stdin"))

    let converted = directory.appendingPathComponent("convert.db").path
    let convert = try Harness.run(["convert", path, "--type", "StepCount", "--to", "sqlite", "-o", converted, "-q"])
    #expect(convert.status == 0, "stderr: \(convert.stderr)")
    #expect(try rows(converted) == expected("pedometer"))

    // Without --type the file is refused and no database is left.
    let refusedDB = directory.appendingPathComponent("refused.db").path
    let refused = try Harness.run(["load", path, "--db", refusedDB])
    #expect(refused.status == 65)
    #expect(refused.stderr.contains("name the type of every row with --type"))
    #expect(!FileManager.default.fileExists(atPath: refusedDB))

    // On an export, --type filters: the sample holds 7 heart-rate Records (Samples/expected.json).
    let sample = Harness.samples.appendingPathComponent("export.xml").path
    let heart = directory.appendingPathComponent("heart.db").path
    let filtered = try Harness.run(["load", sample, "--type", "HeartRate", "--db", heart, "-q"])
    #expect(filtered.status == 0, "stderr: \(filtered.stderr)")
    let counts = try LoadStoreTests.sqlite(heart, "SELECT type, count(*) FROM records GROUP BY type")
    #expect(counts.count == 1)
    #expect(counts.first?.first as? String == "HKQuantityTypeIdentifierHeartRate")
    #expect(counts.first?.last as? Int == Self.sampleHeartRates())
  }

  /// The number of heart-rate Records in the sample, as the generator counted them.
  static func sampleHeartRates() -> Int? {
    let url = Harness.samples.appendingPathComponent("expected.json")
    guard let data = try? Data(contentsOf: url), let json = try? Harness.json(data) as? [String: Any] else {
      return nil
    }
    let byType = json["recordsByType"] as? [String: Int]
    return byType?["HKQuantityTypeIdentifierHeartRate"]
  }
}
