import Testing

@testable import HealthPort

/// The reader's two-thread mode (``ReadOptions/concurrent``) against its one-thread mode.
@Suite("Concurrent reader")
struct ConcurrentReaderTests {
  /// Counts elements, and stops the read by throwing at element `stopAt`.
  final class CountingStopSink: ExportSink {
    struct Stop: Error {}
    let stopAt: Int?
    var consumed = 0
    var lastStart: HealthDate?
    var ended = false

    init(stopAt: Int?) { self.stopAt = stopAt }
    func begin(_ header: ExportHeader) throws {}
    func consume(_ element: ExportElement) throws {
      consumed += 1
      if case .record(let record) = element { lastStart = record.startDate }
      if consumed == stopAt { throw Stop() }
    }
    func end(_ report: ReadReport) throws { ended = true }
  }

  /// `count` Records, one second apart: about 190 bytes each, so several pipeline blocks.
  static func document(records count: Int) -> [UInt8] {
    var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
    for index in 0..<count {
      func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
      let second = twoDigits(index % 60)
      let minute = twoDigits((index / 60) % 60)
      let hour = twoDigits(index / 3600)
      let date = "2024-01-01 \(hour):\(minute):\(second) +0000"
      text +=
        " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Watch\" unit=\"count\" creationDate=\"\(date)\" startDate=\"\(date)\" endDate=\"\(date)\" value=\"\(index)\"/>\n"
    }
    return Array((text + "</HealthData>\n").utf8)
  }

  static func options(concurrent: Bool) -> ReadOptions {
    var options = ReadOptions()
    options.concurrent = concurrent
    return options
  }

  @Test("every element arrives, in order", arguments: [false, true])
  func complete(concurrent: Bool) throws {
    let sink = CountingStopSink(stopAt: nil)
    let bytes = Self.document(records: 20_000)
    // Far more than the pipeline's blocks hold at once (8 × 32 KiB).
    #expect(bytes.count > 3 << 20)
    try ExportReader(bytes: bytes, name: "doc.xml", options: Self.options(concurrent: concurrent)).read(into: sink)
    #expect(sink.consumed == 20_000)
    #expect(sink.lastStart?.description == "2024-01-01 05:33:19 +0000")
    #expect(sink.ended)
  }

  @Test("a sink that throws stops the read at once", arguments: [false, true])
  func sinkError(concurrent: Bool) throws {
    let sink = CountingStopSink(stopAt: 12_345)
    let reader = ExportReader(
      bytes: Self.document(records: 20_000), name: "doc.xml", options: Self.options(concurrent: concurrent))
    #expect(throws: CountingStopSink.Stop.self) { try reader.read(into: sink) }
    #expect(sink.consumed == 12_345)
    #expect(!sink.ended)
  }

  @Test("a data error is located where it is", arguments: [false, true])
  func located(concurrent: Bool) throws {
    var bytes = Self.document(records: 5_000)
    // Line 3 + 4000 holds Record 4000; break its value.
    var text = String(decoding: bytes, as: UTF8.self)
    text = text.replacingOccurrences(of: "value=\"4000\"", with: "value=\"four\"")
    bytes = Array(text.utf8)
    let reader = ExportReader(bytes: bytes, name: "doc.xml", options: Self.options(concurrent: concurrent))
    do {
      try reader.read(into: CountingStopSink(stopAt: nil))
      Issue.record("no error")
    } catch let error as HealthPortError {
      #expect("\(error)".hasPrefix("doc.xml:4003:"), "\(error)")
      #expect("\(error)".contains("\"four\" is not a number"), "\(error)")
    }
  }
}
