import Foundation
import Testing

/// XML reads run libxml2 and the element builder on two threads by default (`HEALTHPORT_THREADS`
/// picks one or two). Every output, warning, error message and exit status must be the same
/// either way: these tests run the binary both ways on the same inputs and compare.
@Suite("One thread or two: the same results")
struct ConcurrentReadTests {
  static let sampleXML = Harness.samples.appendingPathComponent("export.xml")
  static let malformed = Harness.repoRoot.appendingPathComponent("Tests/Fixtures/malformed")

  /// Runs `arguments` with one thread and with two, expects identical results, and returns the
  /// two-thread one.
  @discardableResult
  static func sameBothWays(_ arguments: [String]) throws -> Harness.Result {
    let one = try Harness.run(arguments, environment: ["HEALTHPORT_THREADS": "1"])
    let two = try Harness.run(arguments, environment: ["HEALTHPORT_THREADS": "2"])
    #expect(one.status == two.status, "\(arguments)")
    #expect(withoutTimes(one.stderr) == withoutTimes(two.stderr), "\(arguments)")
    #expect(
      one.stdout == two.stdout, "\(arguments): stdout differs (\(one.stdout.count) and \(two.stdout.count) bytes)")
    return two
  }

  /// The summary line's time and rate (`in 0.17 s (2.0 MB read, 11.5 MB/s)`) differ between runs.
  static func withoutTimes(_ text: String) -> String {
    text.replacingOccurrences(of: #" in [0-9.]+ s \([^)]*\)"#, with: "", options: .regularExpression)
  }

  /// The sample's Records repeated `copies` times: several MB, so that the events cross many of
  /// the pipeline's blocks; `damage` edits the text afterwards.
  static func bigExport(copies: Int, damage: (String) -> String = { $0 }) throws -> URL {
    let text = try String(contentsOf: sampleXML, encoding: .utf8)
    let start = try #require(text.range(of: " <Record "))
    let end = try #require(text.range(of: " <Correlation "))
    let records = String(text[start.lowerBound..<end.lowerBound])
    let big =
      String(text[..<start.lowerBound]) + String(repeating: records, count: copies) + String(text[end.lowerBound...])
    let url = try Harness.temporaryDirectory().appendingPathComponent("big.xml")
    try damage(big).write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  static var hasSamples: Bool { FileManager.default.fileExists(atPath: sampleXML.path) }

  @Test("the samples and every real export")
  func realInputs() throws {
    try #require(Self.hasSamples, "Samples/ is absent")
    let inputs = [Self.sampleXML, Harness.samples.appendingPathComponent("export.zip")] + Harness.realExports()
    if Harness.realExports().isEmpty {
      print("note: ../shared/fixtures/real is absent; only the samples were compared")
    }
    for input in inputs {
      let info = try Self.sameBothWays(["info", input.path, "--format", "json"])
      #expect(info.status == 0, "\(input.lastPathComponent): \(info.stderr)")
      try Self.sameBothWays(["convert", input.path, "--to", "jsonl"])
      try Self.sameBothWays(["convert", input.path, "--to", "xml"])
    }
  }

  @Test("a large export crosses many blocks")
  func largeExport() throws {
    try #require(Self.hasSamples, "Samples/ is absent")
    let input = try Self.bigExport(copies: 60)
    defer { try? FileManager.default.removeItem(at: input.deletingLastPathComponent()) }
    let result = try Self.sameBothWays(["convert", input.path, "--to", "csv"])
    #expect(result.status == 0, "\(result.stderr)")
    // Every top-level Record arrived: counted in the text (one space of indentation).
    let text = try String(contentsOf: input, encoding: .utf8)
    let expected = text.components(separatedBy: "\n <Record ").count - 1
    let info = try Self.sameBothWays(["info", input.path, "--format", "json"])
    let json = try #require(try Harness.json(info.stdout) as? [String: Any])
    #expect(json["recordCount"] as? Int == expected)
    #expect(expected > 1000)
  }

  @Test("an attribute larger than a block (2 MB)")
  func hugeAttribute() throws {
    try #require(Self.hasSamples, "Samples/ is absent")
    let value = String(repeating: "0123456789abcdef", count: 131_072)
    let input = try Self.bigExport(copies: 3) { text in
      text.replacingOccurrences(
        of: "<MetadataEntry key=\"HKWasUserEntered\" value=\"1\"/>",
        with: "<MetadataEntry key=\"HKWasUserEntered\" value=\"\(value)\"/>")
    }
    defer { try? FileManager.default.removeItem(at: input.deletingLastPathComponent()) }
    let text = try String(contentsOf: input, encoding: .utf8)
    try #require(text.contains(value), "the sample has no HKWasUserEntered entry to enlarge")
    let result = try Self.sameBothWays(["convert", input.path, "--to", "jsonl"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdoutText.contains(value))
  }

  @Test("errors deep in a large file name the same place", arguments: ["bad-date", "mismatched-tag", "truncated"])
  func errors(kind: String) throws {
    try #require(Self.hasSamples, "Samples/ is absent")
    let input = try Self.bigExport(copies: 40) { text in
      let middle = text.index(text.startIndex, offsetBy: text.utf8.count / 2)
      let at = text.range(of: " <Record ", range: middle..<text.endIndex)!.lowerBound
      switch kind {
      case "bad-date":
        let date = text.range(of: "startDate=\"", range: at..<text.endIndex)!.upperBound
        return String(text[..<date]) + "yesterday" + String(text[text.index(date, offsetBy: 25)...])
      case "mismatched-tag":
        return String(text[..<at]) + " <Record></Workout>\n" + String(text[at...])
      default:
        return String(text[..<at])
      }
    }
    defer { try? FileManager.default.removeItem(at: input.deletingLastPathComponent()) }
    for arguments in [["info", input.path], ["convert", input.path, "--to", "csv"]] {
      let result = try Self.sameBothWays(arguments)
      #expect(result.status == 65)
      #expect(result.stderr.contains("big.xml:"), "\(result.stderr)")
      let skipping = try Self.sameBothWays(arguments + ["--skip-invalid"])
      #expect(skipping.status == 0, "\(skipping.stderr)")
      #expect(skipping.stderr.contains("skipped"), "\(skipping.stderr)")
    }
  }

  @Test("every malformed XML fixture")
  func malformedFixtures() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.malformed.path)
      .filter { $0.hasSuffix(".xml") || $0.hasSuffix(".zip") }.sorted()
    #expect(files.count >= 10)
    for file in files {
      let path = Self.malformed.appendingPathComponent(file).path
      try Self.sameBothWays(["info", path, "--format", "json"])
      try Self.sameBothWays(["convert", path, "--to", "jsonl", "--skip-invalid"])
    }
  }
}
