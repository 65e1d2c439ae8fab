import Foundation
import Testing

/// Each file in Tests/Fixtures/malformed with the exit code and message fragment it must give.
@Suite("Malformed and hostile input")
struct MalformedInputTests {
  static let fixtures = Harness.repoRoot.appendingPathComponent("Tests/Fixtures/malformed")

  struct Case: CustomStringConvertible, Sendable {
    let file: String
    let status: Int32
    let message: String
    var description: String { file }
  }

  static let cases: [Case] = [
    Case(file: "truncated.xml", status: 65, message: "truncated"),
    Case(file: "not-xml.txt", status: 65, message: "not an XML document"),
    Case(file: "empty.xml", status: 65, message: "the input is empty"),
    Case(file: "empty.zip", status: 65, message: "the zip archive is empty"),
    Case(file: "no-export.zip", status: 65, message: "holds no Apple Health export"),
    Case(file: "bad-date.xml", status: 65, message: "startDate \"yesterday\" is not a date"),
    Case(file: "non-numeric-value.xml", status: 65, message: "value \"twelve\" is not a number"),
    Case(file: "missing-attribute.xml", status: 65, message: "missing its required attribute 'endDate'"),
    Case(file: "wrong-root.xml", status: 65, message: "the root element is <kml>"),
    Case(file: "mismatched-tags.xml", status: 65, message: "mismatch"),
    Case(file: "entity-xxe.xml", status: 65, message: "Entity 'xxe' not defined"),
    Case(file: "billion-laughs.xml", status: 65, message: "not defined"),
    Case(file: "invalid-utf8.xml", status: 65, message: "UTF-8"),
    Case(file: "binary-garbage.xml", status: 65, message: "error:"),
    Case(file: "ragged-row.csv", status: 65, message: "the row has 4 fields, the header has 6"),
    Case(file: "unbalanced-quote.csv", status: 65, message: "unbalanced quote"),
    Case(file: "non-numeric-value.csv", status: 65, message: "is not a number"),
    Case(file: "bad-date.jsonl", status: 65, message: "startDate \"bad\" is not a date"),
    Case(file: "truncated.jsonl", status: 65, message: "error:"),
  ]

  /// Inputs that are odd but fine: the documented result, not an error.
  @Test("a CSV with a byte-order mark and CRLF line ends reads")
  func bomAndCRLF() throws {
    let path = Self.fixtures.appendingPathComponent("bom-crlf.csv").path
    let result = try Harness.run(["info", path, "--format", "json"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let json = try #require(try Harness.json(result.stdout) as? [String: Any])
    #expect(json["recordCount"] as? Int == 1)
    #expect((json["sources"] as? [[String: Any]])?.first?["name"] as? String == "Phone")
  }

  @Test("a CSV with only a header is an empty export, with a warning")
  func headerOnly() throws {
    let path = Self.fixtures.appendingPathComponent("header-only.csv").path
    let result = try Harness.run(["info", path, "--format", "json"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let json = try #require(try Harness.json(result.stdout) as? [String: Any])
    #expect(json["recordCount"] as? Int == 0)
    #expect((json["warnings"] as? [String] ?? []).contains { $0.contains("header row but no rows") })
  }

  @Test("fails with a located error and the documented exit code", arguments: cases)
  func fails(testCase: Case) throws {
    let path = Self.fixtures.appendingPathComponent(testCase.file).path
    let result = try Harness.run(["info", path, "--format", "json"])
    #expect(result.status == testCase.status, "stderr: \(result.stderr)")
    #expect(result.stderr.hasPrefix(path + ":"), "stderr: \(result.stderr)")
    #expect(result.stderr.contains("error:"))
    #expect(result.stderr.contains(testCase.message), "stderr: \(result.stderr)")
    #expect(result.stdout.isEmpty, "no partial output")
    // One line, `path:line:col: error: …` where a position is known.
    #expect(result.stderr.split(separator: "\n").count == 1)
  }

  @Test("XML errors carry line and column")
  func located() throws {
    let path = Self.fixtures.appendingPathComponent("bad-date.xml").path
    let result = try Harness.run(["info", path])
    let prefix = try #require(result.stderr.split(separator: " ").first)
    let parts = prefix.split(separator: ":")
    #expect(parts.count == 3)
    #expect(parts[1] == "5", "the bad Record is on line 5: \(result.stderr)")
  }

  @Test("forbidden control characters are removed and counted, the record kept")
  func controlCharacters() throws {
    let path = Self.fixtures.appendingPathComponent("control-characters.xml").path
    let result = try Harness.run(["info", path, "--format", "json"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let json = try #require(try Harness.json(result.stdout) as? [String: Any])
    #expect(json["recordCount"] as? Int == 1)
    let warnings = json["warnings"] as? [String] ?? []
    #expect(warnings.contains { $0.contains("removed 1 control character") })
    let sources = json["sources"] as? [[String: Any]] ?? []
    #expect(sources.first?["name"] as? String == "Phone")
  }

  @Test("a missing input is a failure (exit 1)")
  func missing() throws {
    let result = try Harness.run(["info", "/nonexistent/export.zip"])
    #expect(result.status == 1)
    #expect(result.stderr.hasPrefix("/nonexistent/export.zip: error: cannot open"))
  }

  @Test("every cut of the sample at a line boundary is an error, never a partial success")
  func truncationSweep() throws {
    let data = try Data(contentsOf: Harness.samples.appendingPathComponent("export.xml"))
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var cuts: [Int] = []
    for (index, byte) in data.enumerated() where byte == UInt8(ascii: "\n") && index % 7 == 0 { cuts.append(index + 1) }
    cuts += [1, 37, data.count / 2 + 3, data.count - 2]
    for cut in cuts where cut < data.count - 1 {
      let file = directory.appendingPathComponent("cut-\(cut).xml")
      try data.prefix(cut).write(to: file)
      let result = try Harness.run(["info", file.path, "--format", "json"])
      #expect(result.status == 65, "cut at \(cut): \(result.stderr)")
      #expect(result.stdout.isEmpty)
    }
  }
}
