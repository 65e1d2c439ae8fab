import Foundation
import TestSupport
import Testing

@testable import HealthPort

/// Wants side files and bundle members, and keeps what comes.
private final class BundleRecorder: ExportSink {
  var routesBegun = 0
  var members: [String] = []
  var capabilities: SinkCapabilities { [.sideFiles, .bundleMembers] }
  func begin(_ header: ExportHeader) throws {}
  func consume(_ element: ExportElement) throws {}
  func end(_ report: ReadReport) throws {}
  func consumeSideFile(_ event: SideFileEvent) throws { if case .routeBegin = event { routesBegun += 1 } }
  func consumeBundleEvent(_ event: BundleEvent) throws {
    if case .member(let member) = event { members.append(member.path) }
  }
}

/// A stage that says nothing of side files, bundle members or capabilities.
private final class BareStage: ExportStage {
  let next: ExportSink
  var elements = 0
  init(next: ExportSink) { self.next = next }
  func consume(_ element: ExportElement) throws {
    elements += 1
    try next.consume(element)
  }
}

/// Hands Records on untouched and counts those that reach it: it forwards the tallies.
private final class TallyForwardingStage: ExportStage {
  let next: ExportSink
  var records = 0
  init(next: ExportSink) { self.next = next }
  var capabilities: SinkCapabilities { next.capabilities }
  func consume(_ element: ExportElement) throws {
    if case .record = element { records += 1 }
    try next.consume(element)
  }
}

@Suite("Sink capabilities: one value, forwarded by every stage")
struct SinkCapabilitiesTests {
  static let sampleZip = TestEnvironment.repoRoot.appendingPathComponent("Samples/export.zip")

  /// The zip's members, from its central directory (`unzip -Z1`), independent of the reader.
  static func zipMembers() throws -> [String] {
    let unzip = Process()
    unzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    unzip.arguments = ["unzip", "-Z1", sampleZip.path]
    let pipe = Pipe()
    unzip.standardOutput = pipe
    try unzip.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    unzip.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  @Test("a stage that forwards nothing by hand still passes side files and bundle members on")
  func bareStageForwards() throws {
    let members = try Self.zipMembers()
    let gpx = members.filter { $0.hasSuffix(".gpx") }.count
    #expect(gpx == 2)
    let recorder = BundleRecorder()
    let stage = BareStage(next: recorder)
    #expect(stage.capabilities == [.sideFiles, .bundleMembers])
    try ExportReader(path: Self.sampleZip.path).read(into: stage)
    #expect(recorder.routesBegun == gpx)
    #expect(recorder.members.count == members.count)
    #expect(stage.elements > 0)
  }

  @Test("the library's stages have the next sink's capabilities")
  func libraryStages() {
    let recorder = BundleRecorder()
    let stages: [any ExportSink] = [
      CountingSink(recorder), FilteringSink(filter: ExportFilter(), next: recorder), SourceNamesSink(next: recorder),
      CountingSink(FilteringSink(filter: ExportFilter(), next: SourceNamesSink(next: recorder))),
    ]
    for stage in stages { #expect(stage.capabilities == [.sideFiles, .bundleMembers]) }
    #expect(CountingSink(CollectingSink()).capabilities == [])
  }

  /// `recordCount` of Samples/expected.json, which the generator wrote with the sample.
  static func expectedRecordCount() throws -> Int {
    let url = TestEnvironment.repoRoot.appendingPathComponent("Samples/expected.json")
    let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    return json["recordCount"] as! Int
  }

  static func readSample(into sink: ExportSink) throws {
    var options = ReadOptions()
    options.concurrent = true
    options.threads = 2
    options.rangeSize = 4096
    let xml = TestEnvironment.repoRoot.appendingPathComponent("Samples/export.xml")
    let bytes = try [UInt8](Data(contentsOf: xml))
    _ = try ParallelExportReader(
      document: MemoryDocument(bytes: bytes, name: "export.xml"), options: options, format: .xml
    )
    .read(into: sink)
  }

  @Test("a parallel read tallies Records for info's summary through the stages that forward the tallies")
  func talliesThroughForwardingStages() throws {
    let expected = try Self.expectedRecordCount()
    let collector = ExportSummaryCollector()
    let stage = TallyForwardingStage(next: collector)
    #expect(stage.recordTallying === collector)
    try Self.readSample(into: stage)
    #expect(collector.summary.recordCount == expected)
    #expect(stage.records == 0, "the Records were tallied on the parsing threads, never built")
  }

  @Test("a stage that says nothing of tallies sees every Record")
  func bareStageSeesRecords() throws {
    let expected = try Self.expectedRecordCount()
    let collector = ExportSummaryCollector()
    let counting = CountingSink(collector)
    #expect(counting.recordTallying == nil)
    #expect(!counting.capabilities.contains(.recordTallies))
    try Self.readSample(into: counting)
    #expect(collector.summary.recordCount == expected)
    #expect(counting.counts.first { $0.name == "Record" }?.count == expected)
  }
}
