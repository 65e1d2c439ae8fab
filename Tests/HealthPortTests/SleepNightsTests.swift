import Foundation
import Testing

@testable import HealthPort

/// One sleep sample of a hand-written export.
struct SleepSample: Sendable {
  var source: String
  var start: String
  var end: String
  var value: String
  var zone: String? = nil
}

enum SleepExports {
  static let watchDevice =
    "&lt;&lt;HKDevice: 0x1&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.1&gt;"
  static let phoneDevice =
    "&lt;&lt;HKDevice: 0x2&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2, software:17.1&gt;"

  /// An export holding the samples in this order. `Watch` and `iPhone` sources get an Apple device.
  static func xml(_ samples: [SleepSample]) -> [UInt8] {
    var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
    for sample in samples {
      var device = ""
      if sample.source.contains("Watch") { device = " device=\"\(watchDevice)\"" }
      if sample.source.contains("iPhone") { device = " device=\"\(phoneDevice)\"" }
      let value = sample.value.hasPrefix("HK") ? sample.value : "HKCategoryValueSleepAnalysis" + sample.value
      text +=
        " <Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" sourceName=\"\(sample.source)\"\(device) startDate=\"\(sample.start)\" endDate=\"\(sample.end)\" value=\"\(value)\""
      if let zone = sample.zone {
        text += ">\n  <MetadataEntry key=\"HKTimeZone\" value=\"\(zone)\"/>\n </Record>\n"
      } else {
        text += "/>\n"
      }
    }
    return Array((text + "</HealthData>\n").utf8)
  }

  static func nights(
    _ samples: [SleepSample], zone: ZoneRule? = nil, priority: [String] = []
  ) throws -> SleepNights {
    var configuration = SleepNights.Configuration()
    configuration.zone = zone
    configuration.priority = priority
    let sleep = SleepNights(configuration)
    try ExportReader(bytes: xml(samples), name: "sleep.xml").read(into: sleep)
    return sleep
  }
}

@Suite("Sleep nights: hand-computed cases")
struct SleepNightsTests {
  typealias S = SleepSample

  /// Minutes per column of a night, in the command's column order.
  static func minutes(_ night: SleepNight) -> [Double] {
    [
      night.inBedMinutes, night.asleepMinutes, night.coreMinutes, night.deepMinutes, night.remMinutes,
      night.unspecifiedMinutes, night.awakeMinutes,
    ]
  }

  @Test("a Watch night with stages and an iPhone in bed")
  func watchNight() throws {
    let sleep = try SleepExports.nights([
      S(source: "Anna’s iPhone", start: "2024-11-27 23:02:00 +0100", end: "2024-11-28 06:58:00 +0100", value: "InBed"),
      S(
        source: "Anna’s Apple Watch", start: "2024-11-27 23:20:30 +0100", end: "2024-11-28 01:02:30 +0100",
        value: "AsleepCore"),
      S(
        source: "Anna’s Apple Watch", start: "2024-11-28 01:02:30 +0100", end: "2024-11-28 01:48:00 +0100",
        value: "AsleepDeep"),
      S(
        source: "Anna’s Apple Watch", start: "2024-11-28 01:48:00 +0100", end: "2024-11-28 01:53:30 +0100",
        value: "Awake"),
      S(
        source: "Anna’s Apple Watch", start: "2024-11-28 01:53:30 +0100", end: "2024-11-28 03:10:00 +0100",
        value: "AsleepREM"),
      S(
        source: "Anna’s Apple Watch", start: "2024-11-28 03:10:00 +0100", end: "2024-11-28 06:41:30 +0100",
        value: "AsleepCore"),
    ])
    #expect(sleep.nights.count == 1)
    let night = try #require(sleep.nights.first)
    #expect(night.night == "2024-11-28")
    // In bed 23:02–06:58 = 476; core 102 + 211.5; deep 45.5; REM 76.5; awake 5.5.
    #expect(Self.minutes(night) == [476, 435.5, 313.5, 45.5, 76.5, 0, 5.5])
    #expect(night.bedtime.description == "2024-11-27 23:02:00 +0100")
    #expect(night.wakeTime.description == "2024-11-28 06:58:00 +0100")
    #expect(night.sources == ["Anna’s iPhone", "Anna’s Apple Watch"])
    #expect(night.bedtimeMinutesAfter18 == 302)
    #expect(night.wakeMinutesAfter18 == 778)
  }

  static let overlapping: [SleepSample] = [
    S(source: "AutoSleep", start: "2024-05-01 22:30:00 +0200", end: "2024-05-02 06:30:00 +0200", value: "Asleep"),
    S(
      source: "Bo’s Apple Watch", start: "2024-05-01 23:00:00 +0200", end: "2024-05-02 01:00:00 +0200",
      value: "AsleepCore"),
    S(
      source: "Bo’s Apple Watch", start: "2024-05-02 01:00:00 +0200", end: "2024-05-02 02:00:00 +0200",
      value: "AsleepDeep"),
    S(source: "Bo’s Apple Watch", start: "2024-05-02 02:00:00 +0200", end: "2024-05-02 02:30:00 +0200", value: "Awake"),
    S(
      source: "Bo’s Apple Watch", start: "2024-05-02 03:00:00 +0200", end: "2024-05-02 06:00:00 +0200",
      value: "AsleepREM"),
  ]

  @Test("an overlapping sleep app fills only the Watch's gaps")
  func overlappingApp() throws {
    let night = try #require(try SleepExports.nights(Self.overlapping).nights.first)
    // AutoSleep keeps 22:30–23:00, 02:30–03:00 and 06:00–06:30: 90 unspecified minutes; summing
    // both sources would give 840 asleep minutes.
    #expect(Self.minutes(night) == [0, 450, 120, 60, 180, 90, 30])
    #expect(night.bedtime.description == "2024-05-01 22:30:00 +0200")
    #expect(night.wakeTime.description == "2024-05-02 06:30:00 +0200")
    #expect(night.sources == ["AutoSleep", "Bo’s Apple Watch"])
  }

  @Test("--priority puts the sleep app first")
  func priority() throws {
    let night = try #require(try SleepExports.nights(Self.overlapping, priority: ["autosleep"]).nights.first)
    #expect(Self.minutes(night) == [0, 480, 0, 0, 0, 480, 0])
  }

  @Test("in bed is the union of every source's InBed, stages untouched")
  func inBedUnion() throws {
    let night = try #require(
      try SleepExports.nights([
        S(source: "Cy’s iPhone", start: "2024-02-10 22:45:00 +0000", end: "2024-02-11 06:50:00 +0000", value: "InBed"),
        S(source: "Clock", start: "2024-02-10 23:10:00 +0000", end: "2024-02-11 07:05:00 +0000", value: "InBed"),
        S(source: "Clock", start: "2024-02-11 07:30:00 +0000", end: "2024-02-11 07:40:00 +0000", value: "InBed"),
        S(
          source: "Cy’s Apple Watch", start: "2024-02-11 00:00:00 +0000", end: "2024-02-11 05:00:00 +0000",
          value: "AsleepCore"),
      ]).nights.first)
    // 22:45–07:05 is 500 minutes, plus 10 apart.
    #expect(Self.minutes(night) == [510, 300, 300, 0, 0, 0, 0])
    #expect(night.wakeTime.description == "2024-02-11 07:40:00 +0000")
  }

  @Test("a night crossing the spring DST change, local times from HKTimeZone")
  func daylightSaving() throws {
    let samples = [
      S(
        source: "Di’s Apple Watch", start: "2024-03-30 23:00:00 +0100", end: "2024-03-31 06:00:00 +0100",
        value: "AsleepCore", zone: "Europe/Berlin")
    ]
    let night = try #require(try SleepExports.nights(samples).nights.first)
    #expect(night.night == "2024-03-31")
    #expect(night.coreMinutes == 420)  // instants: 7 hours, though the clock went 23:00 → 07:00
    #expect(night.bedtimeMinutesAfter18 == 300)
    #expect(night.wakeMinutesAfter18 == 13 * 60)  // 07:00 CEST, wall clock
    let fixed = try #require(try SleepExports.nights(samples, zone: .fixed(3600)).nights.first)
    #expect(fixed.wakeMinutesAfter18 == 12 * 60)
  }

  @Test("the night follows HKTimeZone, else the written offset, and --tz over both")
  func nightZone() throws {
    // 16:30 UTC is 18:30 in Berlin (CEST): the next night there.
    let zoned = S(
      source: "Di’s Apple Watch", start: "2024-10-26 16:30:00 +0000", end: "2024-10-26 17:00:00 +0000",
      value: "AsleepCore", zone: "Europe/Berlin")
    var plain = zoned
    plain.zone = nil
    #expect(try SleepExports.nights([zoned]).nights.map(\.night) == ["2024-10-27"])
    #expect(try SleepExports.nights([plain]).nights.map(\.night) == ["2024-10-26"])
    #expect(try SleepExports.nights([zoned], zone: .fixed(0)).nights.map(\.night) == ["2024-10-26"])
    let unknown = S(
      source: "X", start: zoned.start, end: zoned.end, value: "AsleepCore", zone: "Mars/Olympus")
    #expect(try SleepExports.nights([unknown]).nights.map(\.night) == ["2024-10-26"])
  }

  @Test("a nap counts in the night of its day and ends it; an evening nap opens the next night")
  func nap() throws {
    let sleep = try SleepExports.nights([
      S(
        source: "Ed’s Apple Watch", start: "2024-06-01 23:00:00 +0200", end: "2024-06-02 07:00:00 +0200",
        value: "AsleepCore"),
      S(
        source: "Ed’s Apple Watch", start: "2024-06-02 14:00:00 +0200", end: "2024-06-02 14:40:00 +0200",
        value: "AsleepUnspecified"),
      S(
        source: "Ed’s Apple Watch", start: "2024-06-02 18:30:00 +0200", end: "2024-06-02 19:00:00 +0200",
        value: "AsleepUnspecified"),
    ])
    #expect(sleep.nights.map(\.night) == ["2024-06-02", "2024-06-03"])
    #expect(sleep.nights[0].asleepMinutes == 520)
    #expect(sleep.nights[0].wakeTime.description == "2024-06-02 14:40:00 +0200")
    #expect(sleep.nights[1].asleepMinutes == 30)
  }

  @Test("within a rank the later start wins, then the later sample in the document")
  func sameRank() throws {
    let outer = S(
      source: "Fa’s Apple Watch", start: "2024-01-02 00:00:00 +0000", end: "2024-01-02 04:00:00 +0000",
      value: "AsleepCore")
    let inner = S(
      source: "Fa’s other Apple Watch", start: "2024-01-02 01:00:00 +0000", end: "2024-01-02 02:00:00 +0000",
      value: "AsleepDeep")
    for order in [[outer, inner], [inner, outer]] {
      let night = try #require(try SleepExports.nights(order).nights.first)
      #expect(night.coreMinutes == 180)
      #expect(night.deepMinutes == 60)
    }
    let same = S(
      source: "Fa’s Apple Watch", start: "2024-01-02 00:00:00 +0000", end: "2024-01-02 01:00:00 +0000",
      value: "AsleepREM")
    let night = try #require(try SleepExports.nights([outer, same]).nights.first)
    #expect(night.remMinutes == 60)
    #expect(night.coreMinutes == 180)
  }

  @Test("rewrites are dropped and counted; values that are no sleep state are skipped")
  func rewrites() throws {
    let sample = S(
      source: "AutoSleep", start: "2024-05-01 23:00:00 +0200", end: "2024-05-02 06:00:00 +0200", value: "Asleep")
    var moved = sample
    moved.start = "2024-05-01 21:00:00 +0000"  // the same instant written in UTC
    moved.end = "2024-05-02 04:00:00 +0000"
    let odd = S(source: "AutoSleep", start: sample.start, end: sample.end, value: "HKCategoryValueSomethingElse")
    let sleep = try SleepExports.nights([sample, sample, moved, odd])
    #expect(sleep.rewrites == [StepTotals.RewriteCount(sourceName: "AutoSleep", count: 2)])
    #expect(sleep.unknownValues == 1)
    #expect(sleep.nights.map(\.samples) == [1])
    #expect(sleep.nights.map(\.unspecifiedMinutes) == [420])
  }

  @Test("day bounds move from the filter to the nights; timestamps stay")
  func dayBounds() throws {
    var filter = try ExportFilter.parsing(from: "2024-06-02", to: "2024-06-03T12:00")
    var configuration = SleepNights.Configuration()
    configuration.takeDayBounds(from: &filter)
    #expect(configuration.firstNight == HealthDate.daysSince1970(year: 2024, month: 6, day: 2))
    #expect(configuration.lastNight == nil)
    #expect(filter.from == nil)
    #expect(filter.to != nil)
  }

  @Test("weekly averages: bedtimes 23:30 and 00:30 average to 00:00")
  func averages() throws {
    let sleep = try SleepExports.nights([
      S(
        source: "G’s Apple Watch", start: "2024-04-01 23:30:00 +0000", end: "2024-04-02 07:30:00 +0000",
        value: "AsleepCore"),
      S(
        source: "G’s Apple Watch", start: "2024-04-03 00:30:00 +0000", end: "2024-04-03 06:30:00 +0000",
        value: "AsleepCore"),
      S(
        source: "G’s Apple Watch", start: "2024-04-08 22:00:00 +0000", end: "2024-04-09 06:00:00 +0000",
        value: "AsleepDeep"),
    ])
    let weeks = SleepAverage.averages(of: sleep.nights, by: .week)
    #expect(weeks.map(\.period) == ["2024-W14", "2024-W15"])
    #expect(weeks.map(\.nights) == [2, 1])
    #expect(weeks[0].asleepMinutes == 420)
    #expect(SleepAverage.clock(minutesAfter18: weeks[0].bedtimeMinutesAfter18) == "00:00")
    #expect(SleepAverage.clock(minutesAfter18: weeks[0].wakeMinutesAfter18) == "07:00")
    #expect(SleepAverage.clock(minutesAfter18: weeks[1].bedtimeMinutesAfter18) == "22:00")
  }
}
