import Foundation
import Testing

@testable import HealthPort

/// The writers' fast paths (word-at-a-time scans, the byte buffer, the caches of encoded fields)
/// against plain, obviously correct implementations written here.
struct WriterPrimitivesTests {
  /// JSON string contents, one character at a time (RFC 8259 §7 with the short escapes).
  static func referenceJSON(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// XML attribute value escaping, one character at a time; forbidden control characters dropped.
  static func referenceXML(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "&quot;"
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\n": out += "&#10;"
      case "\r": out += "&#13;"
      case "\t": out += "&#9;"
      case _ where scalar.value < 0x20: break
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// Strings with one special (or near-special) character at every position of every length
  /// up to 40, so that each lane of the eight-byte scans and the tail loop see it.
  static func probes(_ specials: [String]) -> [String] {
    var strings: [String] = []
    for special in specials {
      for length in 1..<40 {
        for position in 0..<length {
          var characters = Array(repeating: "a", count: length)
          characters[position] = special
          strings.append(characters.joined())
        }
      }
    }
    return strings
  }

  static let jsonSpecials = ["\"", "\\", "\n", "\r", "\t", "\u{01}", "\u{1F}", "\u{00}"]
  /// Bytes next to the special ones, and multi-byte UTF-8, that must be copied as they are.
  static let nearSpecials = [" ", "!", "#", "[", "]", "\u{7F}", "é", "’", "🕛", "&", "<", ">", "=", "?", "%", ","]

  @Test("JSON escaping matches the reference at every position")
  func jsonEscaping() {
    for text in Self.probes(Self.jsonSpecials + Self.nearSpecials) {
      var out: [UInt8] = []
      JSONEscaping.appendContents(text, to: &out)
      #expect(String(decoding: out, as: UTF8.self) == Self.referenceJSON(text), "\(text.debugDescription)")
      var buffer = ByteBuffer(capacity: 16)
      JSONEscaping.appendContents(text, to: &buffer)
      #expect(buffer.array == out)
    }
  }

  @Test("XML escaping matches the reference at every position")
  func xmlEscaping() {
    let specials = ["\"", "&", "<", ">", "\n", "\r", "\t", "\u{01}", "\u{1F}"]
    for text in Self.probes(specials + Self.nearSpecials) {
      var out: [UInt8] = []
      XMLEscaping.appendEscaped(text, to: &out)
      #expect(String(decoding: out, as: UTF8.self) == Self.referenceXML(text), "\(text.debugDescription)")
    }
  }

  @Test("the escapers' word tests answer as a byte-at-a-time test, for every byte at every place")
  func wordTests() {
    var wrong: [String] = []
    for filler: UInt8 in [0x20, 0x61, 0x7F, 0x80, 0xFF] {
      for position in 0..<8 {
        for value in 0...255 {
          var bytes = Array(repeating: filler, count: 8)
          bytes[position] = UInt8(value)
          let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
          if ByteScan.hasControl(word) != bytes.contains(where: { $0 < 0x20 }) {
            wrong.append("control \(bytes)")
          }
          for sought: UInt8 in [0x00, 0x0A, 0x0D, 0x22, 0x26, 0x2C, 0x3C, 0x3E, 0x5C, 0x80, 0xFF]
          where ByteScan.has(sought, in: word) != bytes.contains(sought) {
            wrong.append("\(sought) in \(bytes)")
          }
        }
      }
    }
    #expect(wrong.isEmpty, "\(wrong.prefix(5))")
  }

  @Test("device addresses are written as lowercase hex without leading zeros")
  func hexAddresses() {
    var addresses: [UInt64] = [0, 1, 0xF, 0x10, 0xFF, 0x100, 0x8cbd4ee10, UInt64.max, UInt64.max >> 4]
    for shift in 0..<64 { addresses.append(1 << UInt64(shift)) }
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<500 {
      addresses.append(UInt64.random(in: 0...UInt64.max, using: &generator) >> (generator.next() % 64))
    }
    var buffer = ByteBuffer(capacity: 16)
    var expected: [UInt8] = []
    for address in addresses {
      var out: [UInt8] = []
      DeviceString.appendHex(address, to: &out)
      #expect(String(decoding: out, as: UTF8.self) == String(address, radix: 16), "\(address)")
      DeviceString.appendHex(address, to: &buffer)
      buffer.append(UInt8(ascii: "|"))
      expected += Array(String(address, radix: 16).utf8) + [UInt8(ascii: "|")]
    }
    #expect(buffer.array == expected)
  }

  @Test("the byte buffer grows and keeps every byte")
  func byteBuffer() {
    var buffer = ByteBuffer(capacity: 1)
    var expected: [UInt8] = []
    for index in 0..<5000 {
      let byte = UInt8(truncatingIfNeeded: index &* 31)
      if index % 7 == 0 {
        let run = Array(repeating: byte, count: index % 300)
        buffer.append(bytes: run)
        expected += run
      } else {
        buffer.append(byte)
        expected.append(byte)
      }
    }
    buffer.appendCopy(of: 10..<2000)
    expected += expected[10..<2000]
    #expect(buffer.array == expected)
    buffer.removeAll()
    let isEmpty = buffer.isEmpty
    #expect(isEmpty)
  }

  /// Strings that are equal but stored apart, distinct but of equal length, small and large.
  static func cacheSequence() -> [String] {
    let shared = "HKQuantityTypeIdentifierHeartRate"
    let sameText = String(decoding: Array(shared.utf8), as: UTF8.self)  // equal, other storage
    let sameLength = "HKQuantityTypeIdentifierStepCount"  // 33 bytes too
    var dynamic = "a,b"
    dynamic += String(repeating: "x", count: 30)
    return [
      shared, shared, sameText, sameLength, shared, "count", "count", "co\"nt", "", "", dynamic, dynamic,
      "a,b" + String(repeating: "x", count: 30), sameLength, "Mikian’s Apple Watch", "Mikian’s Apple Watch",
    ]
  }

  @Test("a cached field is written exactly as the uncached encoding")
  func fieldCache() {
    var cache = EncodedFieldCache()
    var cached = ByteBuffer()
    var direct: [UInt8] = []
    for text in Self.cacheSequence() {
      cache.append(text, to: &cached) { CSVEncoding.appendField($0, to: &$1) }
      CSVEncoding.appendField(text, to: &direct)
      cached.append(CSVEncoding.comma)
      direct.append(CSVEncoding.comma)
    }
    #expect(String(decoding: cached.array, as: UTF8.self) == String(decoding: direct, as: UTF8.self))
  }

  @Test("the escaped-string cache of the JSON and XML writers writes what escaping writes")
  func escapedStringCache() {
    let cache = EscapedStringCache()
    var cached = ByteBuffer()
    var direct: [UInt8] = []
    // Many distinct long strings, so that slots are shared and replaced.
    var strings = Self.cacheSequence()
    for index in 0..<300 { strings.append("source \"\(index % 97)\" with a long enough name") }
    strings += strings.reversed()
    for text in strings {
      cache.append(text, to: &cached) { JSONEscaping.appendEscaped($0, to: &$1) }
      JSONEscaping.appendContents(text, to: &direct)
    }
    #expect(String(decoding: cached.array, as: UTF8.self) == String(decoding: direct, as: UTF8.self))
  }

  /// Records whose type, source and version repeat, change, or are equal text in other storage.
  static func headRecords() -> [Record] {
    let date = HealthDate("2024-11-28 07:01:12 +0100")!
    let type = "HKQuantityTypeIdentifierHeartRate"
    let sameType = String(decoding: Array(type.utf8), as: UTF8.self)
    var records: [Record] = []
    for (index, (t, source, version)) in [
      (type, "Mikian’s Apple Watch", "10.1" as String?), (type, "Mikian’s Apple Watch", "10.1"),
      (sameType, "Mikian’s Apple Watch", "10.1"), (type, "Mikian’s Apple Watch", nil),
      (type, "Mikian’s Apple Watch", ""),
      (type, "Health \"app\" & co", nil), ("HKQuantityTypeIdentifierStepCount", "Mikian’s Apple Watch", "10.1"),
      ("HKQuantityTypeIdentifierStepCount", "Mikian’s Apple Watch", "10.1"),
    ].enumerated() {
      records.append(
        Record(type: t, sourceName: source, sourceVersion: version, startDate: date, endDate: date, value: "\(index)"))
    }
    return records
  }

  @Test("a Record's replayed head is what writing it afresh gives", arguments: ["xml", "json"])
  func recordHead(format: String) {
    var together: [UInt8] = []
    var apart: [UInt8] = []
    if format == "xml" {
      var emitter = XMLEmitter()
      for record in Self.headRecords() {
        emitter.emit(record)
        var fresh = XMLEmitter()
        fresh.emit(record)
        apart += fresh.out.array
      }
      together = emitter.out.array
    } else {
      var emitter = JSONEmitter()
      for record in Self.headRecords() {
        emitter.emit(record)
        var fresh = JSONEmitter()
        fresh.emit(record)
        apart += fresh.out.array
      }
      together = emitter.out.array
    }
    #expect(String(decoding: together, as: UTF8.self) == String(decoding: apart, as: UTF8.self))
  }
}
