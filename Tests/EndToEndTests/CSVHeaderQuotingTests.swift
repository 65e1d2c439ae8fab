import Foundation
import TestSupport
import Testing

/// Every CSV healthport writes quotes every name of its header (so that DuckDB's sniffer sees the
/// quote character even when the first rows need none; `CSVClientCallsTests` shows the failure),
/// and healthport reads its own tables back alike with the header quoted or not: the tables of
/// earlier versions have it unquoted.
@Suite("CSV headers: quoted when written, either way when read")
struct CSVHeaderQuotingTests {
  static let sampleXML = Harness.samples.appendingPathComponent("export.xml")
  static let hasSamples = FileManager.default.fileExists(atPath: sampleXML.path)

  /// True when every field of the line is in quotes.
  static func isQuoted(_ line: Substring) -> Bool {
    line.split(separator: ",", omittingEmptySubsequences: false).allSatisfy {
      $0.count >= 2 && $0.first == "\"" && $0.last == "\"" && !$0.dropFirst().dropLast().contains("\"")
    }
  }

  /// Rewrites the first line of `file` (a header whose names hold no comma or quote) with every
  /// name quoted, or none.
  static func rewriteHeader(_ file: URL, quoted: Bool) throws {
    var bytes = try Data(contentsOf: file)
    let end = try #require(bytes.firstIndex(of: 0x0A))
    let names = String(decoding: bytes[..<end], as: UTF8.self).replacingOccurrences(of: "\"", with: "")
    let line = quoted ? String(Harness.csvHeader(names).dropLast()) : names
    bytes.replaceSubrange(..<end, with: Data(line.utf8))
    try bytes.write(to: file)
  }

  @Test("the single table, every --split table and the answers' CSV have a quoted header", .enabled(if: hasSamples))
  func headersAreQuoted() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let zip = Harness.samples.appendingPathComponent("export.zip").path
    let folder = directory.appendingPathComponent("split")
    let split = try Harness.run(["convert", zip, "--to", "csv", "--split", "-o", folder.path, "--quiet"])
    try #require(split.status == 0, "\(split.stderr)")
    let tables = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".csv") }
    #expect(tables.count > 10)
    var outputs: [(String, String)] = try tables.sorted().map {
      ($0, try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8))
    }
    let commands: [[String]] = [
      ["convert", "--to", "csv"], ["steps", "--format", "csv"], ["stats", "--type", "HeartRate", "--format", "csv"],
      ["workouts", "--format", "csv"], ["workouts", "--summary", "--format", "csv"], ["sleep", "--format", "csv"],
    ]
    for command in commands {
      let result = try Harness.run(command + [zip, "--quiet"])
      #expect(result.status == 0, "\(command): \(result.stderr)")
      outputs.append((command.joined(separator: " "), result.stdoutText))
    }
    for (name, text) in outputs {
      let header = try #require(text.split(separator: "\n", omittingEmptySubsequences: false).first)
      #expect(Self.isQuoted(header), "\(name): \(header)")
      #expect(header.split(separator: ",").count > 1, "\(name): \(header)")
    }
  }

  @Test(
    "the single table reads back the same with its header quoted or not, from a file and from stdin",
    .enabled(if: hasSamples))
  func singleTableEitherHeader() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let written = try Harness.run(["convert", Self.sampleXML.path, "--to", "csv", "--quiet"])
    try #require(written.status == 0, "\(written.stderr)")
    var expected: [Substring]?
    for quoted in [true, false] {
      let table = directory.appendingPathComponent("records-\(quoted).csv")
      try written.stdout.write(to: table)
      try Self.rewriteHeader(table, quoted: quoted)
      for stdin in [false, true] {
        let input = stdin ? ["-"] : [table.path]
        // Back to the same table, byte for byte, and to the same Records.
        let csv = try Harness.run(["convert"] + input + ["--to", "csv", "--quiet"], stdin: stdin ? table : nil)
        #expect(csv.status == 0, "quoted \(quoted), stdin \(stdin): \(csv.stderr)")
        #expect(csv.stdout == written.stdout, "quoted \(quoted), stdin \(stdin)")
        let jsonl = try Harness.run(["convert"] + input + ["--to", "jsonl", "--quiet"], stdin: stdin ? table : nil)
        let records = jsonl.stdoutText.split(separator: "\n").filter { $0.hasPrefix("{\"element\":\"Record\"") }
        #expect(records.count > 50, "quoted \(quoted), stdin \(stdin)")
        // The same Records from each: those of the first, the header as written, from a file.
        if expected == nil { expected = records }
        #expect(records == expected, "quoted \(quoted), stdin \(stdin)")
      }
    }
  }

  @Test("a --split folder reads back exactly with its headers quoted or not", .enabled(if: hasSamples))
  func splitFolderEitherHeader() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let expected = try Harness.run(["convert", Self.sampleXML.path, "--to", "xml", "--quiet"])
    try #require(expected.status == 0, "\(expected.stderr)")
    for quoted in [true, false] {
      let folder = directory.appendingPathComponent("split-\(quoted)")
      let split = try Harness.run([
        "convert", Self.sampleXML.path, "--to", "csv", "--split", "-o", folder.path, "--quiet",
      ])
      try #require(split.status == 0, "\(split.stderr)")
      for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".csv") {
        try Self.rewriteHeader(folder.appendingPathComponent(name), quoted: quoted)
      }
      let info = try Harness.run(["info", folder.path, "--format", "json", "--quiet"])
      #expect(info.status == 0, "quoted \(quoted): \(info.stderr)")
      #expect(info.stderr.isEmpty, "quoted \(quoted): \(info.stderr)")
      let back = try Harness.run(["convert", folder.path, "--to", "xml", "--quiet"])
      #expect(back.status == 0, "quoted \(quoted): \(back.stderr)")
      #expect(back.stdout == expected.stdout, "quoted \(quoted)")
    }
  }
}
