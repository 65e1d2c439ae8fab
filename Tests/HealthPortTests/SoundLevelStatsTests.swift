import Foundation
import Testing

@testable import HealthPort

@Suite("stats: sound levels average as energy")
struct SoundLevelStatsTests {
  /// A sound-level sample `seconds` long starting `offset` seconds after 2024-05-01 10:00 UTC.
  static func record(_ level: Double, offset: Int64, seconds: Int64, type: String = "EnvironmentalAudioExposure")
    -> Record
  {
    let start: Int64 = 1_714_557_600 + offset
    return Record(
      type: "HKQuantityTypeIdentifier" + type, sourceName: "Watch", unit: "dBASPL",
      startDate: HealthDate(secondsSince1970: start, offsetSeconds: 0),
      endDate: HealthDate(secondsSince1970: start + seconds, offsetSeconds: 0), value: String(level))
  }

  static func average(_ records: [Record], aggregate: Aggregate? = nil) throws -> [Double] {
    let type = records.first?.type ?? ""
    let stats = Stats(Stats.Configuration(type: type, aggregate: aggregate))
    for record in records { try stats.add(record) }
    try stats.finish()
    return stats.rows.map(\.value)
  }

  @Test("duration-weighted: 60 dB for a minute and 80 dB for 20 s")
  func weighted() throws {
    // (60 × 10^6 + 20 × 10^8) / 80 = 2.575 × 10^7 → 74.108 dB (the arithmetic mean would say 65).
    let value = try #require(
      try Self.average([Self.record(60, offset: 0, seconds: 60), Self.record(80, offset: 60, seconds: 20)]).first)
    #expect(abs(value - 10 * log10(2.575e7)) < 1e-9)
    #expect(NumberText.format(value) == "74.108")
  }

  @Test("equal weights when every sample of the period lasts zero seconds")
  func instantaneous() throws {
    let value = try #require(
      try Self.average(
        [Self.record(60, offset: 0, seconds: 0), Self.record(80, offset: 5, seconds: 0)], aggregate: .avg
      ).first)
    #expect(NumberText.format(value) == "77.033")  // 10·log10((10^6 + 10^8) / 2)
  }

  @Test("a zero-length sample beside lasting ones weighs nothing; any type in dBASPL; min and max untouched")
  func mixed() throws {
    let records = [
      Self.record(70, offset: 0, seconds: 30, type: "HeadphoneAudioExposure"),
      Self.record(90, offset: 40, seconds: 0, type: "HeadphoneAudioExposure"),
    ]
    #expect(try Self.average(records) == [70])
    #expect(try Self.average(records, aggregate: .max) == [90])
    #expect(try Self.average(records, aggregate: .min) == [70])
  }
}
