/// The JSON that CSV cells use for lists of key/value pairs: the `metadata` column of the
/// single-table CSV and the root attributes in `export.csv`.
///
/// Metadata is written as a JSON object (`{"HKTimeZone":"Europe/Paris"}`) when its keys are
/// distinct, and as an array of `[key, value]` pairs in document order when a key repeats
/// (modern workouts write their metadata block twice), so that no entry is ever lost. Both forms are read back.
package enum CSVMetadataJSON {
  /// Appends `{…}` for distinct keys, else `[[k,v],…]`. Appends nothing for no entries.
  static func appendMetadata<Out: ByteAppender & ~Copyable>(_ entries: [MetadataEntry], to out: inout Out) {
    guard !entries.isEmpty else { return }
    if hasDistinctKeys(entries) {
      out.append(UInt8(ascii: "{"))
      for (index, entry) in entries.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        JSONEscaping.appendString(entry.key, to: &out)
        out.append(UInt8(ascii: ":"))
        JSONEscaping.appendString(entry.value, to: &out)
      }
      out.append(UInt8(ascii: "}"))
    } else {
      appendPairs(entries.map { ($0.key, $0.value) }, to: &out)
    }
  }

  /// Appends `[[k,v],…]`: every output writes key/value pairs kept in order this way (CSV cells,
  /// Parquet columns, the SQLite ECG header, JSON Lines side files).
  package static func appendPairs<Out: ByteAppender & ~Copyable>(_ pairs: [(String, String)], to out: inout Out) {
    out.append(UInt8(ascii: "["))
    for (index, pair) in pairs.enumerated() {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      out.append(UInt8(ascii: "["))
      JSONEscaping.appendString(pair.0, to: &out)
      out.append(UInt8(ascii: ","))
      JSONEscaping.appendString(pair.1, to: &out)
      out.append(UInt8(ascii: "]"))
    }
    out.append(UInt8(ascii: "]"))
  }

  static func hasDistinctKeys(_ entries: [MetadataEntry]) -> Bool {
    if entries.count <= 16 {
      for i in entries.indices {
        for j in entries.index(after: i)..<entries.endIndex where entries[i].key == entries[j].key { return false }
      }
      return true
    }
    return Set(entries.map(\.key)).count == entries.count
  }

  struct ParseError: Error {
    var message: String
  }

  /// Parses an object of strings or an array of two-string arrays into pairs, in order.
  static func parsePairs(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [(String, String)] {
    var parser = Parser(bytes: bytes)
    parser.skipSpace()
    var pairs: [(String, String)] = []
    switch parser.peek() {
    case UInt8(ascii: "{"):
      parser.index += 1
      parser.skipSpace()
      if parser.peek() == UInt8(ascii: "}") {
        parser.index += 1
      } else {
        while true {
          let key = try parser.string()
          try parser.expect(UInt8(ascii: ":"))
          let value = try parser.string()
          pairs.append((key, value))
          parser.skipSpace()
          if parser.peek() == UInt8(ascii: ",") {
            parser.index += 1
            continue
          }
          try parser.expect(UInt8(ascii: "}"))
          break
        }
      }
    case UInt8(ascii: "["):
      parser.index += 1
      parser.skipSpace()
      if parser.peek() == UInt8(ascii: "]") {
        parser.index += 1
      } else {
        while true {
          try parser.expect(UInt8(ascii: "["))
          let key = try parser.string()
          try parser.expect(UInt8(ascii: ","))
          let value = try parser.string()
          try parser.expect(UInt8(ascii: "]"))
          pairs.append((key, value))
          parser.skipSpace()
          if parser.peek() == UInt8(ascii: ",") {
            parser.index += 1
            continue
          }
          try parser.expect(UInt8(ascii: "]"))
          break
        }
      }
    default:
      throw ParseError(message: "expected a JSON object or an array of [key, value] pairs")
    }
    parser.skipSpace()
    guard parser.index == bytes.count else { throw ParseError(message: "unexpected text after the JSON value") }
    return pairs
  }

  private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipSpace() { JSONScanner.skipBlank(bytes, &index) }

    mutating func expect(_ byte: UInt8) throws {
      skipSpace()
      guard peek() == byte else {
        throw ParseError(message: "expected '\(Character(Unicode.Scalar(byte)))' in the JSON at character \(index + 1)")
      }
      index += 1
    }

    /// A string, decoded leniently (see ``JSONEscaping/decodeString(_:at:into:lenient:)``):
    /// other tools write the CSV cells.
    mutating func string() throws -> String {
      try expect(UInt8(ascii: "\""))
      index -= 1  // the decoder starts at the opening quote
      var out: [UInt8] = []
      do {
        index = try JSONEscaping.decodeString(bytes, at: index, into: &out, lenient: true)
      } catch {
        switch error.problem {
        case .unicodeEscapeCutShort: throw ParseError(message: "a \\u escape is cut short")
        case .unicodeEscapeNotHex: throw ParseError(message: "a \\u escape has a non-hex digit")
        default: throw ParseError(message: "a JSON string is not closed")
        }
      }
      return String(decoding: out, as: UTF8.self)
    }
  }
}
