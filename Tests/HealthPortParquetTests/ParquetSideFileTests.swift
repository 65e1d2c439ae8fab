import Foundation
import Testing

@testable import HealthPort
@testable import HealthPortParquet

@Suite("Parquet: the side files' values")
struct ParquetSideFileTests {
  /// Microseconds since 1970 of a UTC time, computed by Foundation.
  static func micros(_ iso: String) -> Int64 {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return Int64(formatter.date(from: iso)!.timeIntervalSince1970) * 1_000_000
  }

  @Test("GPX times: Z, an offset, a fraction of up to six digits; anything else keeps its text")
  func gpxTimes() throws {
    let plain = try #require(ParquetInstant.gpx("2019-09-24T10:22:37Z"))
    #expect(plain.microseconds == Self.micros("2019-09-24T10:22:37Z") && plain.offsetMinutes == 0)
    let offset = try #require(ParquetInstant.gpx("2019-09-24T12:22:37+02:00"))
    #expect(offset.microseconds == Self.micros("2019-09-24T10:22:37Z") && offset.offsetMinutes == 120)
    let fraction = try #require(ParquetInstant.gpx("2019-09-24T10:22:37.25Z"))
    #expect(fraction.microseconds == Self.micros("2019-09-24T10:22:37Z") + 250_000)
    let micro = try #require(ParquetInstant.gpx("2019-09-24T10:22:37.000001-05:30"))
    #expect(micro.microseconds == Self.micros("2019-09-24T15:52:37Z") + 1 && micro.offsetMinutes == -330)
    for text in [
      "2019-09-24T10:22:37", "2019-09-24T10:22:37.1234567Z", "2019-09-24 10:22:37Z", "2019-02-30T10:22:37Z",
      "2019-09-24T24:00:00Z", "2019-09-24T10:22:37.Z", "yesterday", "",
    ] {
      #expect(ParquetInstant.gpx(text) == nil, "\(text)")
    }
  }

  @Test("--drop-identifiers: an ECG's year of birth, and its header without the person")
  func ecgIdentifiers() {
    let filter = IdentifierFilter()
    #expect(filter.yearOfBirth("Jan 8, 2002") == "2002")
    #expect(filter.yearOfBirth("8 janv. 2002") == "2002")
    #expect(filter.yearOfBirth("2002-01-08") == "2002")
    #expect(filter.yearOfBirth("unknown") == nil)
    let header = [("Name", "Anna Example"), ("Geburtsdatum", "08.01.2002"), ("Recorded Date", "x")]
    #expect(filter.ecgHeader(header).map { [$0.0, $0.1] } == [["Geburtsdatum", "2002"], ["Recorded Date", "x"]])
  }
}
