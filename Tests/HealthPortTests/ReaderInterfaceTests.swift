import Foundation
import TestSupport
import Testing

@testable import HealthPort

/// Counts of what a ``TypeDroppingStage`` saw on the parsing threads.
struct ReaderSeen {
  var heads = 0
  var builtRecords = 0
  var dropped = 0
}

/// A stage written against the reader's interface alone (``RangeStagePart``, ``RecordHead``):
/// it drops the top-level Records of one type and forwards nothing by hand.
final class TypeDroppingStage: ExportStage, RangeWorkSharing {
  let next: ExportSink
  let type: String
  var seen = ReaderSeen()

  init(dropping type: String, next: ExportSink) {
    self.type = type
    self.next = next
  }

  func consume(_ element: ExportElement) throws {
    if case .record(let record) = element {
      seen.builtRecords += 1
      if record.type == type {
        seen.dropped += 1
        return
      }
    }
    try next.consume(element)
  }

  func makeRangeWorker() -> (any RangeWorker)? {
    next.rangeWorker().map { StageWorker(Part(dropping: type), next: $0) }
  }

  func absorb(_ result: any RangeResult) throws {
    let result = result as! StageResult<ReaderSeen>
    try (next as! RangeWorkSharing).absorb(result.next)
    seen.heads += result.own.heads
    seen.builtRecords += result.own.builtRecords
    seen.dropped += result.own.dropped
  }

  final class Part: RangeStagePart {
    let type: String
    var seen = ReaderSeen()

    init(dropping type: String) { self.type = type }

    func pass(_ element: ExportElement) -> Bool {
      guard case .record(let record) = element else { return true }
      seen.builtRecords += 1
      if record.type == type { seen.dropped += 1 }
      return record.type != type
    }

    func passRecord(_ head: RecordHead) -> Bool {
      seen.heads += 1
      let kept = String(decoding: head.type, as: UTF8.self) != type
      if !kept { seen.dropped += 1 }
      return kept
    }

    func finishRange() -> ReaderSeen {
      defer { seen = ReaderSeen() }
      return seen
    }
  }
}

@Suite("the parallel reader's interface: stages decide on Record heads, writers encode tags")
struct ReaderInterfaceTests {
  static let steps = "HKQuantityTypeIdentifierStepCount"

  /// `recordCount` and the step Records of Samples/expected.json, which the generator wrote.
  static func expectedCounts() throws -> (records: Int, steps: Int) {
    let url = TestEnvironment.repoRoot.appendingPathComponent("Samples/expected.json")
    let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    let byType = json["recordsByType"] as! [String: Int]
    return (json["recordCount"] as! Int, byType[steps]!)
  }

  /// The CSV of Samples/export.xml through `CountingSink` → the dropping stage → the CSV writer.
  static func csv(parallel: Bool) throws -> (bytes: [UInt8], seen: ReaderSeen, counted: Int) {
    var bytes: [UInt8] = []
    let output = HealthPort.OutputStream(name: "memory") { bytes.append(contentsOf: $0) }
    let writer = CSVRecordsWriter(output: output)
    let stage = TypeDroppingStage(dropping: steps, next: writer)
    let counting = CountingSink(stage)
    if parallel {
      try SinkCapabilitiesTests.readSample(into: counting)
    } else {
      var options = ReadOptions()
      options.concurrent = false
      let xml = TestEnvironment.repoRoot.appendingPathComponent("Samples/export.xml")
      try ExportReader(path: xml.path, options: options).read(into: counting)
    }
    try output.flush()
    let counted = counting.counts.first { $0.name == "Record" }?.count ?? 0
    return (bytes, stage.seen, counted)
  }

  @Test("a stage on RangeStagePart gets Records as heads, and the rows equal the sequential read's")
  func stageOnHeads() throws {
    let expected = try Self.expectedCounts()
    let parallel = try Self.csv(parallel: true)
    let sequential = try Self.csv(parallel: false)
    #expect(parallel.seen.heads == expected.records, "every top-level Record came as its head")
    #expect(parallel.seen.builtRecords == 0, "no top-level Record was built")
    #expect(parallel.seen.dropped == expected.steps)
    #expect(sequential.seen.builtRecords == expected.records)
    #expect(sequential.seen.dropped == expected.steps)
    #expect(parallel.counted == expected.records)
    #expect(sequential.counted == expected.records)
    let text = String(decoding: parallel.bytes, as: UTF8.self)
    #expect(text.split(separator: "\n").count == 1 + expected.records - expected.steps)
    #expect(!text.contains(Self.steps))
    #expect(parallel.bytes == sequential.bytes)
  }

  @Test("the library's stages hand Records on as tags to a writer that takes them")
  func libraryStagesTakeTags() {
    let output = HealthPort.OutputStream(name: "memory") { _ in }
    let csv = CountingSink(
      FilteringSink(filter: ExportFilter(), next: SourceNamesSink(next: CSVRecordsWriter(output: output))))
    #expect(csv.rangeWorker()?.takesRecordTags == true)
    // JSON Lines takes side files (the filter then hands elements on in order), so no filter here.
    let jsonl = CountingSink(SourceNamesSink(next: JSONLinesWriter(output: output)))
    #expect(jsonl.rangeWorker()?.takesRecordTags == true)
  }

  /// Swift files under `Sources/HealthPort/`, relative paths and texts.
  static func librarySources() throws -> [(path: String, text: String)] {
    let root = TestEnvironment.repoRoot.appendingPathComponent("Sources/HealthPort")
    guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
    return try walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
      .map { (String($0.path.dropFirst(root.path.count + 1)), try String(contentsOf: $0, encoding: .utf8)) }
      .sorted { $0.path < $1.path }
  }

  @Test("RecordTag is named only in the reader's folder and the writers that encode from it")
  func recordTagStaysWithTheReader() throws {
    let word = try NSRegularExpression(pattern: #"\bRecordTag\b"#)
    let allowed = ["ParallelReading/", "Formats/CSV/", "Formats/JSONLines/"]
    let outside = try Self.librarySources().filter { file in
      !allowed.contains { file.path.hasPrefix($0) }
        && word.firstMatch(in: file.text, range: NSRange(file.text.startIndex..., in: file.text)) != nil
    }
    #expect(outside.map(\.path) == [])
  }

  @Test("the reader's contracts and tallies are declared in its folder: its arrows point down")
  func contractsInTheReadersFolder() throws {
    let sources = try Self.librarySources()
    for name in [
      "RecordTag", "RecordHead", "RangeWorker", "RangeStagePart", "RecordTallying", "RecordTally", "ElementTally",
    ] {
      let declaration = try NSRegularExpression(
        pattern: #"^(final )?(struct|class|protocol) "# + name + #"\b"#, options: .anchorsMatchLines)
      let declaring = sources.filter {
        declaration.firstMatch(in: $0.text, range: NSRange($0.text.startIndex..., in: $0.text)) != nil
      }
      #expect(declaring.map { $0.path.hasPrefix("ParallelReading/") } == [true], "\(name)")
    }
    let reader = sources.filter { $0.path.hasPrefix("ParallelReading/") }
    #expect(reader.filter { $0.text.contains("ExportSummaryCollector") }.map(\.path) == [])
  }
}
