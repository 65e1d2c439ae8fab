import Foundation
import Testing

/// `--skip-invalid`: damage is reported with its location and a total, and everything else is
/// read (README, "When the input is broken": exit 0, output kept).
@Suite("--skip-invalid")
struct SkipInvalidTests {
  static let malformed = Harness.repoRoot.appendingPathComponent("Tests/Fixtures/malformed")

  /// The Samples export cut after the `n`-th top-level element's line, as (data, elements before).
  static func sample() throws -> [UInt8] {
    [UInt8](try Data(contentsOf: Harness.samples.appendingPathComponent("export.xml")))
  }

  func info(_ path: String, _ extra: [String] = []) throws -> (Harness.Result, [String: Any]?) {
    let result = try Harness.run(["info", path, "--format", "json", "--skip-invalid"] + extra)
    return (result, try? Harness.json(result.stdout) as? [String: Any])
  }

  @Test(
    "a bad date, a missing attribute, a non-numeric value: that element is skipped, the rest read",
    arguments: ["bad-date.xml", "missing-attribute.xml", "non-numeric-value.xml"])
  func valueErrors(file: String) throws {
    let path = Self.malformed.appendingPathComponent(file).path
    let (result, json) = try info(path)
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let lines = result.stderr.split(separator: "\n")
    #expect(lines.contains { $0.hasPrefix(path + ":") && $0.contains("error:") && $0.contains("skipped") })
    #expect(lines.last?.contains("skipped 1 damaged element") == true, "stderr: \(result.stderr)")
    // Each file holds one good Record besides the damaged one (none in missing-attribute.xml).
    let good = file == "missing-attribute.xml" ? 0 : 1
    #expect(json?["recordCount"] as? Int == good)
  }

  @Test("damage in the middle of the sample: every other element is read")
  func damageInTheMiddle() throws {
    let bytes = try Self.sample()
    let text = String(decoding: bytes, as: UTF8.self)
    var lines = text.components(separatedBy: "\n")
    // Damage three top-level Records in different ways: a broken tag, garbage bytes, a bad end tag.
    let recordLines = lines.indices.filter { lines[$0].hasPrefix(" <Record ") && lines[$0].hasSuffix("/>") }
    try #require(recordLines.count > 20)
    let targets = [recordLines[3], recordLines[10], recordLines[17]]
    lines[targets[0]] = String(lines[targets[0]].dropLast(2))  // unclosed: `<Record …` then the next tag
    lines[targets[1]] = " <Record \u{1}\u{2}garbage"
    lines[targets[2]] = lines[targets[2]].replacingOccurrences(of: "/>", with: "></Workout>")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let damaged = directory.appendingPathComponent("damaged.xml")
    try lines.joined(separator: "\n").write(to: damaged, atomically: true, encoding: .utf8)

    let strict = try Harness.run(["info", damaged.path])
    #expect(strict.status == 65)

    let (result, json) = try info(damaged.path)
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let expected = try #require(
      try Harness.json(
        Harness.run(["info", Harness.samples.appendingPathComponent("export.xml").path, "--format", "json"]).stdout)
        as? [String: Any])
    let total = expected["recordCount"] as? Int ?? 0
    let read = json?["recordCount"] as? Int ?? -1
    // The damaged Records are lost; at most one neighbour each (the one a broken tag runs into).
    #expect(read <= total - 3 && read >= total - 6, "read \(read) of \(total): \(result.stderr)")
    #expect(json?["workoutCount"] as? Int == expected["workoutCount"] as? Int)
    #expect(json?["activitySummaryCount"] as? Int == expected["activitySummaryCount"] as? Int)
    let skips = result.stderr.split(separator: "\n").filter { $0.contains("skipped the damaged element") }
    #expect(skips.count == 3, "stderr: \(result.stderr)")
    for (skip, line) in zip(skips, targets) {
      // Located on (or right after) the damaged line; lines are 1-based.
      let parts = skip.split(separator: ":")
      let reported = Int(parts[1]) ?? 0
      #expect(reported >= line + 1 && reported <= line + 2, "\(skip) for line \(line + 1)")
    }
  }

  @Test("a truncated file keeps every element before the cut")
  func truncation() throws {
    let bytes = try Self.sample()
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    // Cut inside several top-level lines; the complete elements before each cut must all be read.
    let text = String(decoding: bytes, as: UTF8.self)
    let lines = text.components(separatedBy: "\n")
    let rootLine = try #require(lines.firstIndex { $0.hasPrefix("<HealthData") })
    for lineIndex in stride(from: rootLine + 2, to: lines.count - 2, by: 9) {
      let before = lines[..<lineIndex].joined(separator: "\n") + "\n"
      let cut = before + String(lines[lineIndex].prefix(lines[lineIndex].count / 2))
      let file = directory.appendingPathComponent("cut-\(lineIndex).xml")
      try cut.write(to: file, atomically: true, encoding: .utf8)
      // The expected count: top-level Records that end before the cut, counted independently.
      let complete = IndependentCount.topLevelRecordsClosed(in: Data(before.utf8))
      let (result, json) = try info(file.path)
      #expect(result.status == 0, "line \(lineIndex): \(result.stderr)")
      #expect(json?["recordCount"] as? Int == complete, "line \(lineIndex): \(result.stderr)")
      #expect(result.stderr.contains("skipped"))
    }
  }

  @Test("convert with --skip-invalid writes everything that was not damaged")
  func convert() throws {
    let path = Self.malformed.appendingPathComponent("bad-date.xml").path
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = directory.appendingPathComponent("out.xml").path
    let result = try Harness.run(["convert", path, "--to", "xml", "-o", output, "--skip-invalid"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let written = try String(contentsOfFile: output, encoding: .utf8)
    #expect(written.components(separatedBy: "<Record ").count - 1 == 1)
    #expect(written.hasSuffix("</HealthData>\n"))
    let strict = try Harness.run(["convert", path, "--to", "xml", "-o", output + ".strict"])
    #expect(strict.status == 65)
    #expect(!FileManager.default.fileExists(atPath: output + ".strict"), "no output after an error")
  }

  @Test(
    "the total of skipped elements is printed once, as the last line of stderr",
    arguments: [
      ["convert", "--to", "csv"], ["convert", "--to", "jsonl", "--quiet"], ["info"], ["steps"],
      ["stats", "--type", "StepCount"], ["load"],
    ])
  func skipTotalOnce(command: [String]) throws {
    let path = Self.malformed.appendingPathComponent("bad-date.xml").path
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var arguments = command + [path, "--skip-invalid"]
    if command == ["load"] { arguments += ["--db", directory.appendingPathComponent("x.db").path] }
    let result = try Harness.run(arguments)
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let lines = result.stderr.split(separator: "\n")
    // bad-date.xml holds exactly one damaged Record: one located error, one total.
    #expect(lines.filter { $0.contains("skipped 1 damaged element") }.count == 1, "stderr: \(result.stderr)")
    #expect(lines.filter { $0.hasPrefix(path + ":5:") && $0.contains("skipped the element") }.count == 1)
    #expect(
      lines.last == "healthport \(command[0]): skipped 1 damaged element(s); everything else was read"
        || command == ["load"], "stderr: \(result.stderr)")
  }
}
