import Foundation
import TestSupport
import Testing

/// `healthport sleep` through the built binary, against ``IndependentSleep``.
@Suite("sleep")
struct SleepCommandTests {
  static let nightNumbers = [
    "in_bed_min", "asleep_min", "core_min", "deep_min", "rem_min", "unspecified_min", "awake_min",
  ]

  static func json(_ arguments: [String], stdin: URL? = nil) throws -> (rows: [[String: Any]], stderr: String) {
    let result = try Harness.run(["sleep"] + arguments + ["--format", "json"], stdin: stdin)
    #expect(result.status == 0, "\(arguments): \(result.stderr)")
    return (try Harness.json(result.stdout) as? [[String: Any]] ?? [], result.stderr)
  }

  static func compare(
    _ path: String, _ options: [String] = [], tz: String = "", by: String = "night", priority: String = ""
  )
    throws
  {
    var arguments = [path] + options
    if !tz.isEmpty { arguments += ["--tz", tz] }
    if by != "night" { arguments += ["--by", by] }
    if !priority.isEmpty { arguments += ["--priority", priority] }
    let actual = try json(arguments).rows
    let expected = try IndependentSleep.sleep(path, tz: tz, by: by, priority: priority)
    let strings = by == "night" ? ["night", "bedtime", "wake_time", "sources"] : ["period", "bedtime", "wake_time"]
    AggregateTests.compareRows(
      actual, expected, numbers: nightNumbers + (by == "night" ? [] : ["nights"]), strings: strings,
      what: "\(path) \(arguments)")
  }

  static func generated(seed: Int, nights: Int) throws -> URL {
    let directory = try Harness.temporaryDirectory()
    let url = directory.appendingPathComponent("export.xml")
    try IndependentSleep.generate(url.path, seed: seed, nights: nights)
    return url
  }

  @Test(
    "generated Watch, AutoSleep, Clock and iPhone nights agree with an independent computation",
    arguments: [
      ("", "night", ""), ("Europe/Paris", "night", ""), ("+05:00", "night", ""), ("", "night", "AutoSleep,Clock"),
      ("", "week", ""), ("", "month", ""), ("America/New_York", "week", "iPhone"),
    ])
  func generatedNights(tz: String, by: String, priority: String) throws {
    let url = try Self.generated(seed: 7, nights: 45)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    try Self.compare(url.path, tz: tz, by: by, priority: priority)
  }

  @Test("the benchmark generator's export (Watch stages with HKTimeZone, iPhone in bed)")
  func benchmarkGenerator() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("export.xml")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "python3", Harness.repoRoot.appendingPathComponent("Benchmarks/generate_export.py").path, "--size-mb", "4",
      "--seed", "3", "--quiet", "-o", url.path,
    ]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    try Self.compare(url.path)
    try Self.compare(url.path, by: "week")
    #expect(try Self.json([url.path]).rows.count >= 7)
  }

  @Test("Samples: the Watch night by hand, the Clock night, zip and stdin alike")
  func samples() throws {
    let xml = Harness.samples.appendingPathComponent("export.xml")
    try Self.compare(xml.path)
    let rows = try Self.json([Harness.samples.appendingPathComponent("export.zip").path]).rows
    #expect(rows.map { $0["night"] as? String } == ["2024-11-28", "2024-11-29"])
    // The generator's sample: iPhone in bed 23:02–06:58, Watch core 23:20:30–01:02:30 and
    // 03:10–06:41:30, deep 01:02:30–01:48, awake 5.5 min, REM 01:53:30–03:10; Clock in bed 23:10–06:45.
    #expect(rows.first?["in_bed_min"] as? Double == 476)
    #expect(rows.first?["asleep_min"] as? Double == 435.5)
    #expect(rows.last?["in_bed_min"] as? Double == 455)
    let piped = try Self.json(["-"], stdin: xml).rows
    #expect(piped.count == rows.count)
  }

  @Test("the real fixture with sleep", .needsRealFixtures)
  func realFixture() throws {
    let path = Harness.realFixtures.appendingPathComponent("alxdrcirilo-apple-health-parser/export.xml").path
    try Self.compare(path)
    try Self.compare(path, tz: "UTC")
    let rows = try Self.json([path]).rows
    #expect(rows.count == 1)
    // Core 03:27:53–03:40:23 (12.5 min) and in bed 00:55:28–00:56:53 in that file's four samples.
    #expect(rows.first?["core_min"] as? Double == 12.5)
  }

  @Test("every real export reads (nights or none) and agrees", .needsRealFixtures)
  func realExports() throws {
    for url in Harness.realExports() where url.pathExtension == "xml" { try Self.compare(url.path) }
  }

  @Test("CSV header and table; rewrites reported on stderr, not with --quiet")
  func formats() throws {
    let url = try Self.generated(seed: 3, nights: 10)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let csv = try Harness.run(["sleep", url.path, "--format", "csv"])
    #expect(csv.status == 0)
    #expect(
      csv.stdoutText.hasPrefix(
        Harness.csvHeader(
          "night,in_bed_min,asleep_min,core_min,deep_min,rem_min,unspecified_min,awake_min,bedtime,wake_time,sources")))
    #expect(csv.stderr.contains("healthport sleep: collapsed "))
    #expect(csv.stderr.contains("rewritten SleepAnalysis samples (AutoSleep: "))
    let weekly = try Harness.run(["sleep", url.path, "--by", "week", "--format", "csv", "--quiet"])
    #expect(weekly.stdoutText.hasPrefix("\"period\",\"nights\",\"in_bed_min\","))
    #expect(weekly.stderr.isEmpty)
    let table = try Harness.run(["sleep", url.path, "--quiet"])
    #expect(table.stdoutText.hasPrefix("night  "))
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let out = directory.appendingPathComponent("nights.json")
    #expect(try Harness.run(["sleep", url.path, "-o", out.path, "--quiet"]).status == 0)
    #expect((try Harness.json(Data(contentsOf: out)) as? [Any])?.count == 10)
  }

  @Test("--from and --to days select whole nights; a timestamp selects samples")
  func dayBounds() throws {
    let url = try Self.generated(seed: 5, nights: 20)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let all = try Self.json([url.path, "--quiet"]).rows
    let wanted = all.filter {
      ($0["night"] as? String ?? "") >= "2024-03-25" && ($0["night"] as? String ?? "") <= "2024-03-31"
    }
    #expect(wanted.count == 7)
    let some = try Self.json([url.path, "--quiet", "--from", "2024-03-25", "--to", "2024-03-31"]).rows
    AggregateTests.compareRows(
      some, wanted, numbers: Self.nightNumbers, strings: ["night", "bedtime", "wake_time", "sources"], what: "days")
    // A timestamp selects samples: from noon on the 25th, the nights from the 26th are whole, and
    // the 25th keeps at most an afternoon nap.
    let cut = try Self.json([url.path, "--quiet", "--from", "2024-03-25T12:00"]).rows
    #expect(cut.allSatisfy { ($0["night"] as? String ?? "") >= "2024-03-25" })
    let later = cut.filter { ($0["night"] as? String ?? "") >= "2024-03-26" }
    let full = all.filter { ($0["night"] as? String ?? "") >= "2024-03-26" }
    AggregateTests.compareRows(
      later, full, numbers: Self.nightNumbers, strings: ["night", "bedtime", "wake_time", "sources"], what: "noon")
  }

  @Test("usage errors and damaged input")
  func errors() throws {
    let xml = Harness.samples.appendingPathComponent("export.xml").path
    let by = try Harness.run(["sleep", xml, "--by", "day"])
    #expect(by.status == 64)
    #expect(by.stderr.contains("'day' is not a valid value for --by; choose one of night, week, month"))
    let type = try Harness.run(["sleep", xml, "--type", "StepCount"])
    #expect(type.status == 64)
    #expect(try Harness.run(["sleep", xml, "--activity", "running"]).status == 64)
    let truncated = Harness.repoRoot.appendingPathComponent("Tests/Fixtures/malformed/truncated.xml").path
    let damaged = try Harness.run(["sleep", truncated])
    #expect(damaged.status == 65)
    #expect(damaged.stderr.hasPrefix(truncated + ":"))
    #expect(damaged.stderr.contains(": error: "))
    let priority = try Harness.run(["sleep", xml, "--priority", "Wacth"])
    #expect(priority.status == 0)
    #expect(priority.stderr.contains("warning: --priority 'Wacth' matches no source"))
  }
}
