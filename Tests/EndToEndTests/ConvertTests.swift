import Foundation
import TestSupport
import Testing

/// An independent view of XML documents, through Python's `xml.etree` (expat): canonical
/// content (elements in order, attributes as sets, stripped text), top-level counts, and the
/// export member of a zip.
enum PythonXML {
  static let script = """
    import sys, re, zipfile, xml.etree.ElementTree as ET
    def raw(p):
        if p.endswith('.zip'):
            z = zipfile.ZipFile(p)
            for n in z.namelist():
                d = z.read(n)
                if b'<HealthData' in d[:1 << 20] and not n.startswith('__MACOSX'):
                    return d
        return open(p, 'rb').read()
    def load(p):
        b = raw(p)
        i = b.find(b'<!DOCTYPE')
        if i >= 0:
            j = b.find(b']>', i)
            b = b[:i] + b[j + 2:]
        b = re.sub(rb'[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f]', b'', b)
        return ET.fromstring(b)
    def canon(e):
        return (e.tag, sorted(e.attrib.items()), (e.text or '').strip(), [canon(c) for c in e])
    mode = sys.argv[1]
    if mode == 'extract':
        sys.stdout.buffer.write(raw(sys.argv[2]))
    elif mode == 'toplevel':
        print(len(load(sys.argv[2])))
    elif mode == 'canon':
        a, b = load(sys.argv[2]), load(sys.argv[3])
        if canon(a) == canon(b):
            print('equal')
        else:
            ca, cb = canon(a), canon(b)
            print('different: root', ca[:3] == cb[:3], 'children', len(ca[3]), len(cb[3]))
            for x, y in zip(ca[3], cb[3]):
                if x != y:
                    print(x); print(y); break
    """

  static func run(_ arguments: [String]) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script] + arguments
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return data
  }

  static func sameContent(_ a: URL, _ b: URL) throws -> String {
    String(decoding: try run(["canon", a.path, b.path]), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  static func exportBytes(_ url: URL) throws -> Data { try run(["extract", url.path]) }

  static func topLevelCount(_ url: URL) throws -> Int {
    Int(
      String(decoding: try run(["toplevel", url.path]), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
      ?? -1
  }
}

@Suite("healthport convert")
struct ConvertTests {
  static let sampleXML = Harness.samples.appendingPathComponent("export.xml")
  static let sampleZip = Harness.samples.appendingPathComponent("export.zip")
  static var hasSamples: Bool { FileManager.default.fileExists(atPath: sampleXML.path) }

  /// Converts `input` to `format` in `directory`, expecting success.
  static func convert(_ input: URL, to format: String, in directory: URL, name: String? = nil) throws -> URL {
    let output = directory.appendingPathComponent(name ?? "out-\(UUID().uuidString).\(format)")
    let result = try Harness.run(["convert", input.path, "--to", format, "-o", output.path, "--quiet"])
    #expect(result.status == 0, "convert \(input.lastPathComponent) --to \(format): \(result.stderr)")
    return output
  }

  // MARK: Byte-faithful round trips

  @Test(
    "Samples: xml → xml, xml → jsonl → xml and xml → json → xml are byte for byte", arguments: ["xml", "jsonl", "json"])
  func samplesRoundTrip(format: String) throws {
    try #require(Self.hasSamples, "Samples/export.xml is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var output = try Self.convert(Self.sampleXML, to: format, in: directory)
    if format != "xml" { output = try Self.convert(output, to: "xml", in: directory) }
    #expect(try Data(contentsOf: output) == Data(contentsOf: Self.sampleXML))
  }

  @Test("the JSON document reads back whatever its formatting (pretty-printed by Python)")
  func prettyJSON() throws {
    try #require(Self.hasSamples, "Samples/ is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let json = try Self.convert(Self.sampleXML, to: "json", in: directory)
    let pretty = directory.appendingPathComponent("pretty.json")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "python3", "-c", "import json,sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], 'w'), indent=2)",
      json.path, pretty.path,
    ]
    try process.run()
    process.waitUntilExit()
    let output = try Self.convert(pretty, to: "xml", in: directory)
    #expect(try Data(contentsOf: output) == Data(contentsOf: Self.sampleXML))
  }

  @Test("Samples: the zip converts to the same bytes as the XML inside it")
  func sampleZip() throws {
    try #require(Self.hasSamples, "Samples/ is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = try Self.convert(Self.sampleZip, to: "xml", in: directory)
    #expect(try Data(contentsOf: output) == PythonXML.exportBytes(Self.sampleZip))
  }

  @Test(
    "a real export in the Health app's layout comes back byte for byte", .needsRealFixtures,
    arguments: ["xml", "jsonl"])
  func realByteFaithful(format: String) throws {
    let input = Harness.realFixtures.appendingPathComponent("y-yu-ahcd-go/export.xml")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var output = try Self.convert(input, to: format, in: directory)
    if format != "xml" { output = try Self.convert(output, to: "xml", in: directory) }
    #expect(try Data(contentsOf: output) == Data(contentsOf: input))
  }

  /// tdda's sample is Apple's layout except one Workout line indented by two spaces and a blank
  /// line at the end: the output is the input with those two put right.
  @Test("tdda (v3): byte for byte apart from its two layout slips", .needsRealFixtures, arguments: ["xml", "jsonl"])
  func tddaLayout(format: String) throws {
    let input = Harness.realFixtures.appendingPathComponent("tdda-applehealthdata/export6s3sample.xml")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var output = try Self.convert(input, to: format, in: directory)
    if format != "xml" { output = try Self.convert(output, to: "xml", in: directory) }
    var expected = try String(contentsOf: input, encoding: .utf8)
    expected = expected.replacingOccurrences(of: "\n  <Workout ", with: "\n <Workout ")
    while expected.hasSuffix("\n\n") { expected.removeLast() }
    #expect(try String(contentsOf: output, encoding: .utf8) == expected)
  }

  // MARK: Content-equal round trips of re-serialised files

  static let realExports = Harness.realExports()

  @Test(
    "every real export: xml → xml and xml → jsonl → xml keep the XML content", .needsRealFixtures,
    arguments: realExports)
  func realContent(export: URL) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let viaXML = try Self.convert(export, to: "xml", in: directory)
    #expect(try PythonXML.sameContent(export, viaXML) == "equal")
    let jsonl = try Self.convert(export, to: "jsonl", in: directory)
    let viaJSONL = try Self.convert(jsonl, to: "xml", in: directory)
    #expect(try Data(contentsOf: viaJSONL) == Data(contentsOf: viaXML))
  }

  static let fragments: [URL] = {
    guard Harness.hasRealFixtures else { return [] }
    let folder = Harness.realFixtures.appendingPathComponent("NicolasReyrolle-apple-health-analyzer")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".xml") }.sorted().map { folder.appendingPathComponent($0) }
  }()

  /// The iOS 17/18 fragments (WorkoutActivity, WorkoutStatistics, laps, the repeated metadata
  /// block), wrapped in a root without a prolog: the output carries healthport's DTD and validates.
  @Test("modern workout fragments convert, keep their content and validate", .needsRealFixtures, arguments: fragments)
  func fragment(url: URL) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let wrapped = directory.appendingPathComponent("wrapped.xml")
    var bytes = Data("<HealthData locale=\"en_US\">\n".utf8)
    bytes.append(try Data(contentsOf: url))
    bytes.append(Data("</HealthData>\n".utf8))
    try bytes.write(to: wrapped)
    let jsonl = try Self.convert(wrapped, to: "jsonl", in: directory)
    let output = try Self.convert(jsonl, to: "xml", in: directory)
    #expect(try PythonXML.sameContent(wrapped, output) == "equal")
    let text = try String(contentsOf: output, encoding: .utf8)
    #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE HealthData [\n"))
    try Self.expectValid(output)
  }

  // MARK: Conservation

  @Test("element counts written equal those read, for every format", arguments: ["xml", "jsonl", "json"])
  func conservation(format: String) throws {
    let inputs = (Self.hasSamples ? [Self.sampleXML] : []) + Self.realExports
    try #require(!inputs.isEmpty, "no Samples/ and no real fixtures")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    for input in inputs {
      let expected = IndependentCount.count(try PythonXML.exportBytes(input))
      let output = directory.appendingPathComponent("out.\(format)")
      let result = try Harness.run(["convert", input.path, "--to", format, "-o", output.path])
      #expect(result.status == 0, "\(input.lastPathComponent): \(result.stderr)")
      let topLevel = try PythonXML.topLevelCount(input)
      #expect(topLevel < 1000, "the summary groups digits from 1,000 on")
      #expect(result.stderr.contains("wrote \(topLevel) elements"), "\(result.stderr)")
      let info = try Harness.run(["info", output.path, "--format", "json"])
      #expect(info.status == 0, "\(info.stderr)")
      let json = try #require(try Harness.json(info.stdout) as? [String: Any])
      #expect(
        json["elementCounts"] as? [String: Int] == expected.elementCounts, "\(input.lastPathComponent) → \(format)")
      #expect(json["recordCount"] as? Int == expected.topLevelRecords)
      if format == "xml" {
        #expect(IndependentCount.count(try Data(contentsOf: output)).elementCounts == expected.elementCounts)
      }
    }
  }

  @Test("CSV too: a --split folder holds every element, the single table every top-level Record")
  func conservationCSV() throws {
    let inputs = (Self.hasSamples ? [Self.sampleXML] : []) + Self.realExports
    try #require(!inputs.isEmpty, "no Samples/ and no real fixtures")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    for input in inputs {
      let expected = IndependentCount.count(try PythonXML.exportBytes(input))
      let folder = directory.appendingPathComponent("split-\(input.lastPathComponent)")
      let split = try Harness.run(["convert", input.path, "--to", "csv", "--split", "-o", folder.path, "--quiet"])
      #expect(split.status == 0, "\(input.lastPathComponent): \(split.stderr)")
      let info = try Harness.run(["info", folder.path, "--format", "json"])
      let json = try #require(try Harness.json(info.stdout) as? [String: Any], "\(info.stderr)")
      #expect(json["elementCounts"] as? [String: Int] == expected.elementCounts, "\(input.lastPathComponent)")
      let table = directory.appendingPathComponent("records-\(input.lastPathComponent).csv")
      let single = try Harness.run(["convert", input.path, "--to", "csv", "-o", table.path, "--quiet"])
      #expect(single.status == 0)
      let tableInfo = try Harness.run(["info", table.path, "--format", "json"])
      let tableJSON = try #require(try Harness.json(tableInfo.stdout) as? [String: Any], "\(tableInfo.stderr)")
      #expect(tableJSON["recordCount"] as? Int == expected.topLevelRecords, "\(input.lastPathComponent)")
    }
  }

  // MARK: Healthport's own DTD

  static func expectValid(_ url: URL) throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint") else {
      print("skipped: xmllint is not installed (apt-get install libxml2-utils)")
      return
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
    process.arguments = ["--valid", "--noout", url.path]
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "xmllint --valid: \(message)")
  }

  @Test("without a prolog the output carries healthport's DTD, and xmllint --valid accepts it")
  func fallbackDTD() throws {
    try #require(Self.hasSamples, "Samples/ is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let jsonl = try Self.convert(Self.sampleXML, to: "jsonl", in: directory)
    var lines = try String(contentsOf: jsonl, encoding: .utf8).split(separator: "\n").map(String.init)
    let headerObject = try JSONSerialization.jsonObject(with: Data(lines[0].utf8))
    var header = try #require(headerObject as? [String: Any])
    header["prolog"] = ""
    lines[0] = String(decoding: try JSONSerialization.data(withJSONObject: header), as: UTF8.self)
    let stripped = directory.appendingPathComponent("noprolog.jsonl")
    try (lines.joined(separator: "\n") + "\n").write(to: stripped, atomically: true, encoding: .utf8)
    let output = try Self.convert(stripped, to: "xml", in: directory)
    let text = try String(contentsOf: output, encoding: .utf8)
    #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE HealthData [\n"))
    #expect(!text.contains("HealthKit Export Version:"))
    try Self.expectValid(output)
    #expect(try PythonXML.sameContent(Self.sampleXML, output) == "equal")
  }

  // MARK: Errors and atomicity

  @Test("a bad JSON Lines line is reported as path:line:col, exit 65, and no output is left")
  func badJSONLine() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let bad = #"{"element":"Record","attributes":{"type":"HKQuantityTypeIdentifierStepCount","sourceName":"x",}}"#
    let lines = [
      #"{"kind":"header","root":"HealthData","attributes":{"locale":"en_US"},"prolog":""}"#,
      #"{"element":"ExportDate","attributes":{"value":"2024-12-03 20:15:42 +0100"}}"#, bad,
    ]
    let input = directory.appendingPathComponent("bad.jsonl")
    try (lines.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
    let target = directory.appendingPathComponent("out.xml")
    let result = try Harness.run(["convert", input.path, "--to", "xml", "-o", target.path])
    #expect(result.status == 65)
    let column = bad.utf8.count - 1  // the '}' after the trailing comma
    #expect(result.stderr.hasPrefix("\(input.path):3:\(column): error: "), "\(result.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["bad.jsonl"])
  }

  @Test("a bad date in JSON Lines names the line, exit 65")
  func badDate() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let lines = [
      #"{"kind":"header","root":"HealthData","attributes":{},"prolog":""}"#,
      #"{"element":"Record","attributes":{"type":"T","sourceName":"s","startDate":"yesterday","endDate":"2024-12-03 20:15:42 +0100"}}"#,
    ]
    let input = directory.appendingPathComponent("date.jsonl")
    try (lines.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
    let result = try Harness.run(["convert", input.path, "--to", "jsonl"])
    #expect(result.status == 65)
    #expect(result.stderr.hasPrefix("\(input.path):2:1: error: "), "\(result.stderr)")
    #expect(result.stderr.contains("startDate \"yesterday\""))
  }

  @Test("a truncated input leaves no file and does not touch an existing target", arguments: ["xml", "jsonl"])
  func atomicOutput(format: String) throws {
    try #require(Self.hasSamples, "Samples/ is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let whole = try Data(contentsOf: Self.sampleXML)
    let input = directory.appendingPathComponent("truncated.xml")
    try whole.prefix(whole.count * 2 / 3).write(to: input)
    let fresh = directory.appendingPathComponent("fresh.\(format)")
    var result = try Harness.run(["convert", input.path, "--to", format, "-o", fresh.path])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: fresh.path))
    let existing = directory.appendingPathComponent("existing.\(format)")
    try Data("old content\n".utf8).write(to: existing)
    result = try Harness.run(["convert", input.path, "--to", format, "-o", existing.path])
    #expect(result.status == 65)
    #expect(try Data(contentsOf: existing) == Data("old content\n".utf8))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [
        "existing.\(format)", "truncated.xml",
      ])
  }

  @Test("-o naming the input is refused and the input is untouched")
  func outputIsInput() throws {
    try #require(Self.hasSamples, "Samples/ is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("export.xml")
    try FileManager.default.copyItem(at: Self.sampleXML, to: input)
    let result = try Harness.run(["convert", input.path, "--to", "xml", "-o", input.path])
    #expect(result.status == 64)
    #expect(result.stderr.contains("the output is a file that this command reads"), "\(result.stderr)")
    #expect(try Data(contentsOf: input) == Data(contentsOf: Self.sampleXML))
  }

  @Test("stdout by default, the same bytes as -o; stdin as input")
  func stdoutDefault() throws {
    try #require(Self.hasSamples, "Samples/ is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = try Self.convert(Self.sampleXML, to: "jsonl", in: directory)
    let result = try Harness.run(["convert", Self.sampleXML.path, "--to", "jsonl"])
    #expect(result.status == 0)
    #expect(result.stdout == (try Data(contentsOf: file)))
    let fromStdin = try Harness.run(["convert", "--to", "xml", "-q"], stdin: file)
    #expect(fromStdin.status == 0)
    #expect(fromStdin.stdout == (try Data(contentsOf: Self.sampleXML)))
    #expect(fromStdin.stderr.isEmpty)
  }

  @Test("the summary line counts each kind written (Samples/expected.json)")
  func summaryLine() throws {
    try #require(Self.hasSamples, "Samples/ is absent")
    let expectedObject = try Harness.json(try Data(contentsOf: Harness.samples.appendingPathComponent("expected.json")))
    let expected = try #require(expectedObject as? [String: Any])
    let result = try Harness.run(["convert", Self.sampleXML.path, "--to", "jsonl"])
    #expect(result.status == 0)
    // The summary is the first line; warnings about known quirks may follow it.
    let line = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
    #expect(line.hasPrefix("healthport convert: wrote "), "\(line)")
    for (key, kind) in [
      ("recordCount", "Record"), ("workoutCount", "Workout"), ("correlationCount", "Correlation"),
      ("activitySummaryCount", "ActivitySummary"), ("clinicalRecordCount", "ClinicalRecord"),
      ("audiogramCount", "Audiogram"), ("visionPrescriptionCount", "VisionPrescription"),
    ] {
      let count = try #require(expected[key] as? Int, "\(key) in expected.json")
      #expect(line.contains(" \(count) \(kind)"), "\(kind): \(line)")
    }
    #expect(line.contains(" to stdout in "))
    #expect(line.hasSuffix(" MB/s)"))
  }

  @Test("the single CSV table says what it holds and what it leaves out; its warnings are about it alone")
  func csvSummaryLine() throws {
    try #require(Self.hasSamples, "Samples/ is absent")
    let expected = try #require(
      try Harness.json(try Data(contentsOf: Harness.samples.appendingPathComponent("expected.json"))) as? [String: Any])
    let result = try Harness.run(["convert", Self.sampleXML.path, "--to", "csv"])
    #expect(result.status == 0)
    let lines = result.stderr.split(separator: "\n").map(String.init)
    let line = lines.first ?? ""
    let records = try #require(expected["recordCount"] as? Int)
    let workouts = try #require(expected["workoutCount"] as? Int)
    #expect(line.hasPrefix("healthport convert: wrote \(records) Record rows to stdout in "), "\(line)")
    #expect(line.contains("; not in this table: "), "\(line)")
    #expect(line.contains(" \(workouts) Workout"), "\(line)")
    #expect(line.contains(" 1 Me") && line.contains(" 1 ExportDate"), "\(line)")
    #expect(line.hasSuffix(" (--split keeps every element)"), "\(line)")
    // The sample's workouts carry their metadata twice: a warning for outputs that hold workouts only.
    #expect(!result.stderr.contains("metadata block written twice"))
    let jsonl = try Harness.run(["convert", Self.sampleXML.path, "--to", "jsonl"])
    #expect(jsonl.stderr.contains("metadata block written twice"))
  }

  @Test("control characters the reader removed are the only difference, and are reported")
  func controlCharacters() throws {
    try #require(Self.hasSamples, "Samples/ is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var text = try String(contentsOf: Self.sampleXML, encoding: .utf8)
    let occurrences = text.components(separatedBy: "sourceName=\"Pedometer++\"").count - 1
    #expect(occurrences > 0)
    text = text.replacingOccurrences(of: "sourceName=\"Pedometer++\"", with: "sourceName=\"Pedometer\u{0B}++\"")
    let input = directory.appendingPathComponent("vt.xml")
    try text.write(to: input, atomically: true, encoding: .utf8)
    let output = directory.appendingPathComponent("out.xml")
    let result = try Harness.run(["convert", input.path, "--to", "xml", "-o", output.path])
    #expect(result.status == 0)
    #expect(result.stderr.contains("removed \(occurrences) control character"), "\(result.stderr)")
    #expect(try Data(contentsOf: output) == Data(contentsOf: Self.sampleXML))
  }

  @Test("a closed pipe ends the conversion quietly")
  func brokenPipe() throws {
    try #require(Self.hasSamples, "Samples/ is absent")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    // About 12 MB: far more than a pipe buffer.
    let text = try String(contentsOf: Self.sampleXML, encoding: .utf8)
    let start = try #require(text.range(of: " <Record "))
    let end = try #require(text.range(of: " <Correlation "))
    let records = String(text[start.lowerBound..<end.lowerBound])
    let big =
      String(text[..<start.lowerBound]) + String(repeating: records, count: 250) + String(text[end.lowerBound...])
    let input = directory.appendingPathComponent("big.xml")
    try big.write(to: input, atomically: true, encoding: .utf8)
    let errors = directory.appendingPathComponent("stderr")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = [
      "-c", "'\(Harness.binary.path)' convert '\(input.path)' --to jsonl 2>'\(errors.path)' | head -c 100 >/dev/null",
    ]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(try String(contentsOf: errors, encoding: .utf8) == "")
  }

  @Test(
    "usage errors exit 64",
    arguments: [
      ["convert", "x.xml"], ["convert", "x.xml", "--to", "yaml"],
      ["convert", "x.xml", "--to", "xml", "--split", "-o", "d"],
      ["convert", "x.xml", "--to", "csv", "--split"], ["convert", "a.xml", "b.xml", "--to", "xml"],
    ])
  func usage(arguments: [String]) throws {
    let result = try Harness.run(arguments)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains("error:"))
  }
}
