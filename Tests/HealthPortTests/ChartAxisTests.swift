import Foundation
import FoundationXML
import HealthPort
import Testing

/// The chart room's axes and markup, checked against Foundation's calendar and XML parser.
@Suite("chart axes and markup")
struct ChartAxisTests {
  static let plotWidth = 848.0

  static func days(from start: String, count: Int) -> Range<Int> {
    let parts = start.split(separator: "-").compactMap { Int($0) }
    let first = HealthDate.daysSince1970(year: parts[0], month: parts[1], day: parts[2])
    return first..<(first + count)
  }

  /// The UTC date of a day number, by Foundation.
  static func components(ofDay day: Int) -> DateComponents {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
    return calendar.dateComponents(
      [.year, .month, .day, .weekday], from: Date(timeIntervalSince1970: Double(day) * 86_400))
  }

  static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

  @Test(
    "a week to thirty years: ticks that name their dates and never overlap",
    arguments: [7, 10, 31, 45, 92, 183, 366, 731, 1096, 1827, 3653, 10958], [true, false])
  func dateTicks(_ count: Int, _ centered: Bool) {
    let days = Self.days(from: "2016-02-27", count: count)
    let axis = DateAxis(days: days, width: Self.plotWidth, overhang: (76, 32), centeredOnDays: centered)
    #expect(axis.ticks.count >= 2, "\(count) days: \(axis.ticks)")
    #expect(axis.ticks.count <= 32, "\(count) days: \(axis.ticks.count) ticks")
    for (left, right) in zip(axis.ticks, axis.ticks.dropFirst()) {
      // Overlap measured with DejaVu Sans's digit advance (0.64 em at 12 px), a lower bound.
      let widths = Double(
        max(left.label.count, left.yearLabel?.count ?? 0) + max(right.label.count, right.yearLabel?.count ?? 0))
      #expect(axis.x(right.position) - axis.x(left.position) >= widths / 2 * 12 * 0.64, "\(left) \(right)")
    }
    var previousYear: Int?
    for tick in axis.ticks {
      let day = Int(tick.position.rounded(.down))
      let date = Self.components(ofDay: day)
      #expect(Double(days.lowerBound) <= tick.position && tick.position <= Double(days.upperBound))
      switch axis.step {
      case .day, .week:
        #expect(tick.label == "\(Self.months[(date.month ?? 1) - 1]) \(date.day ?? 0)")
        if axis.step == .week { #expect(date.weekday == 2, "\(tick): a Monday") }
      case .month, .quarter:
        #expect(date.day == 1 && tick.label == Self.months[(date.month ?? 1) - 1])
        if axis.step == .quarter { #expect([1, 4, 7, 10].contains(date.month ?? 0)) }
      case .years(let n):
        #expect(date.month == 1 && date.day == 1 && tick.label == String(date.year ?? 0))
        #expect((date.year ?? 0) % n == 0)
      }
      if case .years = axis.step {
        #expect(tick.yearLabel == nil)
      } else {
        #expect((tick.yearLabel != nil) == (previousYear != date.year), "\(tick)")
      }
      previousYear = date.year
    }
  }

  @Test(
    "the step follows the span",
    arguments: [
      (7, "day"), (31, "week"), (92, "week"), (366, "month"), (1096, "quarter"), (3653, "year"),
    ])
  func stepBySpan(_ count: Int, _ step: String) {
    let axis = DateAxis(
      days: Self.days(from: "2020-01-01", count: count), width: Self.plotWidth, overhang: (76, 32),
      centeredOnDays: true)
    #expect(axis.step.description == step)
  }

  @Test("a chart by week or month gets no finer ticks than its periods")
  func finestStep() {
    let month = DateAxis(
      days: Self.days(from: "2024-11-01", count: 30), width: Self.plotWidth, overhang: (76, 32),
      centeredOnDays: false, finest: .month)
    #expect(month.step == .month)
    #expect(month.ticks.map(\.label) == ["Nov", "Dec"])
    let week = DateAxis(
      days: Self.days(from: "2024-11-04", count: 14), width: Self.plotWidth, overhang: (76, 32),
      centeredOnDays: false, finest: .week)
    #expect(week.ticks.map(\.label) == ["Nov 4", "Nov 11", "Nov 18"])
  }

  @Test(
    "value ticks: nice steps covering the values, from zero for bars",
    arguments: [
      (0.0, 12_345.0, true), (58, 163, false), (61.25, 61.25, false), (0, 0, true), (0.012, 0.017, false),
      (1_200, 1_250, false), (0, 987_654, true), (72.4, 72.9, false),
    ])
  func valueTicks(_ low: Double, _ high: Double, _ fromZero: Bool) {
    let axis = ValueAxis(low: low, high: high, fromZero: fromZero)
    #expect(axis.lower <= low && axis.upper >= high)
    if fromZero { #expect(axis.lower == 0) }
    #expect(axis.upper > axis.lower)
    #expect((3...12).contains(axis.ticks.count), "\(axis.ticks)")
    let magnitude = pow(10, (log10(axis.step)).rounded(.down))
    let factor = axis.step / magnitude
    #expect([1, 2, 2.5, 5].contains { abs($0 - factor) < 1e-9 }, "step \(axis.step)")
    for (a, b) in zip(axis.ticks, axis.ticks.dropFirst()) { #expect(abs(b - a - axis.step) < axis.step * 1e-9) }
    let labels = axis.ticks.map(axis.label)
    #expect(Set(labels).count == labels.count, "\(labels)")
  }

  @Test("labels: thousands grouped, decimals as the step needs, minutes as hours")
  func labels() {
    #expect(
      ValueAxis(low: 0, high: 12_345, fromZero: true).ticks.map {
        ValueAxis(low: 0, high: 12_345, fromZero: true).label($0)
      } == ["0", "2,500", "5,000", "7,500", "10,000", "12,500"])
    let hours = ValueAxis(low: 0, high: 470, fromZero: true, minutesAsHours: true)
    #expect(hours.ticks.map(hours.label) == ["0 h", "2 h", "4 h", "6 h", "8 h"])
    let halves = ValueAxis(low: 0, high: 140, fromZero: true, minutesAsHours: true)
    #expect(halves.ticks.map(halves.label) == ["0 h", "0 h 30", "1 h", "1 h 30", "2 h", "2 h 30"])
    #expect(ChartNumber.shown(1234567.5) == "1,234,567.5")
    #expect(ChartNumber.shown(-0.25) == "-0.25")
  }

  /// A chart whose texts hold every character markup must escape.
  static func hostileChart(_ style: ChartData.Style) -> ChartData {
    let nasty = "<script>alert('x')</script> & \"quotes\" \u{1}"
    var chart = ChartData(
      title: "Steps & <things>", quantity: "Steps", unit: "count/<min>", by: .day, style: style,
      columns: [
        ChartColumn(name: "value", heading: "Value \(nasty)"), ChartColumn(name: "sources", heading: "Sources"),
      ],
      points: (0..<3).map { index in
        var point = ChartPoint(
          key: 19_000 + index, period: "2022-01-0\(index + 1)", value: Double(index + 1),
          cells: ["\(index + 1)", nasty])
        point.low = 0.5
        point.high = Double(index + 2)
        point.parts = [Double(index), 1]
        return point
      })
    chart.parts = [ChartColumn(name: "a", heading: "A <1>"), ChartColumn(name: "b", heading: "B & 2")]
    chart.valueLabel = "avg & co"
    chart.bandLabel = "min <-> max"
    return chart
  }

  final class Collector: NSObject, XMLParserDelegate {
    var periods: [String] = []
    var sources: [String] = []
    var elements: Set<String> = []
    var title = ""
    private var inTitle = false
    private var depth = 0
    func parser(
      _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      depth += 1
      elements.insert(name)
      if let period = attributes["data-period"] { periods.append(period) }
      if let source = attributes["data-sources"] { sources.append(source) }
      inTitle = name == "title" && depth == 2
    }
    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
      depth -= 1
      inTitle = false
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) { if inTitle { title += string } }
  }

  @Test(
    "every text is escaped: the SVG parses, and holds the texts as given",
    arguments: [
      ChartData.Style.bars, .stackedBars, .bandLine, .line,
    ])
  func escaping(_ style: ChartData.Style) throws {
    let svg = SVGChart.document(Self.hostileChart(style))
    let parser = XMLParser(data: Data(svg.utf8))
    let collector = Collector()
    parser.delegate = collector
    #expect(parser.parse(), "\(String(describing: parser.parserError))")
    #expect(collector.periods == ["2022-01-01", "2022-01-02", "2022-01-03"])
    #expect(collector.sources == Array(repeating: "<script>alert('x')</script> & \"quotes\" ", count: 3))
    #expect(collector.title == "Steps & <things>")
    #expect(!collector.elements.contains("script"))
    #expect(collector.elements.isSuperset(of: ["svg", "title", "desc"]))
    let page = HTMLChartPage.document(Self.hostileChart(style))
    #expect(!page.lowercased().contains("<script"))
  }
}
