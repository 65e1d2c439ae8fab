import Foundation
import TestSupport
import Testing

/// Help fitted to the terminal and naming what it should, the labels of `stats --agg count` and
/// of `info`'s overview, and `make demo`'s output (issue 31, section 4).
@Suite("help, tables and the demo")
struct HelpAndTablesTests {
  static let sampleZip = Harness.samples.appendingPathComponent("export.zip")
  static let hasSamples = FileManager.default.fileExists(atPath: sampleZip.path)
  static let commands = [
    "info", "convert", "steps", "workouts", "stats", "sleep", "profile", "chart", "routes", "load",
  ]

  /// `healthport [command] --help` with `COLUMNS` set to `columns`, or unset (nil); stdout is a file.
  static func help(_ command: String?, columns: Int?) throws -> String {
    var arguments = ["-u", "COLUMNS"]
    if let columns { arguments.append("COLUMNS=\(columns)") }
    arguments += [Harness.binary.path] + (command.map { [$0] } ?? []) + ["--help"]
    let result = try Harness.run(arguments, executable: URL(fileURLWithPath: "/usr/bin/env"))
    #expect(result.status == 0, "\(command ?? "healthport") --help: \(result.stderr)")
    return result.stdoutText
  }

  @Test("the top-level help names every format convert --to writes")
  func convertFormats() throws {
    let convert = try Self.help("convert", columns: 1000)
    let usage = try #require(convert.split(separator: "\n").first { $0.hasPrefix("USAGE: healthport convert") })
    let list = try #require(usage.split(separator: " ").first { $0.contains("|") && $0.contains("csv") })
    let formats = list.split(separator: "|").map(String.init)
    #expect(formats.count >= 7, "\(formats)")
    let top = try Self.help(nil, columns: 1000)
    let line = try #require(top.split(separator: "\n").first { $0.hasPrefix("  convert ") })
    for format in formats { #expect(line.contains(format), "\(line) does not name \(format)") }
  }

  @Test(
    "help lines fit COLUMNS, else 80 when stdout is not a terminal, and keep every character but spaces",
    arguments: [nil, 40, 60, 80, 100])
  func helpWidth(columns: Int?) throws {
    for command in [nil] + Self.commands.map(Optional.some) {
      let text = try Self.help(command, columns: columns)
      let width = columns ?? 80
      for line in text.split(separator: "\n") {
        // Help is ASCII but for a few 1-column characters (—, …, ’): characters are columns.
        #expect(line.count <= width, "\(command ?? "healthport") at \(width): \(line.count): \(line)")
      }
      let wide = try Self.help(command, columns: 10_000)
      #expect(
        text.filter { !$0.isWhitespace } == wide.filter { !$0.isWhitespace },
        "\(command ?? "healthport") at \(width) lost or changed text")
    }
  }

  @Test("steps and sleep describe --type with the type they read, not another's example")
  func singleTypeHelp() throws {
    let steps = try Self.help("steps", columns: 1000)
    #expect(!steps.contains("HeartRate"), "\(steps)")
    #expect(steps.contains("--type <StepCount>"))
    let sleep = try Self.help("sleep", columns: 1000)
    #expect(!sleep.contains("HeartRate") && !sleep.contains("StepCount"), "\(sleep)")
    #expect(sleep.contains("--type <SleepAnalysis>"))
  }

  @Test("chart --help's --dedupe line says that sleep refuses it, merging sources already")
  func chartDedupeHelp() throws {
    let help = try Self.help("chart", columns: 1000)
    let line = try #require(help.split(separator: "\n").first { $0.hasPrefix("  --dedupe ") })
    #expect(line.contains("sleep") && line.contains("refuses --dedupe"), "\(line)")
    #expect(line.contains("merges sources already"), "\(line)")
  }

  @Test("stats --agg count labels its unit count, in the table, CSV and JSON")
  func countUnit() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("export.xml")
    var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
    for (minute, level) in [(0, "61.5"), (10, "70"), (20, "66.25")] {
      let date = "2024-06-01 08:\(minute == 0 ? "00" : String(minute)):00 +0200"
      text +=
        " <Record type=\"HKQuantityTypeIdentifierEnvironmentalAudioExposure\" sourceName=\"Watch\" unit=\"dBASPL\" startDate=\"\(date)\" endDate=\"\(date)\" value=\"\(level)\"/>\n"
    }
    try (text + "</HealthData>\n").write(to: input, atomically: true, encoding: .utf8)
    let arguments = ["stats", input.path, "--type", "EnvironmentalAudioExposure", "--agg", "count", "--quiet"]
    let table = try Harness.run(arguments)
    #expect(table.status == 0, "\(table.stderr)")
    let row = try #require(table.stdoutText.split(separator: "\n").dropFirst().first)
    #expect(row.split(separator: " ").prefix(4) == ["2024-06-01", "3", "3", "count"], "\(row)")
    #expect(!table.stdoutText.contains("dBASPL"))
    let csv = try Harness.run(arguments + ["--format", "csv"])
    #expect(csv.stdoutText == Harness.csvHeader("period,value,samples,unit") + "2024-06-01,3,3,count\n")
    let json = try Harness.run(arguments + ["--format", "json"])
    #expect(json.stdoutText.contains("\"unit\": \"count\""), "\(json.stdoutText)")
    #expect(!json.stdoutText.contains("dBASPL"))
    // Other aggregates keep the unit.
    let average = try Harness.run(["stats", input.path, "--type", "EnvironmentalAudioExposure", "--format", "csv"])
    #expect(average.stdoutText.hasSuffix(",3,dBASPL\n"), "\(average.stdoutText)")
  }

  /// The lines of `info`'s overview (the first block).
  static func overview(_ input: URL) throws -> [Substring] {
    let result = try Harness.run(["info", input.path, "--quiet"])
    #expect(result.status == 0, "\(result.stderr)")
    return result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }
  }

  @Test("info's overview: values in one column, whatever the labels; no copies of records without correlations")
  func infoOverview() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("export.xml")
    try """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" startDate="2024-01-01 08:00:00 +0100" endDate="2024-01-01 08:10:00 +0100" value="12"/>
     <VisionPrescription type="glasses" dateIssued="2024-01-01 08:00:00 +0100"/>
    </HealthData>

    """.write(to: input, atomically: true, encoding: .utf8)
    var inputs = [input]
    if Self.hasSamples { inputs.append(Self.sampleZip) }
    for input in inputs {
      let lines = try Self.overview(input)
      #expect(lines.contains { $0.hasPrefix("Vision prescriptions") }, "\(lines)")
      // The value starts after the label and two spaces or more, at the same column on every line.
      let columns = lines.map { line -> Int? in
        guard let gap = line.range(of: "  ") else { return nil }
        return line.distance(from: line.startIndex, to: gap.lowerBound)
          + line[gap.lowerBound...].prefix { $0 == " " }.count
      }
      #expect(!columns.contains(nil) && Set(columns).count == 1, "\(input.lastPathComponent): \(lines)")
    }
    let lines = try Self.overview(input)
    let correlations = try #require(lines.first { $0.hasPrefix("Correlations") })
    #expect(correlations.split(separator: " ") == ["Correlations", "0"], "\(correlations)")
    if Self.hasSamples {
      let sample = try Self.overview(Self.sampleZip)
      let line = try #require(sample.first { $0.hasPrefix("Correlations") })
      #expect(line.hasSuffix(" 3 (holding 6 copies of records, not counted above)"), "\(line)")
    }
  }

  @Test("make demo: info lists the sample's quirks, the converts print nothing", .enabled(if: hasSamples))
  func demoQuiet() throws {
    let makefile = try String(
      contentsOf: Harness.repoRoot.appendingPathComponent("Makefile"), encoding: .utf8)
    let recipe = makefile.components(separatedBy: "\ndemo:")[1].split(separator: "\n").dropFirst()
      .prefix { $0.hasPrefix("\t") }
    let commands = recipe.map { $0.dropFirst() }.filter { $0.hasPrefix("$(BIN) ") }
    #expect(commands.first?.hasPrefix("$(BIN) info ") == true, "\(commands)")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createSymbolicLink(
      at: directory.appendingPathComponent("Samples"), withDestinationURL: Harness.samples)
    try FileManager.default.createDirectory(
      at: directory.appendingPathComponent(".demo"), withIntermediateDirectories: true)
    var converts = 0
    for command in commands {
      let line = command.replacingOccurrences(of: "$(BIN)", with: Harness.binary.path)
      let result = try Harness.run(["-c", line], in: directory, executable: URL(fileURLWithPath: "/bin/sh"))
      #expect(result.status == 0, "\(command): \(result.stderr)")
      if command.hasPrefix("$(BIN) info ") {
        #expect(result.stdoutText.contains("Warnings\n"), "\(result.stdoutText)")
        #expect(result.stdoutText.contains("record(s) without a value"))
      }
      if command.hasPrefix("$(BIN) convert ") {
        converts += 1
        #expect(result.stderr.isEmpty, "\(command): \(result.stderr)")
      }
    }
    #expect(converts == 2)
  }
}
