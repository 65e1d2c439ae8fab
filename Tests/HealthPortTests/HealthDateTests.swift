import Testing

@testable import HealthPort

@Suite("HealthDate")
struct HealthDateTests {
  @Test(
    "parses and formats back to the identical string",
    arguments: [
      ("2019-03-02 08:15:30 -0800", Int64(1_551_543_330), Int32(-28_800)),
      ("2016-04-15 07:27:26 +0100", 1_460_701_646, 3600),
      ("1970-01-01 00:00:00 +0000", 0, 0),
      ("2000-02-29 23:59:59 +0530", 951_848_999, 19_800),
      ("1969-12-31 23:59:59 +0000", -1, 0),
      ("2030-01-06 10:00:00 +1400", 1_893_873_600, 50_400),
    ])
  func roundTrip(text: String, seconds: Int64, offset: Int32) throws {
    let date = try #require(HealthDate(text))
    #expect(date.secondsSince1970 == seconds)
    #expect(date.offsetSeconds == offset)
    #expect(date.description == text)
  }

  @Test(
    "rejects malformed dates",
    arguments: [
      "", "2019-03-02", "2019-03-02 08:15:30", "2019-03-02T08:15:30 -0800", "2019-02-30 08:15:30 -0800",
      "2019-13-02 08:15:30 -0800", "2019-03-02 24:00:00 -0800", "2019-03-02 08:60:30 -0800",
      "2019-03-02 08:15:60 -0800", "2019-03-02 08:15:30 -08:00", "2019-03-02 08:15:30 *0800",
      "2019-03-02 08:15:30 -0860", "20151107171924+0100", "2019-03-02 08:15:30 -0800 ",
    ])
  func rejects(text: String) {
    #expect(HealthDate(text) == nil)
  }

  @Test("local day follows the written offset")
  func localDay() throws {
    let late = try #require(HealthDate("2024-03-10 23:30:00 -0500"))
    let early = try #require(HealthDate("2024-03-11 00:30:00 +0100"))
    #expect(late.localDayNumber == HealthDate.daysSince1970(year: 2024, month: 3, day: 10))
    #expect(early.localDayNumber == HealthDate.daysSince1970(year: 2024, month: 3, day: 11))
    #expect(late.secondsSince1970 > early.secondsSince1970)
  }

  @Test("civil conversion round-trips every day of four centuries")
  func civil() {
    var days = HealthDate.daysSince1970(year: 1900, month: 1, day: 1)
    for year in 1900..<2300 {
      for month in 1...12 {
        for day in 1...HealthDate.daysInMonth(year, month) {
          let (y, m, d) = HealthDate.civil(fromDays: days)
          #expect(y == year && m == month && d == day)
          #expect(HealthDate.daysSince1970(year: year, month: month, day: day) == days)
          days += 1
        }
      }
    }
  }
}
