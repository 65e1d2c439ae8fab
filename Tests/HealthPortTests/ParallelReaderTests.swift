import Foundation
import TestSupport
import Testing
import XMLStream

@testable import HealthPort

/// The parallel reader (``ParallelExportReader``) against one parser: the same header, elements,
/// report and first error, whatever the ranges, and the parallel path really taken where the
/// layout is Apple's (and left where a guessed boundary is not one).
@Suite("Parallel reader")
struct ParallelReaderTests {
  /// Everything a read shows a sink, and its error.
  final class RecordingSink: ExportSink {
    let stopAt: Int?
    var header: ExportHeader?
    var elements: [ExportElement] = []
    var report: [String] = []

    init(stopAt: Int? = nil) { self.stopAt = stopAt }
    var interest: ElementInterest { .everything }
    func begin(_ header: ExportHeader) throws { self.header = header }
    func consume(_ element: ExportElement) throws {
      if elements.count + 1 == stopAt { throw ExportDataError(message: "the sink stops at \(elements.count + 1)") }
      elements.append(element)
    }
    func end(_ report: ReadReport) throws {
      self.report =
        report.warnings + [
          "bytes \(report.documentBytes)", "dtd \(report.hasBrokenDTD)",
          "control \(report.removedControlCharacters) \(String(describing: report.firstControlCharacterOffset))",
        ]
    }
  }

  struct Outcome: Equatable {
    var header: ExportHeader?
    var elements: [ExportElement]
    var report: [String]
    var error: String?
  }

  static func sequential(_ bytes: [UInt8], stopAt: Int? = nil) -> Outcome {
    var options = ReadOptions()
    options.concurrent = false
    let sink = RecordingSink(stopAt: stopAt)
    var failure: String?
    do { try ExportReader(bytes: bytes, name: "doc.xml", options: options).read(into: sink) } catch {
      failure = "\(error)"
    }
    return Outcome(header: sink.header, elements: sink.elements, report: sink.report, error: failure)
  }

  /// Reads with four workers and ranges of `rangeSize` bytes; returns what the sink saw and the reader.
  /// `stream`: the bytes as a stream that a thread of the reader's cuts (as a zip or stdin is).
  static func parallel(
    _ bytes: [UInt8], rangeSize: Int, stopAt: Int? = nil, stream: Bool = false
  ) -> (Outcome, ParallelExportReader) {
    var options = ReadOptions()
    options.concurrent = true
    options.threads = 4
    options.rangeSize = rangeSize
    options.streamRangeSize = rangeSize
    let reader =
      stream
      ? ParallelExportReader(.stream(MemoryByteSource(bytes: bytes, name: "doc.xml")), options: options, format: .xml)
      : ParallelExportReader(document: MemoryDocument(bytes: bytes, name: "doc.xml"), options: options, format: .xml)
    let sink = RecordingSink(stopAt: stopAt)
    var failure: String?
    do { _ = try reader.read(into: sink) } catch { failure = "\(error)" }
    return (Outcome(header: sink.header, elements: sink.elements, report: sink.report, error: failure), reader)
  }

  /// Expects the same outcome for every range size, from memory and as a stream; returns the
  /// readers, smallest ranges first (each size's from memory, then as a stream).
  @discardableResult
  static func expectSame(
    _ bytes: [UInt8], _ label: String, rangeSizes: [Int] = [256, 1000, 4096], stopAt: Int? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> [ParallelExportReader] {
    let expected = sequential(bytes, stopAt: stopAt)
    var readers: [ParallelExportReader] = []
    for size in rangeSizes {
      for stream in [false, true] {
        let (outcome, reader) = parallel(bytes, rangeSize: size, stopAt: stopAt, stream: stream)
        let label = "\(label), ranges of \(size)\(stream ? ", as a stream" : "")"
        #expect(outcome.error == expected.error, "\(label)", sourceLocation: sourceLocation)
        #expect(outcome.header == expected.header, "\(label)", sourceLocation: sourceLocation)
        #expect(outcome.report == expected.report, "\(label)", sourceLocation: sourceLocation)
        #expect(
          outcome.elements == expected.elements,
          "\(label): \(outcome.elements.count) and \(expected.elements.count) elements",
          sourceLocation: sourceLocation)
        readers.append(reader)
      }
    }
    return readers
  }

  static let samples = TestEnvironment.repoRoot.appendingPathComponent("Samples/export.xml")
  static func sampleBytes() throws -> [UInt8] { Array(try Data(contentsOf: samples)) }

  /// The sample with its Records repeated: a few hundred KB of Apple layout.
  static func bigSample(copies: Int = 20) throws -> String {
    let text = String(decoding: try sampleBytes(), as: UTF8.self)
    let start = try #require(text.range(of: " <Record "))
    let end = try #require(text.range(of: " <Correlation "))
    return String(text[..<start.lowerBound])
      + String(repeating: String(text[start.lowerBound..<end.lowerBound]), count: copies)
      + String(text[end.lowerBound...])
  }

  @Test("the sample: in parallel, and the same")
  func sample() throws {
    let readers = Self.expectSame(try Self.sampleBytes(), "Samples/export.xml")
    #expect(readers[0].sequentialFrom == nil)
    #expect(readers[0].rangesDelivered > 20)
    let big = Self.expectSame(Array(try Self.bigSample().utf8), "the sample's Records ×20", rangeSizes: [4096, 65536])
    #expect(big.allSatisfy { $0.sequentialFrom == nil && $0.rangesDelivered > 5 })
  }

  @Test(
    "every real fixture",
    .enabled(if: TestEnvironment.runsRealFixtureTests, Comment(rawValue: TestEnvironment.skipMessage)))
  func realFixtures() throws {
    let files = try #require(
      FileManager.default.enumerator(at: TestEnvironment.realFixtures, includingPropertiesForKeys: nil)
    )
    .compactMap { $0 as? URL }.filter { $0.pathExtension == "xml" }
    #expect(files.count >= 5)
    for file in files {
      Self.expectSame(Array(try Data(contentsOf: file)), file.lastPathComponent, rangeSizes: [256, 2048])
    }
  }

  @Test("every malformed XML fixture")
  func malformed() throws {
    let folder = TestEnvironment.repoRoot.appendingPathComponent("Tests/Fixtures/malformed")
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".xml") }
    #expect(files.count >= 10)
    for file in files {
      Self.expectSame(Array(try Data(contentsOf: folder.appendingPathComponent(file))), file, rangeSizes: [256, 700])
    }
  }

  @Test("the sample cut at every 97th byte")
  func truncationSweep() throws {
    let bytes = try Self.sampleBytes()
    for cut in stride(from: 1, to: bytes.count, by: 97) {
      Self.expectSame(Array(bytes[0..<cut]), "cut at \(cut)", rangeSizes: [300])
    }
  }

  @Test("a sink that throws at element k", arguments: [1, 2, 37, 80, 95])
  func sinkThrows(at k: Int) throws {
    let bytes = try Self.sampleBytes()
    let expected = Self.sequential(bytes, stopAt: k)
    #expect(expected.error?.contains("doc.xml:") == true, "\(expected.error ?? "no error")")
    Self.expectSame(bytes, "stop at \(k)", stopAt: k)
  }

  /// `snippet` on a line of its own at a quarter, a half and three quarters of `text`: after the
  /// next line that ends a Record (which may be inside a Correlation or Workout), or, `topLevel`,
  /// before the next top-level Record.
  static func plantAtQuarters(_ snippet: String, in text: String, topLevel: Bool) throws -> String {
    var result = text
    for fraction in [3, 2, 1] {
      let at = result.index(result.startIndex, offsetBy: result.count * fraction / 4)
      if topLevel {
        let line = try #require(result.range(of: "\n <Record ", range: at..<result.endIndex)).lowerBound
        result.insert(contentsOf: "\n " + snippet, at: line)
      } else {
        let line = try #require(result.range(of: "/>\n", range: at..<result.endIndex)).upperBound
        result.insert(contentsOf: " " + snippet + "\n", at: line)
      }
    }
    return result
  }

  /// Lines that look like top-level elements, planted where they are not.
  static let fakeElements =
    "\n <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"X\"/>\n <Fake a=\"1\">\n"

  @Test(
    "boundaries planted in comments, CDATA and text",
    arguments: [
      ("comment", "<!--\(fakeElements)-->"),
      ("CDATA", "<Note><![CDATA[\(fakeElements)]]></Note>"),
      ("text", "<Note>words\n <Child a=\"1\"/>\n more words\n <Child/></Note>"),
      ("processing instruction", "<?note \(fakeElements)?>"),
    ])
  func planted(kind: String, snippet: String) throws {
    let result = try Self.plantAtQuarters(snippet, in: try Self.bigSample(copies: 4), topLevel: false)
    let readers = Self.expectSame(Array(result.utf8), kind, rangeSizes: [64, 256, 2048])
    // Split by offset, a range ends at the planted line whatever the size; cut from a stream, a
    // range of 64 bytes ends at nearly every candidate.
    let caught = [readers[0], readers[1], readers[2], readers[4]].map { ($0.sequentialFrom ?? 0) > 0 }
    #expect(caught == [true, true, true, true], "\(kind): the planted boundary was not caught")
  }

  /// `&lt;` and `&gt;` become markers before a range is parsed (``EntityMarkers``); these put
  /// them, and DEL (the markers' byte), where the markers must not be turned back: the ranges
  /// holding them are parsed again as written, in parallel still, with the sequential results.
  @Test(
    "references and DEL where no entity marker may stand",
    arguments: [
      ("plain", "<Note a=\"x\">words</Note>"),
      ("text", "<Note>a &lt; b &gt; c &lt;&lt;HKDevice&gt;</Note>"),
      ("comment", "<!-- &lt;Record type=\"x\"/&gt; -->"),
      ("CDATA", "<Note><![CDATA[&lt;kept as written&gt;]]></Note>"),
      ("processing instruction", "<?note &lt;kept&gt;?>"),
      ("a DEL in a value", "<Note a=\"x\u{7F}y &lt;z&gt;\"/>"),
      ("a marker's look-alike", "<Note a=\"\u{7F}lt\u{7F} and \u{7F}gt\u{7F}\"/>"),
      ("a DEL in text", "<Note>\u{7F}lt\u{7F}</Note>"),
      ("ampersands beside them", "<Note a=\"&amp;lt; &lt;&amp;&gt; &#38;gt;\" b=\"&lt;\"/>"),
    ])
  func entityMarkers(kind: String, snippet: String) throws {
    // Between two top-level Records: every range verifies, none is read in sequence.
    let result = try Self.plantAtQuarters(snippet, in: try Self.bigSample(copies: 4), topLevel: true)
    let readers = Self.expectSame(Array(result.utf8), kind, rangeSizes: [256, 2048, 65536])
    #expect(readers.allSatisfy { $0.sequentialFrom == nil }, "\(kind): \(readers.map { $0.sequentialFrom })")
  }

  @Test("entity markers: every reference swapped and back, byte for byte; none in bytes with a DEL")
  func entityMarkerBytes() throws {
    var bytes = Array(try Self.bigSample(copies: 2).utf8)
    let original = bytes
    let references =
      String(decoding: bytes, as: UTF8.self).components(separatedBy: "&lt;").count - 1
      + String(decoding: bytes, as: UTF8.self).components(separatedBy: "&gt;").count - 1
    #expect(references > 50)
    let swapped = bytes.withUnsafeMutableBytes { EntityMarkers.substitute(in: $0) }
    #expect(swapped == references)
    // Same lengths (lines and columns kept): two bytes of each reference changed, nothing else.
    #expect(zip(bytes, original).filter { $0 != $1 }.count == 2 * references)
    #expect(String(decoding: bytes, as: UTF8.self).components(separatedBy: "\u{7F}lt\u{7F}").count - 1 > 0)
    #expect(!String(decoding: bytes, as: UTF8.self).contains("&lt;"))
    bytes.withUnsafeMutableBytes { EntityMarkers.restore(in: $0) }
    #expect(bytes == original)
    // With apostrophes (`’`, three bytes, as `DEL q DEL`): swapped and back as well.
    var named = Array(("<Note a=\"Anna’s &lt;Watch&gt;\">’’</Note>" + String(decoding: original, as: UTF8.self)).utf8)
    let namedOriginal = named
    let apostrophes = String(decoding: named, as: UTF8.self).filter { $0 == "’" }.count
    #expect(apostrophes >= 3)
    let both = named.withUnsafeMutableBytes { EntityMarkers.substitute(in: $0, apostrophes: true) }
    #expect(both == references + 2 + apostrophes)
    #expect(!named.contains(0xE2) || !String(decoding: named, as: UTF8.self).contains("’"))
    named.withUnsafeMutableBytes { EntityMarkers.restore(in: $0) }
    #expect(named == namedOriginal)
    var withDelete = original + [0x7F]
    #expect(withDelete.withUnsafeMutableBytes { EntityMarkers.substitute(in: $0) } == 0)
    #expect(withDelete == original + [0x7F])
  }

  @Test(
    "layouts other than Apple's",
    arguments: [("no indentation", ""), ("two spaces", "  "), ("a tab", "\t"), ("one space at every depth", " ")])
  func otherLayouts(name: String, indent: String) throws {
    var lines: [String] = []
    for line in try Self.bigSample(copies: 3).split(separator: "\n", omittingEmptySubsequences: false) {
      let trimmed = line.drop { $0 == " " || $0 == "\t" }
      let depth = line.count - trimmed.count
      let levels = name.hasPrefix("one space") ? (depth > 0 ? 1 : 0) : depth
      lines.append(String(repeating: indent, count: levels) + trimmed)
    }
    Self.expectSame(Array(lines.joined(separator: "\n").utf8), name, rangeSizes: [256, 4096])
  }

  @Test("control characters and damage deep in the document", arguments: ["control", "date", "tag", "entity"])
  func damage(kind: String) throws {
    var text = try Self.bigSample(copies: 6)
    let at = text.index(text.startIndex, offsetBy: text.count * 2 / 3)
    let record = try #require(text.range(of: " <Record ", range: at..<text.endIndex)).upperBound
    switch kind {
    case "control": text.insert(contentsOf: "\u{0B}", at: record)
    case "date": text.insert(contentsOf: "startDate=\"yesterday\" ", at: record)
    case "tag": text.insert(contentsOf: "a=\"1\"></Workout><Record ", at: record)
    default: text.insert(contentsOf: "a=\"&nbsp;\" ", at: record)
    }
    Self.expectSame(Array(text.utf8), kind, rangeSizes: [256, 4096])
  }

  /// A stream that fails after `limit` bytes, as a damaged zip does while it inflates.
  final class FailingSource: ByteSource {
    struct Broken: Error {}
    let bytes: [UInt8]
    let limit: Int
    var offset = 0
    init(_ bytes: [UInt8], failingAfter limit: Int) {
      self.bytes = bytes
      self.limit = limit
    }
    var displayName: String { "doc.xml" }
    var totalBytes: Int64? { nil }
    var bytesConsumed: Int64 { Int64(offset) }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
      if offset >= limit { throw Broken() }
      let count = min(buffer.count, limit - offset, 1000)
      bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
      offset += count
      return count
    }
  }

  @Test("a stream that fails while it is read", arguments: [10, 5000, 70_000, 150_000])
  func failingStream(after limit: Int) throws {
    let bytes = Array(try Self.bigSample(copies: 5).utf8)
    var one = ReadOptions()
    one.concurrent = false
    let expected = RecordingSink()
    #expect(throws: FailingSource.Broken.self) {
      try XMLExportReader(options: one).readInSequence(
        FailingSource(bytes, failingAfter: limit), format: .xml, into: expected)
    }
    var options = ReadOptions()
    options.threads = 4
    options.streamRangeSize = 3000
    let sink = RecordingSink()
    let reader = ParallelExportReader(
      .stream(FailingSource(bytes, failingAfter: limit)), options: options, format: .xml)
    #expect(throws: FailingSource.Broken.self) { _ = try reader.read(into: sink) }
    #expect(sink.header == expected.header)
    #expect(sink.elements == expected.elements)
    if limit > 70_000 { #expect(reader.rangesDelivered > 10) }
  }

  @Test("a large file by path: ExportReader reads it in parallel, the same")
  func filePath() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parallel-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("export.xml")
    let text = try Self.bigSample(copies: 30)
    try text.write(to: file, atomically: true, encoding: .utf8)
    let document = try #require(FileDocument(path: file.path))
    #expect(document.size == text.utf8.count)
    let expected = Self.sequential(Array(text.utf8))
    var options = ReadOptions()
    options.threads = 3
    options.rangeSize = 10_000
    let sink = RecordingSink()
    let reader = ParallelExportReader(document: document, options: options, format: .xml)
    _ = try reader.read(into: sink)
    #expect(reader.sequentialFrom == nil && reader.rangesDelivered > 10)
    #expect(sink.elements == expected.elements)
    #expect(sink.report == expected.report.map { $0.replacingOccurrences(of: "doc.xml", with: file.path) })
  }
}
