import Testing
import XMLStream

@testable import HealthPort

/// The reader's string tables must not grow with values that are unique on every element.
@Suite("Interning memory")
struct InterningTests {
  /// Reads `xml` with the element builder and returns its attribute reader afterwards.
  static func read(_ xml: String) throws -> (AttributeParser, Int) {
    let builder = ElementBuilder()
    var elements = 0
    builder.onElement = { _ in elements += 1 }
    let parser = XMLPushParser(documentName: "test.xml", handler: XMLElementFeed(builder))
    var bytes = Array(xml.utf8)
    try bytes.withUnsafeMutableBytes { try parser.feed(UnsafeRawBufferPointer($0)) }
    try parser.finish()
    return (builder.attributes, elements)
  }

  /// A 36-character UUID-like value that differs for every `index`.
  static func uuid(_ index: Int) -> String {
    let hex = String(index, radix: 16)
    let digits = String(repeating: "0", count: 12 - hex.count) + hex
    return "6F9619FF-8B86-D011-B42D-" + digits
  }

  @Test("unique metadata values are not kept; repeating ones are shared")
  func uniqueMetadataValues() throws {
    let count = 6000
    var xml = "<HealthData locale=\"en_US\">\n"
    for index in 0..<count {
      xml += """
         <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Withings" unit="kg" startDate="2024-03-10 10:00:00 +0000" endDate="2024-03-10 10:00:00 +0000" value="70">
          <MetadataEntry key="HKExternalUUID" value="\(Self.uuid(index))"/>
          <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="HKHeartRateMotionContextSedentary"/>
         </Record>

        """
    }
    xml += "</HealthData>\n"
    var (parser, elements) = try Self.read(xml)
    #expect(elements == count)
    // Kept for good: names, the type, the source name, metadata keys (a handful).
    #expect(parser.interner.count < 32, "\(parser.interner.count) strings kept")
    #expect(parser.values.slotCount == 4096)
    // A value still in its slot comes back as the same storage, not a new copy.
    var first = parser.values.string(Self.bytes("HKHeartRateMotionContextSedentary"))
    var second = parser.values.string(Self.bytes("HKHeartRateMotionContextSedentary"))
    let same = first.withUTF8 { a in second.withUTF8 { b in a.baseAddress == b.baseAddress } }
    #expect(same)
  }

  static func bytes(_ text: String) -> UnsafeBufferPointer<UInt8> {
    let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: text.utf8.count)
    _ = buffer.initialize(from: text.utf8)
    return UnsafeBufferPointer(buffer)  // leaked on purpose: a few bytes per test
  }

  @Test("the cache gives back exactly the bytes it was given", arguments: [0, 1, 15, 16, 36, 256, 257, 1000])
  func exactStrings(length: Int) {
    var cache = StringCache(slotCount: 4)
    for round in 0..<50 {
      let text = String((0..<length).map { Character(UnicodeScalar(UInt8(65 + ($0 + round) % 26))) })
      let got = cache.string(Self.bytes(text))
      #expect(got == text)
    }
  }
}
