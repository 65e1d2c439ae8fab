import Foundation
import Testing

@testable import HealthPort

@Suite("Filters: names")
struct FilterNameTests {
  @Test(
    "type names resolve to full identifiers",
    arguments: [
      ("StepCount", "HKQuantityTypeIdentifierStepCount"),
      ("stepcount", "HKQuantityTypeIdentifierStepCount"),
      ("HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierStepCount"),
      ("hkquantitytypeidentifierheartrate", "HKQuantityTypeIdentifierHeartRate"),
      ("SleepAnalysis", "HKCategoryTypeIdentifierSleepAnalysis"),
      ("SleepDurationGoal", "HKDataTypeSleepDurationGoal"),
      ("bloodpressure", "HKCorrelationTypeIdentifierBloodPressure"),
      ("DietaryWater", "HKQuantityTypeIdentifierDietaryWater"),
      // Unknown full identifiers are taken verbatim (types newer than the list).
      ("HKQuantityTypeIdentifierSomethingNew", "HKQuantityTypeIdentifierSomethingNew"),
    ])
  func typeNames(input: String, expected: String) throws {
    #expect(try KnownNames.resolveType(input) == expected)
  }

  @Test(
    "activity names resolve to full identifiers",
    arguments: [
      ("running", "HKWorkoutActivityTypeRunning"), ("Running", "HKWorkoutActivityTypeRunning"),
      ("HKWorkoutActivityTypeRunning", "HKWorkoutActivityTypeRunning"),
      ("traditionalstrengthtraining", "HKWorkoutActivityTypeTraditionalStrengthTraining"),
      ("SwimBikeRun", "HKWorkoutActivityTypeSwimBikeRun"),
      ("HKWorkoutActivityTypeSomethingNew", "HKWorkoutActivityTypeSomethingNew"),
    ])
  func activityNames(input: String, expected: String) throws {
    #expect(try KnownNames.resolveActivity(input) == expected)
  }

  @Test(
    "unknown names are usage errors suggesting the closest valid name",
    arguments: [
      ("type", "StepCont", "'StepCount'"), ("type", "heartrat", "'HeartRate'"),
      ("activity", "runing", "'Running'"), ("activity", "cycing", "'Cycling'"),
      ("zone", "Europe/Berln", "'Europe/Berlin'"), ("zone", "America/New_Yrok", "'America/New_York'"),
    ])
  func unknownNames(kind: String, input: String, hint: String) {
    do {
      switch kind {
      case "type": _ = try KnownNames.resolveType(input)
      case "activity": _ = try KnownNames.resolveActivity(input)
      default: _ = try ZoneRule.parse(input)
      }
      Issue.record("expected an error for \(input)")
    } catch let error as HealthPortError {
      #expect(error.kind == .badRequest)
      let suggestions: [String]
      switch error.reason {
      case .unknownName(let setting, let value, let names, _):
        #expect(setting == (kind == "type" ? .types : .activities))
        #expect(value == input)
        suggestions = names
      case .unknownTimeZone(let value, let names):
        #expect(kind == "zone" && value == input)
        suggestions = names
      default:
        suggestions = []
      }
      #expect(suggestions.map { "'\($0)'" }.contains(hint), "\(error.reason.map { "\($0)" } ?? error.message)")
    } catch {
      Issue.record("unexpected error \(error)")
    }
  }

  @Test(
    "--tz parses offsets and zone names",
    arguments: [("+02:00", 7200), ("-0530", -19_800), ("+05", 18_000), ("UTC", 0), ("Z", 0), ("-00:00", 0)])
  func fixedZones(text: String, seconds: Int) throws {
    guard case .fixed(let parsed) = try ZoneRule.parse(text) else {
      Issue.record("\(text) is not a fixed offset")
      return
    }
    #expect(parsed == seconds)
  }

  @Test(
    "bad dates are usage errors",
    arguments: [
      "2024-13-01", "2024-02-30", "2024-1-1", "2024-01-01T25:00",
      "2024-01-01T10", "2024-01-01T10:00+2:00", "yesterday",
    ])
  func badDates(text: String) {
    let error = #expect(throws: HealthPortError.self) { try DateBound.parse(text, for: .from) }
    #expect(error?.reason == .badDate(.from, value: text))
    #expect(error?.kind == .badRequest)
  }
}

@Suite("Filters: date ranges and zones")
struct FilterDateTests {
  struct Case: CustomStringConvertible, Sendable {
    var name: String
    var from: String?
    var to: String?
    var tz: String?
    var start: String
    var included: Bool
    var description: String { name }
  }

  static let cases: [Case] = [
    // Whole days, both ends inclusive, in the written offset.
    Case(name: "first second of from-day", from: "2024-05-01", start: "2024-05-01 00:00:00 +0200", included: true),
    Case(name: "last second before from-day", from: "2024-05-01", start: "2024-04-30 23:59:59 +0200", included: false),
    Case(name: "last second of to-day", to: "2024-05-01", start: "2024-05-01 23:59:59 +0200", included: true),
    Case(name: "first second after to-day", to: "2024-05-01", start: "2024-05-02 00:00:00 +0200", included: false),
    Case(
      name: "single day range", from: "2024-05-01", to: "2024-05-01", start: "2024-05-01 12:00:00 -0800",
      included: true),
    // The written offset decides the day: 23:30 at -0800 is the next day in UTC, still May 1st locally.
    Case(
      name: "written offset keeps the local day", to: "2024-05-01", start: "2024-05-01 23:30:00 -0800",
      included: true),
    Case(
      name: "--tz fixed moves the day", to: "2024-05-01", tz: "+00:00", start: "2024-05-01 23:30:00 -0800",
      included: false),
    Case(name: "--tz +14:00", from: "2024-05-02", tz: "+14:00", start: "2024-05-01 10:00:00 +0000", included: true),
    // Instants with an offset compare instants.
    Case(
      name: "instant bound, equal instant", from: "2024-05-01T10:00:00+02:00", start: "2024-05-01 08:00:00 +0000",
      included: true),
    Case(
      name: "instant bound, one second early", from: "2024-05-01T10:00+02:00",
      start: "2024-05-01 07:59:59 +0000", included: false),
    Case(
      name: "instant to-bound inclusive", to: "2024-05-01T10:00Z", start: "2024-05-01 12:00:00 +0200",
      included: true),
    Case(
      name: "instant to-bound exceeded", to: "2024-05-01T10:00Z", start: "2024-05-01 12:00:01 +0200",
      included: false),
    // Wall-clock bounds (no offset) compare local times, in the written offset by default.
    Case(
      name: "wall clock vs written offset", from: "2024-05-01T10:00", start: "2024-05-01 10:00:00 -0700",
      included: true),
    Case(
      name: "wall clock vs written offset, earlier", from: "2024-05-01T10:00", start: "2024-05-01 09:59:59 +0900",
      included: false),
    Case(
      name: "wall clock in --tz", from: "2024-05-01T10:00", tz: "+02:00", start: "2024-05-01 08:00:00 +0000",
      included: true),
    Case(
      name: "wall clock in --tz, earlier", from: "2024-05-01T10:00", tz: "+02:00",
      start: "2024-05-01 07:59:59 +0000", included: false),
    // DST spring forward in Berlin, 2024-03-31 01:00 UTC (02:00 CET -> 03:00 CEST).
    Case(
      name: "Berlin: 23:59:59 CET is March 30", from: "2024-03-31", tz: "Europe/Berlin",
      start: "2024-03-30 22:59:59 +0000", included: false),
    Case(
      name: "Berlin: 00:00 CET is March 31", from: "2024-03-31", tz: "Europe/Berlin",
      start: "2024-03-30 23:00:00 +0000", included: true),
    Case(
      name: "Berlin: 23:59:59 CEST is March 31", to: "2024-03-31", tz: "Europe/Berlin",
      start: "2024-03-31 21:59:59 +0000", included: true),
    Case(
      name: "Berlin: 00:00 CEST is April 1", to: "2024-03-31", tz: "Europe/Berlin",
      start: "2024-03-31 22:00:00 +0000", included: false),
    Case(
      name: "Berlin: 01:59:59 CET before the jump", from: "2024-03-31T02:30", tz: "Europe/Berlin",
      start: "2024-03-31 00:59:59 +0000", included: false),
    Case(
      name: "Berlin: 03:00 CEST after the jump", from: "2024-03-31T02:30", tz: "Europe/Berlin",
      start: "2024-03-31 01:00:00 +0000", included: true),
    Case(
      name: "Berlin: written offset would say March 31", to: "2024-03-31", start: "2024-03-31 22:00:00 +0000",
      included: true),
    // DST fall back in Berlin, 2024-10-27 01:00 UTC (03:00 CEST -> 02:00 CET).
    Case(
      name: "Berlin: 23:59:59 CEST is October 26", from: "2024-10-27", tz: "Europe/Berlin",
      start: "2024-10-26 21:59:59 +0000", included: false),
    Case(
      name: "Berlin: 00:00 CEST is October 27", from: "2024-10-27", tz: "Europe/Berlin",
      start: "2024-10-26 22:00:00 +0000", included: true),
    Case(
      name: "Berlin: 23:59:59 CET is October 27", to: "2024-10-27", tz: "Europe/Berlin",
      start: "2024-10-27 22:59:59 +0000", included: true),
    Case(
      name: "Berlin: 00:00 CET is October 28", to: "2024-10-27", tz: "Europe/Berlin",
      start: "2024-10-27 23:00:00 +0000", included: false),
    Case(
      name: "Berlin: second 02:30 (CET) vs wall clock 02:45", to: "2024-10-27T02:45", tz: "Europe/Berlin",
      start: "2024-10-27 01:30:00 +0000", included: true),
    Case(
      name: "Berlin: 03:00 CET vs wall clock 02:45", to: "2024-10-27T02:45", tz: "Europe/Berlin",
      start: "2024-10-27 02:00:00 +0000", included: false),
  ]

  @Test("a sample is in range when its start is", arguments: cases)
  func range(_ c: Case) throws {
    let filter = try ExportFilter.parsing(from: c.from, to: c.to, tz: c.tz)
    let start = try #require(HealthDate(c.start))
    let record = Record(
      type: "HKQuantityTypeIdentifierStepCount", sourceName: "x", startDate: start, endDate: start, value: "1")
    #expect(filter.includes(.record(record)) == c.included)
  }

  @Test("Berlin offsets around both 2024 transitions, to the second")
  func berlinOffsets() throws {
    let zone = NamedZone(try #require(TimeZone(identifier: "Europe/Berlin")))
    // 2024-03-31 01:00:00 UTC = 1711846800; 2024-10-27 01:00:00 UTC = 1729990800.
    let cases: [(Int64, Int)] = [
      (1_711_846_799, 3600), (1_711_846_800, 7200), (1_729_990_799, 7200), (1_729_990_800, 3600),
      (1_704_067_200, 3600), (1_719_792_000, 7200),
    ]
    for (instant, offset) in cases { #expect(zone.offset(at: instant) == offset, "at \(instant)") }
    // Again in reverse order, past the one-day cache.
    for (instant, offset) in cases.reversed() { #expect(zone.offset(at: instant) == offset, "at \(instant)") }
  }
}

@Suite("Filters: kinds and sources")
struct FilterKindTests {
  static func date(_ text: String) -> HealthDate { HealthDate(text)! }

  static let watchSteps: ExportElement = {
    var record = Record(
      type: "HKQuantityTypeIdentifierStepCount", sourceName: "Ann’s Apple Watch",
      startDate: date("2024-05-01 10:00:00 +0200"), endDate: date("2024-05-01 10:05:00 +0200"), value: "300")
    record.sourceProduct = "Watch"
    return .record(record)
  }()
  static let phoneHeartRate: ExportElement = {
    var record = Record(
      type: "HKQuantityTypeIdentifierHeartRate", sourceName: "Ann’s iPhone",
      startDate: date("2024-05-02 10:00:00 +0200"), endDate: date("2024-05-02 10:00:00 +0200"), value: "60")
    record.sourceProduct = "iPhone"
    return .record(record)
  }()
  static let appSteps: ExportElement = .record(
    Record(
      type: "HKQuantityTypeIdentifierStepCount", sourceName: "Pedometer++",
      startDate: date("2024-05-03 10:00:00 +0200"), endDate: date("2024-05-03 10:05:00 +0200"), value: "300"))
  static let pressure: ExportElement = .correlation(
    Correlation(
      type: "HKCorrelationTypeIdentifierBloodPressure", sourceName: "Withings",
      startDate: date("2024-05-01 08:00:00 +0200"), endDate: date("2024-05-01 08:00:00 +0200")))
  static let run: ExportElement = {
    var workout = Workout(
      workoutActivityType: "HKWorkoutActivityTypeRunning", sourceName: "Ann’s Apple Watch",
      startDate: date("2024-05-01 18:00:00 +0200"), endDate: date("2024-05-01 18:30:00 +0200"))
    workout.sourceProduct = "Watch"
    return .workout(workout)
  }()
  static let ride: ExportElement = .workout(
    Workout(
      workoutActivityType: "HKWorkoutActivityTypeCycling", sourceName: "Strava",
      startDate: date("2024-05-04 18:00:00 +0200"), endDate: date("2024-05-04 19:30:00 +0200")))
  static let rings: ExportElement = .activitySummary(
    ActivitySummary(node: ElementNode(name: "ActivitySummary", attributes: [Attribute("dateComponents", "2024-05-02")]))
  )
  static let exportDate: ExportElement = .exportDate(
    ExportDate(node: ElementNode(name: "ExportDate", attributes: [Attribute("value", "2024-06-01 10:00:00 +0200")])))
  static let me: ExportElement = .me(Me(node: ElementNode(name: "Me")))
  static let clinical: ExportElement = .clinicalRecord(
    ClinicalRecord(
      node: ElementNode(
        name: "ClinicalRecord",
        attributes: [Attribute("sourceName", "Hospital"), Attribute("receivedDate", "2024-05-05 10:00:00 +0200")])))

  static let all: [(String, ExportElement)] = [
    ("watchSteps", watchSteps), ("phoneHeartRate", phoneHeartRate), ("appSteps", appSteps), ("pressure", pressure),
    ("run", run), ("ride", ride), ("rings", rings), ("exportDate", exportDate), ("me", me), ("clinical", clinical),
  ]

  struct Case: CustomStringConvertible, Sendable {
    var name: String
    var types: [String] = []
    var activities: [String] = []
    var products: [String] = []
    var source: String?
    var from: String?
    var to: String?
    var kept: [String]
    var description: String { name }
  }

  static let cases: [Case] = [
    Case(name: "no filter keeps everything", kept: all.map(\.0)),
    Case(
      name: "--type selects records and correlations only", types: ["StepCount", "BloodPressure"],
      kept: ["watchSteps", "appSteps", "pressure", "exportDate", "me"]),
    Case(name: "--activity selects workouts only", activities: ["running"], kept: ["run", "exportDate", "me"]),
    Case(
      name: "--type and --activity together", types: ["HeartRate"], activities: ["cycling"],
      kept: ["phoneHeartRate", "ride", "exportDate", "me"]),
    Case(
      name: "--source-product Watch (case-insensitive)", products: ["watch"],
      kept: ["watchSteps", "run", "rings", "exportDate", "me"]),
    Case(
      name: "--source-product falls back to the source name", products: ["pedometer++", "Strava"],
      kept: ["appSteps", "ride", "rings", "exportDate", "me"]),
    Case(
      name: "--source contains, ignoring case", source: "ANN’S",
      kept: ["watchSteps", "phoneHeartRate", "run", "rings", "exportDate", "me"]),
    Case(
      name: "--from/--to apply to every dated kind", from: "2024-05-02", to: "2024-05-04",
      kept: ["phoneHeartRate", "appSteps", "ride", "rings", "exportDate", "me"]),
    Case(
      name: "ActivitySummary by its day", from: "2024-05-02", to: "2024-05-02",
      kept: ["phoneHeartRate", "rings", "exportDate", "me"]),
    Case(
      name: "type with source and dates", types: ["stepcount"], products: ["Watch"], from: "2024-05-01",
      kept: ["watchSteps", "exportDate", "me"]),
  ]

  @Test("which elements pass", arguments: cases)
  func kinds(_ c: Case) throws {
    let filter = try ExportFilter.parsing(
      types: c.types, sourceProducts: c.products, sourceText: c.source, activities: c.activities, from: c.from,
      to: c.to)
    let kept = Self.all.filter { filter.includes($0.1) }.map(\.0)
    #expect(kept == c.kept)
  }

  @Test("FilteringSink passes the header and the kept elements, in order")
  func sink() throws {
    final class Collect: ExportSink {
      var began = false
      var names: [String] = []
      var ended = false
      func begin(_ header: ExportHeader) throws { began = true }
      func consume(_ element: ExportElement) throws { names.append(element.elementName) }
      func end(_ report: ReadReport) throws { ended = true }
    }
    let collect = Collect()
    let sink = FilteringSink(filter: try ExportFilter.parsing(activities: ["Running"]), next: collect)
    try sink.begin(ExportHeader(prolog: [], rootAttributes: []))
    for (_, element) in Self.all { try sink.consume(element) }
    try sink.end(ReadReport(documentName: "x", format: .xml))
    #expect(collect.began && collect.ended)
    #expect(collect.names == ["Workout", "ExportDate", "Me"])
    #expect(sink.droppedCount == Self.all.count - 3)
  }
}
