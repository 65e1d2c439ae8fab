import Foundation
import TestSupport
import Testing

/// Charts of an export written by the test itself, ten years long, whose expected numbers the
/// test computes from the samples it wrote; and the errors of `healthport chart`.
@Suite("chart: ten years, and errors", .serialized)
struct ChartSpanTests {
  /// 2015-01-01 … 2024-12-31 in UTC: a step sample every day, a weigh-in every seventh day (every
  /// fifth of them in pounds, every other one followed by a second weigh-in that evening), and five
  /// heart-rate samples a day over the last 30 days.
  struct LongExport {
    var steps: [(day: Date, value: Double)] = []
    var weights: [(date: Date, kilograms: Double)] = []
    var heartRates: [(date: Date, value: Double)] = []
    var xml = ""

    static let formatter: DateFormatter = {
      let formatter = DateFormatter()
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.timeZone = TimeZone(identifier: "UTC")
      formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
      return formatter
    }()

    init() {
      let start = Self.formatter.date(from: "2015-01-01 00:00:00 +0000") ?? Date()
      var body = ""
      func record(_ type: String, _ unit: String, _ date: Date, _ value: String, source: String = "Test Watch") {
        let text = Self.formatter.string(from: date)
        body += "<Record type=\"HKQuantityTypeIdentifier\(type)\" sourceName=\"\(source)\" unit=\"\(unit)\""
        body += " creationDate=\"\(text)\" startDate=\"\(text)\" endDate=\"\(text)\" value=\"\(value)\"/>\n"
      }
      for day in 0..<3653 {
        let noon = start.addingTimeInterval(Double(day) * 86_400 + 12 * 3_600)
        let value = Double(1_000 + day * 7_919 % 9_000)
        steps.append((noon, value))
        record("StepCount", "count", noon, String(Int(value)), source: "Test Phone")
      }
      for (index, day) in stride(from: 0, to: 3653, by: 7).enumerated() {
        let morning = start.addingTimeInterval(Double(day) * 86_400 + 8 * 3_600)
        let kilograms = 60 + Double(index % 40) * 0.5
        if index % 5 == 4 {
          let pounds = (kilograms / 0.45359237 * 1000).rounded() / 1000
          record("BodyMass", "lb", morning, String(pounds), source: "Scale")
          weights.append((morning, pounds * 0.45359237))
        } else {
          record("BodyMass", "kg", morning, String(kilograms), source: "Scale")
          weights.append((morning, kilograms))
        }
        if index % 2 == 0 {
          let evening = morning.addingTimeInterval(12 * 3_600)
          record("BodyMass", "kg", evening, String(kilograms + 0.25), source: "Scale")
          weights.append((evening, kilograms + 0.25))
        }
      }
      for day in 3623..<3653 {
        for (slot, hour) in [2, 8, 12, 16, 22].enumerated() {
          let date = start.addingTimeInterval(Double(day) * 86_400 + Double(hour) * 3_600)
          let value = Double(50 + (day * 13 + slot * 29) % 90)
          record("HeartRate", "count/min", date, String(Int(value)))
          heartRates.append((date, value))
        }
      }
      xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <ExportDate value="2025-01-01 10:00:00 +0000"/>
        \(body)</HealthData>

        """
    }

    /// `YYYY-MM-DD`, `YYYY-MM` or the ISO week `YYYY-Www` of a date in UTC, by Foundation's
    /// calendars.
    static func period(_ date: Date, by: String) -> String {
      var calendar = Calendar(identifier: by == "week" ? .iso8601 : .gregorian)
      calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
      if by == "week" {
        let parts = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: date)
        return String(format: "%04d-W%02d", parts.yearForWeekOfYear ?? 0, parts.weekOfYear ?? 0)
      }
      let parts = calendar.dateComponents([.year, .month, .day], from: date)
      if by == "month" { return String(format: "%04d-%02d", parts.year ?? 0, parts.month ?? 0) }
      return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
  }

  static let export = LongExport()

  static func write(_ directory: URL) throws -> URL {
    let file = directory.appendingPathComponent("long.xml")
    try Data(export.xml.utf8).write(to: file)
    return file
  }

  /// Draws `kind` and returns the probe's reading.
  static func draw(_ kind: String, _ input: URL, _ extra: [String], into directory: URL, as format: String = "svg")
    throws -> (ChartProbe.Chart, URL)
  {
    let file = directory.appendingPathComponent("\(kind)-\(extra.joined()).\(format)")
    let result = try Harness.run(["chart", kind, input.path, "-o", file.path] + extra)
    #expect(result.status == 0, "\(result.stderr)")
    return (try ChartProbe.chart(file), file)
  }

  static func expectValues(_ chart: ChartProbe.Chart, _ expected: [(String, [String: Double])]) {
    let marks = chart.markValues
    #expect(marks.count == expected.count)
    for (mark, (period, values)) in zip(marks, expected) {
      #expect(mark["period"] == period)
      for (name, value) in values {
        let drawn = Double(mark[name] ?? "") ?? .nan
        #expect(abs(drawn - value) <= 0.0005 + 1e-9, "\(period) data-\(name): \(drawn), expected \(value)")
      }
    }
  }

  /// No two neighbouring tick labels overlap, with label widths measured generously (0.64 em per
  /// character at 12 px, DejaVu Sans's digit width) — and there are at least `least` of them.
  static func expectReadableTicks(_ chart: ChartProbe.Chart, least: Int, _ context: String) {
    var rows: [Double: [(x: Double, label: String)]] = [:]
    for tick in chart.ticks { rows[tick.label.count == 4 && Int(tick.label) != nil ? 1 : 0, default: []].append(tick) }
    let lines = rows[0] ?? rows[1] ?? []
    #expect(lines.count >= least, "\(context): \(chart.ticks.map(\.label))")
    for (left, right) in zip(lines, lines.dropFirst()) {
      let room = Double(left.label.count + right.label.count) / 2 * 12 * 0.64
      #expect(right.x - left.x >= room, "\(context): '\(left.label)' and '\(right.label)' overlap")
    }
    for tick in chart.ticks {
      #expect(tick.x - Double(tick.label.count) * 4 >= 0 && tick.x + Double(tick.label.count) * 4 <= 960, "\(tick)")
    }
  }

  @Test(
    "ten years of steps: a bar a day, year ticks; a month per bar; every number is the test's own sum")
  func tenYearsOfSteps() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = try Self.write(directory)
    for by in ["day", "week", "month"] {
      var sums: [String: (Double, Int)] = [:]
      for sample in Self.export.steps {
        let period = LongExport.period(sample.day, by: by)
        let (sum, count) = sums[period] ?? (0, 0)
        sums[period] = (sum + sample.value, count + 1)
      }
      let expected = sums.keys.sorted().map { ($0, ["value": sums[$0]?.0 ?? 0, "samples": Double(sums[$0]?.1 ?? 0)]) }
      let (chart, file) = try Self.draw("steps", input, ["--by", by], into: directory)
      Self.expectValues(chart, expected)
      Self.expectReadableTicks(chart, least: 8, "steps by \(by)")
      #expect(chart.ticks.map(\.label).contains("2020"))
      try ChartTests.expectSelfContained(file)
      try ChartTests.expectRenders(file, kind: "steps")
    }
  }

  @Test("weight: the latest weigh-in of each week over ten years, pounds converted to kilograms")
  func tenYearsOfWeight() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = try Self.write(directory)
    var latest: [String: (Date, Double, Int)] = [:]
    for sample in Self.export.weights {
      let period = LongExport.period(sample.date, by: "week")
      let count = (latest[period]?.2 ?? 0) + 1
      if let current = latest[period], current.0 > sample.date {
        latest[period] = (current.0, current.1, count)
      } else {
        latest[period] = (sample.date, sample.kilograms, count)
      }
    }
    let expected = latest.keys.sorted().map {
      ($0, ["value": latest[$0]?.1 ?? 0, "samples": Double(latest[$0]?.2 ?? 0)])
    }
    let (chart, file) = try Self.draw("weight", input, ["--by", "week"], into: directory, as: "html")
    Self.expectValues(chart, expected)
    Self.expectReadableTicks(chart, least: 8, "weight by week")
    #expect(chart.title == "Weight per week")
    #expect(chart.table?.count == expected.count)
    try ChartTests.expectSelfContained(file)
    try ChartTests.expectRenders(file, kind: "weight")
  }

  @Test(
    "short spans read in days, weeks and months: a week, a quarter, a year of steps; heart rate over a month")
  func shortSpans() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = try Self.write(directory)
    let (week, _) = try Self.draw("steps", input, ["--from", "2024-03-04", "--to", "2024-03-10"], into: directory)
    #expect(week.ticks.map(\.label) == ["Mar 4", "2024", "Mar 5", "Mar 6", "Mar 7", "Mar 8", "Mar 9", "Mar 10"])
    let (quarter, _) = try Self.draw("steps", input, ["--from", "2024-01-01", "--to", "2024-03-31"], into: directory)
    Self.expectReadableTicks(quarter, least: 6, "a quarter")
    #expect(quarter.ticks.contains { $0.label == "Jan 8" }, "weekly ticks on Mondays: \(quarter.ticks.map(\.label))")
    let (year, _) = try Self.draw("steps", input, ["--from", "2023-01-01", "--to", "2023-12-31"], into: directory)
    Self.expectReadableTicks(year, least: 10, "a year")
    #expect(year.ticks.map(\.label).prefix(3) == ["Jan", "2023", "Feb"])

    var byDay: [String: [Double]] = [:]
    for sample in Self.export.heartRates {
      byDay[LongExport.period(sample.date, by: "day"), default: []].append(sample.value)
    }
    let expected = byDay.keys.sorted().map { day -> (String, [String: Double]) in
      let values = byDay[day] ?? []
      return (
        day,
        [
          "value": values.reduce(0, +) / Double(values.count), "min": values.min() ?? 0, "max": values.max() ?? 0,
          "samples": Double(values.count),
        ]
      )
    }
    let (heart, file) = try Self.draw("heart-rate", input, [], into: directory)
    Self.expectValues(heart, expected)
    Self.expectReadableTicks(heart, least: 4, "heart rate over a month")
    #expect(heart.desc.contains("minimum to the maximum"))
    try ChartTests.expectRenders(file, kind: "heart-rate")
  }

  @Test(
    "errors: exit code and message, and no file left behind",
    arguments: [
      (["steps", "SAMPLE", "--from", "2030-01-01", "-o", "OUT.svg"], Int32(65), "no StepCount samples to chart"),
      (["steps", "SAMPLE"], 64, "give the chart file with -o"),
      (["steps", "SAMPLE", "-o", "OUT.png"], 64, "must end in .svg"),
      (["stpes", "SAMPLE", "-o", "OUT.svg"], 64, "did you mean 'steps'"),
      ([String](["-o", "OUT.svg"]), 64, "say what to chart"),
      (
        ["sleep", "SAMPLE", "--dedupe", "-o", "OUT.svg"], 64,
        "always merges overlapping sources and collapses rewrites already"
      ),
      (["sleep", "SAMPLE", "--dedupe", "--priority", "iPhone", "-o", "OUT.svg"], 64, "--priority works alone"),
      (["steps", "SAMPLE", "--priority", "Watch", "-o", "OUT.svg"], 64, "--priority only applies with --dedupe"),
      (["steps", "SAMPLE", "--by", "year", "-o", "OUT.svg"], 64, "not a valid value for --by"),
      (["weight", "SAMPLE", "--type", "StepCount", "-o", "OUT.svg"], 64, "unknown option '--type'"),
      (["steps", "TRUNCATED", "-o", "OUT.svg"], 65, "TRUNCATED.xml:"),
      (["steps", "MISSING", "-o", "OUT.html"], 1, "MISSING"),
    ])
  func errors(_ arguments: [String], _ status: Int32, _ message: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let sample = try String(contentsOf: Harness.samples.appendingPathComponent("export.xml"), encoding: .utf8)
    let truncated = directory.appendingPathComponent("TRUNCATED.xml")
    try Data(sample.utf8.prefix(sample.utf8.count * 2 / 3)).write(to: truncated)
    let replaced = arguments.map {
      $0.replacingOccurrences(of: "SAMPLE", with: Harness.samples.appendingPathComponent("export.zip").path)
        .replacingOccurrences(of: "TRUNCATED", with: truncated.path)
        .replacingOccurrences(of: "MISSING", with: directory.appendingPathComponent("MISSING.xml").path)
        .replacingOccurrences(of: "OUT", with: directory.appendingPathComponent("out").path)
    }
    let result = try Harness.run(["chart"] + replaced)
    #expect(result.status == status, "\(result.stderr)")
    #expect(result.stderr.contains(message), "\(result.stderr)")
    #expect(!result.stderr.contains("Fatal error"))
    if status == 65 && message.hasSuffix(".xml:") {
      // path:line:col: error: …
      #expect(result.stderr.range(of: #"TRUNCATED\.xml:\d+:\d+: error: "#, options: .regularExpression) != nil)
    }
    let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("out") }
    #expect(left.isEmpty, "left behind: \(left)")
  }
}
