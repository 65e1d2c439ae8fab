import Foundation
import HealthPort
import SQLiteStore
import Testing

@testable import HealthPortSQLite

/// The loader's copy-free binding: the text arena, the dates it binds and the decimal shortcut.
@Suite("SQLite binding without copies")
struct SQLiteBindingTests {
  /// Dates written by Foundation (an independent formatter) in fixed offsets, in an order that
  /// moves back and forth between days.
  static func foundationDates() -> [String] {
    var generator = SystemRandomNumberGenerator()
    var texts: [String] = []
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.calendar = Calendar(identifier: .gregorian)
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
    let offsets = [0, 3600, -3600, 19_800, -34_200, 50_400, -43_200, 20_700]
    var seconds = -2_208_988_800.0  // 1900-01-01
    for index in 0..<3000 {
      formatter.timeZone = TimeZone(secondsFromGMT: offsets[index % offsets.count])
      // Mostly small steps (same day), sometimes jumps of years, sometimes back in time.
      switch index % 7 {
      case 0: seconds += Double(Int.random(in: 0..<(400 * 86_400), using: &generator))
      case 1: seconds -= Double(Int.random(in: 0..<86_400, using: &generator))
      default: seconds += Double(Int.random(in: 0..<600, using: &generator))
      }
      if seconds > 4_102_444_800 { seconds = -2_208_988_800 + Double(index) }  // past 2100: start over
      texts.append(formatter.string(from: Date(timeIntervalSince1970: seconds)))
    }
    return texts + ["2000-02-29 23:59:59 +1400", "1970-01-01 00:00:00 -1200", "1969-12-31 23:59:59 +0000"]
  }

  @Test("the date formatter the loader binds with writes the same 25 bytes as the date was written in")
  func dates() throws {
    var formatter = ExportDateFormatter()
    var out = [UInt8](repeating: 0, count: ExportDateFormatter.writeRoom)
    for text in Self.foundationDates() {
      let date = try #require(HealthDate(text), "\(text)")
      let count = out.withUnsafeMutableBufferPointer { formatter.write(date, to: $0.baseAddress!) }
      #expect(count.map { String(decoding: out[..<$0], as: UTF8.self) } == text)
    }
  }

  @Test(
    "DecimalText gives exactly Double(String) for every shape",
    arguments: [
      "0", "-0", "1", "72", "-5", "00012", "0.5", "-0.25", "123.456", "0.1", "0.2", "0.3", "2.675", "1.005",
      "9007199254740993", "123456789012345", "1234567890123456", "0.000000000000001", "99999999999999.9",
      "3.14159265358979", "0.0184322", "", "-", ".", "5.", ".5", "-.5", "1e5", "1E-3", "+3", " 5", "5 ", "nan", "inf",
      "1.2.3", "--1", "0x1p3", "١٢", "12,5",
    ])
  func decimals(text: String) {
    let expected = Double(text)
    let got = DecimalText.double(text)
    #expect(
      got?.bitPattern == expected?.bitPattern, "\(text): \(String(describing: got)) vs \(String(describing: expected))")
  }

  @Test("DecimalText agrees with Double(String) on random decimals of up to 17 digits")
  func randomDecimals() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<50_000 {
      let digits = Int.random(in: 1...17, using: &generator)
      var text = String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
      let point = Int.random(in: 0...digits, using: &generator)
      if point > 0, point < digits { text.insert(".", at: text.index(text.startIndex, offsetBy: point)) }
      if Bool.random(using: &generator) { text = "-" + text }
      #expect(DecimalText.double(text)?.bitPattern == Double(text)?.bitPattern, "\(text)")
    }
  }

  @Test("text bound from the arena reaches the table intact, also when it does not fit and for ''")
  func arena() throws {
    let db = try SQLiteConnection(path: ":memory:")
    try db.execute("CREATE TABLE t (a TEXT, b TEXT, c TEXT, d TEXT)")
    let insert = try db.prepare("INSERT INTO t VALUES (?, ?, ?, ?)")
    let text = BindingText()
    let long = String(repeating: "é", count: text.arena.capacity)  // twice the arena in bytes
    let date = try #require(HealthDate("2024-03-31 02:30:00 +0200"))
    let rows: [[String?]] = [
      ["Здоровье ❤️", "", nil, "small"], [long, "after the long one", "x", nil], ["a", "b", "c", "d"],
    ]
    for row in rows {
      var b = Binder(insert, text)
      for value in row { try b.add(value) }
      try b.run()
      #expect(text.arena.used == 0, "the arena is free once the statement has run")
    }
    var b = Binder(try db.prepare("INSERT INTO t (a, b, c, d) VALUES (?, ?, ?, 'date')"), text)
    try b.add(date: date)
    try b.run()
    let select = try db.prepare("SELECT a, b, c, d FROM t ORDER BY rowid")
    for row in rows {
      #expect(try select.step())
      for (column, value) in row.enumerated() {
        #expect(select.text(Int32(column)) == value)
        #expect(select.isNull(Int32(column)) == (value == nil), "'' stays text, nil is NULL")
      }
    }
    #expect(try select.step())
    #expect(select.text(0) == "2024-03-31 02:30:00 +0200")
    #expect(select.int64(1) == 1_711_845_000)
    #expect(select.int64(2) == 120)
  }

  @Test("the last-source shortcut matches only devices with the same tail")
  func sameTail() {
    let devices: [String?] = [
      nil, "<<HKDevice: 0x1>, name:Apple Watch>", "<<HKDevice: 0x2a>, name:Apple Watch>",
      "<<HKDevice: 0x1>, name:iPhone>", "<<HKDevice: 0x01>, name:Apple Watch>", "plain text", "<<HKDevice: zz>, a>",
      "<<HKDevice: 0x1>", "",
    ]
    for a in devices {
      for b in devices {
        let shortcut = SQLiteLoader.sameTail(a.map(DeviceString.init), b.map(DeviceString.init))
        let tails = a.map(SQLiteLoader.deviceTail) == b.map(SQLiteLoader.deviceTail)
        // The shortcut may miss equal tails (the cache then finds them) but never joins different ones.
        if shortcut { #expect(tails, "\(String(describing: a)) vs \(String(describing: b))") }
        if a == b { #expect(shortcut) }
      }
    }
  }
}
