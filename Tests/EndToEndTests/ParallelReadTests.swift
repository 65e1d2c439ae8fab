import Foundation
import Testing

/// The built binary with one thread against several parsers on one file (issue 16): every output,
/// message and exit status the same. Small ranges (`HEALTHPORT_RANGE_BYTES`) cut even the
/// samples into many ranges.
@Suite("One parser or several: the same results")
struct ParallelReadTests {
  static let sampleXML = Harness.samples.appendingPathComponent("export.xml")
  static let malformed = Harness.repoRoot.appendingPathComponent("Tests/Fixtures/malformed")

  /// Runs `arguments` with one thread, then with four parsers on ranges of `rangeBytes`; expects
  /// identical results and returns the parallel one.
  @discardableResult
  static func same(
    _ arguments: [String], rangeBytes: Int = 1000, stdin: URL? = nil, in directory: URL? = nil
  ) throws -> Harness.Result {
    let one = try Harness.run(arguments, stdin: stdin, in: directory, environment: ["HEALTHPORT_THREADS": "1"])
    let many = try Harness.run(
      arguments, stdin: stdin, in: directory,
      environment: ["HEALTHPORT_THREADS": "4", "HEALTHPORT_RANGE_BYTES": "\(rangeBytes)"])
    #expect(one.status == many.status, "\(arguments)")
    #expect(
      ConcurrentReadTests.withoutTimes(one.stderr) == ConcurrentReadTests.withoutTimes(many.stderr), "\(arguments)")
    #expect(
      one.stdout == many.stdout, "\(arguments): stdout differs (\(one.stdout.count) and \(many.stdout.count) bytes)")
    return many
  }

  static let commands: [[String]] = [
    ["convert", "--to", "jsonl"], ["convert", "--to", "csv"], ["convert", "--to", "xml"], ["info", "--format", "json"],
    ["steps"], ["steps", "--dedupe"], ["workouts"],
  ]

  static func each(_ input: URL, rangeBytes: Int = 1000) throws {
    for command in commands { try same(command + [input.path], rangeBytes: rangeBytes) }
  }

  @Test("the sample and every real export, every command")
  func realInputs() throws {
    let inputs = [Self.sampleXML] + Harness.realExports().filter { $0.pathExtension == "xml" }
    for input in inputs { try Self.each(input, rangeBytes: 700) }
    let info = try Self.same(["info", Self.sampleXML.path, "--format", "json"])
    #expect(info.status == 0)
  }

  /// The writers whose rows are encoded on the parsing threads (``RangeWorkSharing``), behind
  /// every pipeline stage that takes part: the filter (with its caches of sources and of a named
  /// zone's days), the source names for the unmatched-filter warnings, the element counts.
  @Test("rows encoded on the parsing threads: filters, source warnings, counts and the JSON document")
  func sharedWork() throws {
    let inputs = [Self.sampleXML] + Harness.realExports().filter { $0.pathExtension == "xml" }
    let variants: [[String]] = [
      ["--to", "json"],
      ["--to", "csv", "--source-product", "Watch"],
      ["--to", "csv", "--type", "HeartRate", "--type", "StepCount", "--source", "watch"],
      ["--to", "csv", "--from", "2020-01-01", "--to", "2024-06-30", "--tz", "Europe/Berlin"],
      ["--to", "jsonl", "--source-product", "Wach"],
      ["--to", "jsonl", "--activity", "Running"],
    ]
    for input in inputs {
      for variant in variants {
        // Without --quiet: the summary's counts by element name come from the workers' counts.
        let result = try Self.same(["convert", input.path] + variant, rangeBytes: 700)
        #expect(result.status == 0, "\(variant): \(result.stderr)")
        #expect(result.stderr.contains("healthport convert: wrote "), "\(result.stderr)")
      }
    }
    let warned = try Self.same(["convert", Self.sampleXML.path, "--to", "csv", "--source-product", "Wach"])
    #expect(warned.stderr.contains("--source-product 'Wach' matches no source"), "\(warned.stderr)")
    let rows = try Self.same(["convert", Self.sampleXML.path, "--to", "csv", "--source-product", "Watch"])
    let text = rows.stdoutText
    #expect(text.split(separator: "\n").count > 10, "the filter keeps the watch's rows")
  }

  @Test("zips and stdin: cut as they stream")
  func streams() throws {
    let zips =
      [Harness.samples.appendingPathComponent("export.zip")]
      + Harness.realExports().filter { $0.pathExtension == "zip" }
    for zip in zips {
      for command in Self.commands { try Self.same(command + [zip.path], rangeBytes: 700) }
    }
    for input in [Self.sampleXML, Harness.samples.appendingPathComponent("export.zip")] {
      for command in Self.commands { try Self.same(command + ["-"], rangeBytes: 500, stdin: input) }
    }
    let damaged = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: damaged) }
    for file in ["truncated.xml", "mismatched-tags.xml", "bad-date.xml", "control-characters.xml"] {
      let result = try Self.same(
        ["convert", "-", "--to", "jsonl"], rangeBytes: 300, stdin: Self.malformed.appendingPathComponent(file))
      if result.status != 0 { #expect(result.stderr.contains("<stdin>:"), "\(file): \(result.stderr)") }
    }
  }

  @Test("the fuzzer's finds: the same first error with one parser and with four (libxml2's own line numbers too)")
  func fuzzFinds() throws {
    let folder = Harness.repoRoot.appendingPathComponent("Tests/Fixtures/fuzz-regressions")
    let finds = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("par-") }
    try #require(!finds.isEmpty)
    for name in finds {
      let result = try Self.same(
        ["convert", folder.appendingPathComponent(name).path, "--to", "jsonl"], rangeBytes: 64)
      #expect(result.status == 65, "\(name): \(result.stderr)")
    }
  }

  @Test("the whole bundle: side files, and the missing route's workout located at the same line")
  func bundles() throws {
    for input in [GeneratedBundle.zip, GeneratedBundle.exportFolder] {
      for command in Self.commands { try Self.same(command + [input.path], rangeBytes: 4096) }
      let info = try Self.same(["info", input.path, "--format", "json"], rangeBytes: 4096)
      #expect(
        info.stderr.contains(#/references /workout-routes/route_bundle_missing\.gpx/#)
          && info.stderr.contains(#/export\.xml:\d+:\d+\)/#), "\(info.stderr)")
    }
  }

  @Test("load: the same database, table by table")
  func load() throws {
    let work = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: work) }
    var dumps: [String] = []
    for (name, environment) in [
      ("one.db", ["HEALTHPORT_THREADS": "1"]),
      ("many.db", ["HEALTHPORT_THREADS": "4", "HEALTHPORT_RANGE_BYTES": "900"]),
    ] {
      let result = try Harness.run(["load", Self.sampleXML.path, "--db", name], in: work, environment: environment)
      #expect(result.status == 0, "\(result.stderr)")
      dumps.append(try Harness.tableRows(work.appendingPathComponent(name)))
    }
    #expect(dumps[0].count > 1000)
    #expect(dumps[0] == dumps[1])
  }

  @Test("the malformed corpus, with and without --skip-invalid")
  func malformedCorpus() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.malformed.path)
      .filter { $0.hasSuffix(".xml") }.sorted()
    #expect(files.count >= 10)
    for file in files {
      let path = Self.malformed.appendingPathComponent(file).path
      let plain = try Self.same(["convert", path, "--to", "jsonl"], rangeBytes: 300)
      try Self.same(["info", path, "--format", "json"], rangeBytes: 300)
      try Self.same(["convert", path, "--to", "jsonl", "--skip-invalid"], rangeBytes: 300)
      if plain.status != 0 { #expect(plain.stderr.contains(": error: "), "\(file): \(plain.stderr)") }
    }
  }

  @Test("the sample cut at many places")
  func truncationSweep() throws {
    let bytes = try Data(contentsOf: Self.sampleXML)
    let work = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: work) }
    let file = work.appendingPathComponent("cut.xml")
    for cut in stride(from: 1500, to: bytes.count, by: 2311) {
      try bytes.prefix(cut).write(to: file)
      let result = try Self.same(["info", file.path], rangeBytes: 400)
      #expect(result.status == 65, "cut at \(cut)")
      #expect(result.stderr.contains("cut.xml:"), "cut at \(cut): \(result.stderr)")
    }
  }

  /// `text` with each snippet, in turn, on a line of its own before the first top-level Record
  /// past the next twentieth of the text.
  static func planted(_ snippets: [String], in text: String) throws -> String {
    var text = text
    for (index, snippet) in snippets.enumerated() {
      let at = text.index(text.startIndex, offsetBy: text.count * (index + 1) / 20)
      let line = try #require(text.range(of: "\n <Record ", range: at..<text.endIndex)).lowerBound
      text.insert(contentsOf: "\n " + snippet, at: line)
    }
    return text
  }

  /// For the writers that encode on the parsing threads, `’` is a marker too (``EntityMarkers``):
  /// planted where a marker must not be turned back (text, a comment, CDATA) and where it must (a
  /// value, beside `&lt;`), the rows are the one-thread rows.
  @Test("apostrophes and references around the markers: the same rows")
  func apostropheMarkers() throws {
    let work = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: work) }
    var text = try String(contentsOf: Self.sampleXML, encoding: .utf8)
    let snippets = [
      "<Note>Anna’s &lt;Watch&gt;</Note>", "<!-- Anna’s -->", "<Note><![CDATA[Anna’s &lt;]]></Note>",
      "<Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Anna’s Apple Watch\" "
        + "device=\"&lt;&lt;HKDevice: 0x1&gt;, name:Anna’s Watch&gt;\" unit=\"count\" "
        + "creationDate=\"2024-01-01 10:00:00 +0100\" startDate=\"2024-01-01 10:00:00 +0100\" "
        + "endDate=\"2024-01-01 10:01:00 +0100\" value=\"12\"/>",
    ]
    text = try Self.planted(snippets, in: text)
    let file = work.appendingPathComponent("apostrophes.xml")
    try text.write(to: file, atomically: true, encoding: .utf8)
    for format in ["csv", "jsonl", "xml"] {
      for rangeBytes in [300, 2000] {
        let result = try Self.same(["convert", file.path, "--to", format], rangeBytes: rangeBytes)
        #expect(result.status == 0, "\(format): \(result.stderr)")
        #expect(result.stdoutText.contains("Anna’s Apple Watch"), "\(format)")
      }
    }
  }

  /// Records in every form a start tag and its children take, planted among the sample's: the
  /// CSV and JSON writers encode a top-level Record on a parsing thread from its start tag's
  /// bytes and its children (``RecordTag``), never making the Record, and must write what the
  /// one-thread writer writes of the Record it makes.
  static let oddRecords = [
    // Quotes and a comma in the name, no version, a device without the canonical head (capital
    // hex), an unknown attribute, a category value, no unit.
    #"<Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Bob, &quot;the&quot; Phone" "#
      + #"device="&lt;&lt;HKDevice: 0xABC&gt;, name:Bob’s&gt;" creationDate="2024-02-01 01:00:00 +0100" "#
      + #"startDate="2024-02-01 01:00:00 +0100" endDate="2024-02-01 06:30:00 +0100" "#
      + #"value="HKCategoryValueSleepAnalysisAsleepCore" futureAttribute="1"/>"#,
    // Metadata with a repeated key, an HRV list with a beat and an unknown child, an unknown
    // child with a child of its own and text.
    #"<Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Anna’s Apple Watch" "#
      + #"sourceVersion="9.0" device="&lt;&lt;HKDevice: 0x1f&gt;, name:Apple Watch, model:Watch&gt;" unit="ms" "#
      + #"creationDate="2024-02-02 20:05:00 +0100" startDate="2024-02-02 20:00:00 +0100" "#
      + #"endDate="2024-02-02 20:01:00 +0100" value="41.5">"# + "\n"
      + #"  <MetadataEntry key="HKAlgorithmVersion" value="2"/>"# + "\n"
      + #"  <MetadataEntry key="HKAlgorithmVersion" value="3, &quot;b&quot;"/>"# + "\n"
      + "  <HeartRateVariabilityMetadataList>\n"
      + #"   <InstantaneousBeatsPerMinute bpm="61" time="8:01:02.35 PM"/>"# + "\n"
      + #"   <Oddity a="1"/>"# + "\n"
      + "  </HeartRateVariabilityMetadataList>\n"
      + #"  <FutureChild x="y">text<Deeper/></FutureChild>"# + "\n"
      + " </Record>",
    // An empty unit beside a value that is no number; an empty version and device.
    #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="S" sourceVersion="" device="" unit="" "#
      + #"startDate="2024-02-03 10:00:00 -0500" endDate="2024-02-03 10:01:00 -0500" value="abc"/>"#,
    // No value at all; an empty value; an exponent; a negative integer.
    #"<Record type="HKCategoryTypeIdentifierMindfulSession" sourceName="S" "#
      + #"startDate="2024-02-04 10:00:00 +0000" endDate="2024-02-04 10:10:00 +0000"/>"#,
    #"<Record type="HKCategoryTypeIdentifierMindfulSession" sourceName="S" "#
      + #"startDate="2024-02-04 11:00:00 +0000" endDate="2024-02-04 11:10:00 +0000" value=""/>"#,
    #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="S" unit="count" "#
      + #"startDate="2024-02-05 10:00:00 +0000" endDate="2024-02-05 10:01:00 +0000" value="1.5e+06"/>"#,
    #"<Record type="HKQuantityTypeIdentifierHeight" sourceName="S" unit="cm" "#
      + #"startDate="2024-02-05 10:00:00 +0000" endDate="2024-02-05 10:01:00 +0000" value="-3"/>"#,
  ]

  @Test("Records written from their start tags: every odd form, the same rows")
  func recordTags() throws {
    let work = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: work) }
    var text = try String(contentsOf: Self.sampleXML, encoding: .utf8)
    text = try Self.planted(Self.oddRecords, in: text)
    let file = work.appendingPathComponent("odd-records.xml")
    try text.write(to: file, atomically: true, encoding: .utf8)
    for format in ["csv", "jsonl", "json"] {
      for rangeBytes in [300, 2000] {
        // Without --quiet: the counts by element name and the warnings (records without a
        // value, unknown attributes and elements) come from the parsing threads too.
        let result = try Self.same(["convert", file.path, "--to", format], rangeBytes: rangeBytes)
        #expect(result.status == 0, "\(format): \(result.stderr)")
        #expect(result.stdoutText.contains("HKCategoryValueSleepAnalysisAsleepCore"), "\(format)")
        #expect(result.stdoutText.contains("HKAlgorithmVersion"), "\(format)")
      }
    }
    // Behind the filter and the source names (their warnings): Records kept and dropped by tag.
    for filter in [
      ["--source-product", "Watch"], ["--type", "HeartRateVariabilitySDNN", "--source", "anna"],
      ["--from", "2024-02-03", "--source-product", "Wacth"],
    ] {
      for format in ["csv", "jsonl"] {
        let result = try Self.same(["convert", file.path, "--to", format] + filter, rangeBytes: 300)
        #expect(result.status == 0, "\(format) \(filter): \(result.stderr)")
      }
    }
    let jsonl = try Self.same(["convert", file.path, "--to", "jsonl", "--quiet"], rangeBytes: 300).stdoutText
    for part in ["FutureChild", "Oddity", "futureAttribute", "8:01:02.35 PM", #""value":"abc""#] {
      #expect(jsonl.contains(part), "\(part)")
    }

    // A child that fails inside a Record whose row was begun: the range is read again in
    // sequence, with the same first error and the same rows before it.
    let bad = text.replacingOccurrences(
      of: #"<MetadataEntry key="HKAlgorithmVersion" value="2"/>"#, with: #"<MetadataEntry key="HKAlgorithmVersion"/>"#)
    let badFile = work.appendingPathComponent("odd-records-bad.xml")
    try bad.write(to: badFile, atomically: true, encoding: .utf8)
    for format in ["csv", "jsonl"] {
      let result = try Self.same(["convert", badFile.path, "--to", format], rangeBytes: 300)
      #expect(result.status == 65, "\(format): \(result.stderr)")
      #expect(result.stderr.contains("MetadataEntry is missing its required attribute 'value'"), "\(result.stderr)")
    }
  }

  /// Rows encoded on the parsing threads reach stdout at the rows where one thread writes its
  /// blocks, so that what is written before an error (stdout cannot be taken back) is the same.
  @Test("an error late in a large export: the same rows on stdout before it")
  func lateError() throws {
    let work = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: work) }
    let file = work.appendingPathComponent("late-error.xml")
    try Self.generate(megabytes: 3, seed: 5, to: file)
    var bytes = try Data(contentsOf: file)
    let needle = Data(#"startDate=""#.utf8)
    let found = try #require(bytes.range(of: needle, in: (bytes.count * 4 / 5)..<bytes.count))
    bytes.replaceSubrange(found.upperBound..<(found.upperBound + 4), with: Data("BAD!".utf8))
    try bytes.write(to: file)
    for format in ["csv", "jsonl", "json"] {
      let result = try Self.same(["convert", file.path, "--to", format], rangeBytes: 64 << 10)
      #expect(result.status == 65, "\(format): \(result.stderr)")
      #expect(result.stdout.count > 1 << 20, "\(format): blocks were written before the error")
      #expect(result.stderr.contains("late-error.xml:"), "\(result.stderr)")
    }
  }

  /// The benchmark's generator: an export of about `megabytes` MB in the Health app's layout.
  static func generate(megabytes: Int, seed: Int, to file: URL) throws {
    let generator = Harness.repoRoot.appendingPathComponent("Benchmarks/generate_export.py").path
    let result = try Harness.runTool(
      "/usr/bin/env", ["python3", generator, "--size-mb", "\(megabytes)", "--seed", "\(seed)", "-o", file.path])
    try #require(result.status == 0, "\(result.output)")
  }

  @Test("a large generated export: parsers on real-sized ranges")
  func generated() throws {
    let work = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: work) }
    let file = work.appendingPathComponent("generated.xml")
    try Self.generate(megabytes: 6, seed: 3, to: file)
    for command in Self.commands { try Self.same(command + [file.path], rangeBytes: 1 << 20) }
    // Every top-level Record is counted, as the text says (one space of indentation).
    let text = try String(contentsOf: file, encoding: .utf8)
    let info = try Self.same(["info", file.path, "--format", "json"], rangeBytes: 100_000)
    let json = try #require(try Harness.json(info.stdout) as? [String: Any])
    #expect(json["recordCount"] as? Int == text.components(separatedBy: "\n <Record ").count - 1)
  }
}
