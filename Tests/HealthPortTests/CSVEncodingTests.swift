import Foundation
import Testing

@testable import HealthPort

struct CSVEncodingTests {
  @Test(
    "fields are quoted only where needed",
    arguments: [
      ("plain", "plain"),
      ("", "\"\""),
      ("a,b", "\"a,b\""),
      ("say \"hi\"", "\"say \"\"hi\"\"\""),
      ("line\nbreak", "\"line\nbreak\""),
      ("cr\rhere", "\"cr\rhere\""),
      ("<<HKDevice: 0x1>, name:Apple Watch, model:Watch>", "\"<<HKDevice: 0x1>, name:Apple Watch, model:Watch>\""),
      (" spaces ", " spaces "),
      ("Mikian’s Apple Watch", "Mikian’s Apple Watch"),
    ])
  func quoting(input: String, expected: String) {
    var out: [UInt8] = []
    CSVEncoding.appendField(input, to: &out)
    #expect(String(decoding: out, as: UTF8.self) == expected)
  }

  @Test("nil is an empty unquoted field")
  func absent() {
    var out: [UInt8] = []
    CSVEncoding.appendField(nil as String?, to: &out)
    #expect(out.isEmpty)
  }

  @Test("integers", arguments: [0, 7, 10, 12345, 9_223_372_036_854_775_807])
  func integers(value: Int) {
    var out: [UInt8] = []
    CSVEncoding.appendInteger(value, to: &out)
    #expect(String(decoding: out, as: UTF8.self) == String(value))
  }

  /// Parses CSV text with the row reader into rows of optional strings (nil = absent).
  static func parse(_ text: String, delimiter: UInt8 = UInt8(ascii: ",")) throws -> [[String?]] {
    let url = try CSVTestFiles.file(text)
    let reader = try CSVRowReader(path: url.path, bufferSize: 7)  // tiny buffer: fields cross refills
    reader.delimiter = delimiter
    var rows: [[String?]] = []
    while try reader.next() { rows.append((0..<reader.fieldCount).map { reader.optional($0) }) }
    return rows
  }

  @Test("the row reader reads RFC 4180, CRLF, a BOM and blank lines")
  func parsing() throws {
    let text = "\u{FEFF}a,b,c\r\n\"x,1\",\"he said \"\"no\"\"\",\"multi\nline\"\r\n\r\n,\"\",z\n"
    let rows = try Self.parse(text)
    #expect(rows == [["a", "b", "c"], ["x,1", "he said \"no\"", "multi\nline"], [nil, "", "z"]])
  }

  @Test("a last row without a line break, and a trailing empty field")
  func lastRow() throws {
    #expect(try Self.parse("a,b\n1,") == [["a", "b"], ["1", nil]])
    #expect(try Self.parse("a;b\n1;2", delimiter: UInt8(ascii: ";")) == [["a", "b"], ["1", "2"]])
  }

  @Test("written fields read back identically", arguments: ["", "a", "a,b", "\"", "\"\"", "x\ny\r\nz", ",,,", "é,ü\""])
  func roundTrip(value: String) throws {
    var out: [UInt8] = []
    CSVEncoding.appendField("first", to: &out)
    out.append(CSVEncoding.comma)
    CSVEncoding.appendField(value, to: &out)
    out.append(CSVEncoding.comma)
    out.append(CSVEncoding.newline)
    #expect(try Self.parse(String(decoding: out, as: UTF8.self)) == [["first", value, nil]])
  }

  @Test("an unbalanced quote is located at the row and field where it starts")
  func unbalancedQuote() throws {
    let url = try CSVTestFiles.file("a,b\n1,2\n3,\"open\n4,5\n")
    let reader = try CSVRowReader(path: url.path)
    #expect(try reader.next())
    #expect(try reader.next())
    #expect {
      _ = try reader.next()
    } throws: { error in
      let message = (error as? HealthPortError)?.description ?? ""
      return message.hasPrefix("\(url.path):3:2: error:") && message.contains("never closed")
    }
  }

  @Test("text after a closing quote is an error")
  func textAfterQuote() throws {
    let url = try CSVTestFiles.file("a,b\n\"x\"y,2\n")
    let reader = try CSVRowReader(path: url.path)
    #expect(try reader.next())
    #expect(throws: HealthPortError.self) { try reader.next() }
  }

  @Test(
    "record table names drop the HealthKit prefixes",
    arguments: [
      ("HKQuantityTypeIdentifierStepCount", "StepCount"),
      ("HKCategoryTypeIdentifierSleepAnalysis", "SleepAnalysis"),
      ("HKCorrelationTypeIdentifierBloodPressure", "BloodPressure"),
      ("HKDataTypeSleepDurationGoal", "SleepDurationGoal"),
      ("HKQuantityTypeIdentifier", "HKQuantityTypeIdentifier"),
      ("c", "c"),
      ("workouts", "record_workouts"),
      ("Export", "record_Export"),
      ("a/b c", "a_b_c"),
      ("", "record_"),
      (".hidden", "record_.hidden"),
    ])
  func tableNames(type: String, expected: String) {
    #expect(CSVSplitSchema.recordTableName(for: type) == expected)
  }

  @Test("metadata JSON: an object for distinct keys, pairs when a key repeats; both read back")
  func metadataJSON() throws {
    let distinct = [MetadataEntry(key: "HKTimeZone", value: "Europe/Paris"), MetadataEntry(key: "q\"k", value: "a\nb")]
    var out: [UInt8] = []
    CSVMetadataJSON.appendMetadata(distinct, to: &out)
    #expect(String(decoding: out, as: UTF8.self) == #"{"HKTimeZone":"Europe/Paris","q\"k":"a\nb"}"#)
    let back = try out.withUnsafeBufferPointer { try CSVMetadataJSON.parsePairs($0) }
    #expect(back.map { $0.0 } == ["HKTimeZone", "q\"k"] && back.map { $0.1 } == ["Europe/Paris", "a\nb"])

    let repeated = [MetadataEntry(key: "k", value: "1"), MetadataEntry(key: "k", value: "2")]
    out.removeAll()
    CSVMetadataJSON.appendMetadata(repeated, to: &out)
    #expect(String(decoding: out, as: UTF8.self) == #"[["k","1"],["k","2"]]"#)
    let pairs = try out.withUnsafeBufferPointer { try CSVMetadataJSON.parsePairs($0) }
    #expect(pairs.map { $0.1 } == ["1", "2"])

    let unicode = Array(#"{"\u00e9\ud83d\ude00":"x"}"#.utf8)
    let decoded = try unicode.withUnsafeBufferPointer { try CSVMetadataJSON.parsePairs($0) }
    #expect(decoded.first?.0 == "é😀")
  }

  @Test(
    "dates: the export form and ISO 8601",
    arguments: [
      ("2024-01-02 03:04:05 +0100", "2024-01-02 03:04:05 +0100"),
      ("2024-01-02T03:04:05Z", "2024-01-02 03:04:05 +0000"),
      ("2024-01-02T03:04:05+02:00", "2024-01-02 03:04:05 +0200"),
      ("2024-01-02T03:04:05-0530", "2024-01-02 03:04:05 -0530"),
      ("2024-01-02T03:04+02:00", "2024-01-02 03:04:00 +0200"),
      ("2024-01-02T03:04:05.678Z", "2024-01-02 03:04:05 +0000"),
      ("2024-01-02 03:04:05", "2024-01-02 03:04:05 +0000"),
      ("2024-01-02", "2024-01-02 00:00:00 +0000"),
      ("2024-02-29T23:59:59+14", "2024-02-29 23:59:59 +1400"),
    ])
  func flexibleDates(input: String, expected: String) {
    #expect(HealthDate.flexible(input)?.description == expected)
  }

  @Test(
    "bad dates",
    arguments: [
      "", "2024-13-01", "2023-02-29", "2024-01-02T25:00:00Z", "yesterday", "2024-01-02T03:04:05+",
      "2024-01-02T03:04:05Q",
    ])
  func badDates(input: String) {
    #expect(HealthDate.flexible(input) == nil)
  }

  @Test("the fast date formatter writes what HealthDate.description writes")
  func dateFormatter() {
    var formatter = ExportDateFormatter()
    var buffered = ExportDateFormatter()
    var buffer = ByteBuffer(capacity: 16)
    var generator = SystemRandomNumberGenerator()
    var dates = [
      HealthDate("2019-03-02 08:15:30 -0800")!, HealthDate("1970-01-01 00:00:00 +0000")!,
      HealthDate("2024-02-29 23:59:59 +1400")!, HealthDate("0001-01-01 00:00:00 -1200")!,
    ]
    for _ in 0..<2000 {
      let seconds = Int64.random(in: -2_000_000_000...4_000_000_000, using: &generator)
      let offset = Int32.random(in: -50...56, using: &generator) * 900
      dates.append(HealthDate(secondsSince1970: seconds, offsetSeconds: offset))
      // Runs of nearby dates exercise the cached day.
      dates.append(HealthDate(secondsSince1970: seconds + 3600, offsetSeconds: offset))
    }
    for date in dates {
      var out: [UInt8] = []
      formatter.append(date, to: &out)
      #expect(String(decoding: out, as: UTF8.self) == date.description)
      // Straight into the writers' buffer, one date after the other (it grows on the way).
      let start = buffer.count
      buffered.append(date, to: &buffer)
      #expect(Array(buffer.bytes(in: start..<buffer.count)) == Array(date.description.utf8))
    }
    let total = buffer.count
    #expect(total == dates.count * 25)
  }

  @Test("the word-at-a-time scan finds a special byte at any position", arguments: [",", "\"", "\n", "\r", "x"])
  func scanPositions(special: String) {
    for length in 1..<40 {
      for position in 0..<length {
        var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
        bytes[position] = special.utf8.first!
        // Bytes near the special ones must not be mistaken for them.
        if position > 0 { bytes[position - 1] = 0x2D }
        let found = bytes.withUnsafeBufferPointer { CSVEncoding.needsQuotes($0) }
        #expect(found == (special != "x"), "length \(length) position \(position)")
      }
    }
    let near = Array("+-./!#\u{0B}\u{0C}\u{0E}\u{AC}\u{A2}".utf8)
    #expect(!near.withUnsafeBufferPointer { CSVEncoding.needsQuotes($0) })
  }
}
