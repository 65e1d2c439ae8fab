import Foundation
import Testing

/// Inputs are recognised once, by content, the same way for a path and for stdin: each format
/// piped into `info` and `convert` gives what the same file gives by path.
@Suite("input recognition")
struct InputRecognitionTests {
  static let sampleXML = Harness.samples.appendingPathComponent("export.xml")
  static var hasSamples: Bool { FileManager.default.fileExists(atPath: sampleXML.path) }

  /// The sample export as XML, zip, and as healthport writes it in CSV, JSON Lines and JSON, plus
  /// a CSV from another tool whose rows name their source (rows without one are named after the
  /// file, or `stdin`, by design).
  static func inputs(in directory: URL) throws -> [URL] {
    var inputs = [sampleXML, Harness.samples.appendingPathComponent("export.zip")]
    for format in ["csv", "jsonl", "json"] {
      let file = directory.appendingPathComponent("export.\(format)")
      let result = try Harness.run(["convert", sampleXML.path, "--to", format, "-o", file.path, "--quiet"])
      try #require(result.status == 0, "\(result.stderr)")
      inputs.append(file)
    }
    let foreign = directory.appendingPathComponent("weight.txt")
    try """
    Type;Source;Start Date;Value;Unit\r
    HKQuantityTypeIdentifierBodyMass;Scale;2024-01-02 08:00:00 +0100;70.5;kg\r
    HKQuantityTypeIdentifierBodyMass;Scale;2024-01-03 08:00:00 +0100;70.1;kg\r

    """.write(to: foreign, atomically: true, encoding: .utf8)
    inputs.append(foreign)
    let withBOM = directory.appendingPathComponent("bom.jsonl")
    try Data([0xEF, 0xBB, 0xBF] + Array(try Data(contentsOf: directory.appendingPathComponent("export.jsonl"))))
      .write(to: withBOM)
    inputs.append(withBOM)
    return inputs
  }

  /// `info --format json` without `input.path`, which names the file or `<stdin>`.
  static func infoWithoutPath(_ result: Harness.Result) throws -> NSDictionary {
    var json = try #require(try Harness.json(result.stdout) as? [String: Any])
    var input = try #require(json["input"] as? [String: Any])
    input["path"] = nil
    json["input"] = input
    return json as NSDictionary
  }

  @Test("info and convert read each format from stdin as by path", .enabled(if: hasSamples, "Samples/ is absent"))
  func stdinLikePath() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    for input in try Self.inputs(in: directory) {
      let name = input.lastPathComponent
      let infoByPath = try Harness.run(["info", input.path, "--format", "json"])
      let infoByStdin = try Harness.run(["info", "-", "--format", "json"], stdin: input)
      try #require(infoByPath.status == 0, "\(name): \(infoByPath.stderr)")
      #expect(infoByStdin.status == 0, "\(name): \(infoByStdin.stderr)")
      #expect(infoByStdin.stderr == infoByPath.stderr, "\(name)")
      #expect(try Self.infoWithoutPath(infoByStdin) == Self.infoWithoutPath(infoByPath), "\(name)")

      for format in ["jsonl", "xml"] {
        let byPath = try Harness.run(["convert", input.path, "--to", format, "--quiet"])
        let byStdin = try Harness.run(["convert", "--to", format, "--quiet"], stdin: input)
        try #require(byPath.status == 0, "\(name) → \(format): \(byPath.stderr)")
        #expect(byStdin.status == 0, "\(name) → \(format): \(byStdin.stderr)")
        #expect(byStdin.stdout == byPath.stdout, "\(name) → \(format)")
      }
    }
  }

  /// Runs `arguments` with `{}` replaced by a named pipe that `input` is written into, as
  /// `healthport info <(cat export.zip)` does in a shell.
  static func runThroughPipe(_ arguments: [String], input: URL, in directory: URL) throws -> Harness.Result {
    let pipe = directory.appendingPathComponent("pipe-\(UUID().uuidString)")
    try #require(mkfifo(pipe.path, 0o600) == 0)
    defer { try? FileManager.default.removeItem(at: pipe) }
    let writer = Process()
    writer.executableURL = URL(fileURLWithPath: "/bin/sh")
    writer.arguments = ["-c", "cat \"$1\" > \"$2\"", "sh", input.path, pipe.path]
    try writer.run()
    let result = try Harness.run(arguments.map { $0 == "{}" ? pipe.path : $0 })
    writer.waitUntilExit()
    return result
  }

  @Test(
    "a named pipe given by path (`<(cat export.zip)`) is read as a stream, like stdin",
    .enabled(if: hasSamples, "Samples/ is absent"))
  func namedPipeLikePath() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    for input in try Self.inputs(in: directory) {
      let name = input.lastPathComponent
      let infoByPath = try Harness.run(["info", input.path, "--format", "json"])
      let infoByPipe = try Self.runThroughPipe(["info", "{}", "--format", "json"], input: input, in: directory)
      try #require(infoByPath.status == 0, "\(name): \(infoByPath.stderr)")
      #expect(infoByPipe.status == 0, "\(name): \(infoByPipe.stderr)")
      #expect(try Self.infoWithoutPath(infoByPipe) == Self.infoWithoutPath(infoByPath), "\(name)")
      let byPath = try Harness.run(["convert", input.path, "--to", "jsonl", "--quiet"])
      let byPipe = try Self.runThroughPipe(["convert", "{}", "--to", "jsonl", "--quiet"], input: input, in: directory)
      #expect(byPipe.status == 0, "\(name): \(byPipe.stderr)")
      #expect(byPipe.stdout == byPath.stdout, "\(name)")
    }
  }

  @Test(
    "the format info reports is the one recognised, by path and by stdin",
    .enabled(if: hasSamples, "Samples/ is absent"))
  func reportedFormat() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let expected = ["xml", "zip", "csv", "jsonl", "json", "csv", "jsonl"]
    for (input, format) in zip(try Self.inputs(in: directory), expected) {
      for result in [
        try Harness.run(["info", input.path, "--format", "json"]),
        try Harness.run(["info", "--format", "json"], stdin: input),
      ] {
        let json = try #require(try Harness.json(result.stdout) as? [String: Any], "\(input.lastPathComponent)")
        let reported = (json["input"] as? [String: Any])?["format"] as? String
        #expect(reported == format, "\(input.lastPathComponent)")
      }
    }
  }

  @Test("a file named *.csv is read as CSV by path even without a known header; its problems are CSV problems")
  func csvByName() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("people.csv")
    try "name,age\nAnna,41\n".write(to: file, atomically: true, encoding: .utf8)
    let result = try Harness.run(["info", file.path])
    #expect(result.status == 65)
    #expect(result.stderr.hasPrefix("\(file.path):1:1: error: the header has no start date column"), "\(result.stderr)")
  }
}
