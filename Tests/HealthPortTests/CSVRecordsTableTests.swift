import Foundation
import Testing

@testable import HealthPort

/// The single table's value split and date forms, against hand-written expectations and an
/// independent calendar (Foundation's ISO 8601 formatter).
struct CSVRecordsTableTests {
  @Test(
    "values: plain decimals are numbers, everything else is text",
    arguments: [
      ("812", CSVRecordsTable.ValueKind.integer), ("-3", .integer), ("007", .integer), ("77.1003", .decimal),
      ("-0.5", .decimal), ("1e-05", .decimal), ("1.5E+3", .decimal), ("", .text), ("5.", .text), (".5", .text),
      ("+5", .text), ("1,5", .text), ("nan", .text), ("inf", .text), ("0x1A", .text), (" 5", .text), ("5 ", .text),
      ("1e", .text), ("1e+", .text), ("-", .text), ("HKCategoryValueSleepAnalysisAsleep", .text), ("1.2.3", .text),
    ])
  func valueKinds(text: String, kind: CSVRecordsTable.ValueKind) {
    var copy = text
    #expect(copy.withUTF8 { CSVRecordsTable.kind($0) } == kind)
  }

  @Test("value and valueText cells, and back", arguments: ["812", "77.1003", "-1e-05", "HKX", "", "5.", "a,b", nil])
  func valueCells(value: String?) throws {
    var out = ByteBuffer(capacity: 64)
    CSVRecordsTable.appendValue(value, to: &out)
    let written = String(decoding: out.bytes(in: 0..<out.count), as: UTF8.self)
    let expected: String
    switch value {
    case "812": expected = "812.,"
    case "77.1003": expected = "77.1003,"
    case "-1e-05": expected = "-1e-05,"
    case "HKX": expected = ",HKX"
    case "": expected = ",\"\""
    case "5.": expected = ",5."
    case "a,b": expected = ",\"a,b\""
    default: expected = ","
    }
    #expect(written == expected)
    let number = String(written.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)[0])
    if !number.isEmpty {
      var cell = number
      #expect(cell.withUTF8 { CSVRecordsTable.numberText($0) } == value)
    }
  }

  @Test("ISO 8601 and UTC forms agree with Foundation, on any day and offset")
  func isoAndUTC() {
    var iso = ExportDateFormatter(style: .iso)
    var utc = ExportDateFormatter(style: .utc)
    var export = ExportDateFormatter()
    let foundation = ISO8601DateFormatter()
    foundation.formatOptions = [.withInternetDateTime]
    var generator = SystemRandomNumberGenerator()
    var dates = [
      HealthDate("2016-08-05 10:00:00 +0100")!, HealthDate("1969-12-31 23:59:59 -0030")!,
      HealthDate("2024-02-29 23:59:59 +1400")!, HealthDate("2016-01-01 00:30:00 +0530")!,
    ]
    for _ in 0..<2000 {
      let seconds = Int64.random(in: -2_000_000_000...4_000_000_000, using: &generator)
      let offset = Int32.random(in: -50...56, using: &generator) * 900
      dates.append(HealthDate(secondsSince1970: seconds, offsetSeconds: offset))
      dates.append(HealthDate(secondsSince1970: seconds + 3600, offsetSeconds: offset))
    }
    for date in dates {
      var out: [UInt8] = []
      iso.append(date, to: &out)
      out.append(UInt8(ascii: "|"))
      utc.append(date, to: &out)
      out.append(UInt8(ascii: "|"))
      export.append(date, to: &out)
      let parts = String(decoding: out, as: UTF8.self).split(separator: "|").map(String.init)
      let instant = Date(timeIntervalSince1970: TimeInterval(date.secondsSince1970))
      foundation.timeZone = TimeZone(secondsFromGMT: Int(date.offsetSeconds))
      var local = foundation.string(from: instant)
      if local.hasSuffix("Z") { local = String(local.dropLast()) + "+00:00" }
      #expect(parts[0] == local)
      foundation.timeZone = TimeZone(secondsFromGMT: 0)
      #expect(parts[1] == foundation.string(from: instant))
      #expect(parts[2] == date.description)
      // The ISO form reads back to the same date, offset included.
      #expect(HealthDate.flexible(parts[0]) == date)
    }
  }

  @Test("years beyond four digits take the slow path in every style")
  func slowPath() {
    let date = HealthDate(secondsSince1970: 253_402_300_800 + 86_400, offsetSeconds: 3600)  // 10000-01-02
    for (style, suffix) in [(ExportDateFormatter.Style.iso, "T01:00:00+01:00"), (.utc, "T00:00:00Z")] {
      var formatter = ExportDateFormatter(style: style)
      var out: [UInt8] = []
      formatter.append(date, to: &out)
      #expect(String(decoding: out, as: UTF8.self).hasSuffix(suffix), "\(String(decoding: out, as: UTF8.self))")
    }
  }
}
