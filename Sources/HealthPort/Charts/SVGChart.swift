/// Draws a ``ChartData`` as one self-contained SVG document: no scripts, no fonts or images to
/// fetch (the generic `sans-serif` face), a `<title>` and `<desc>` for screen readers, labelled
/// axes with units, and on every mark its values as `data-period`, `data-value`, … attributes
/// (the same texts as the matching command's CSV).
package struct SVGChart {
  package static let width = 960.0
  package static let height = 440.0
  static let plotLeft = 84.0
  static let plotRight = width - 36
  static let plotTop = 72.0
  static let plotBottom = height - 72

  static let barColor = "#2b6cb0"
  static let lineColor = "#c53030"
  static let bandColor = "#feb2b2"
  static let axisColor = "#4a5568"
  static let gridColor = "#e2e8f0"
  /// The line across a stacked bar (sleep's time in bed): Okabe–Ito's black.
  static let markerColor = "#000000"
  /// Colours of stacked parts, bottom first (sleep: deep, core, REM, unspecified, awake): Okabe and
  /// Ito's blue, sky blue, bluish green, reddish purple and vermillion. Every two of them, and the
  /// marker's black, differ by CIEDE2000 ΔE00 ≥ 10 in normal vision and in Machado et al.'s (2009)
  /// simulated protanopia, deuteranopia and tritanopia; the closest pairs are 22.3, 12.2, 15.7 and
  /// 12.1 apart (`ChartSleepTests.stageColours` measures them).
  static let partColors = ["#0072b2", "#56b4e9", "#009e73", "#cc79a7", "#d55e00"]

  package let chart: ChartData
  /// The days the date axis spans: the first period's start to the last period's end.
  package let days: Range<Int>
  package let dateAxis: DateAxis
  package let valueAxis: ValueAxis

  /// Lays the chart out; `chart.points` must not be empty.
  package init(_ chart: ChartData) {
    self.chart = chart
    let ranges = chart.points.map { chart.by.dayRange(forKey: $0.key) }
    let start = ranges.map(\.lowerBound).min() ?? 0
    days = start..<(ranges.map(\.upperBound).max() ?? start + 1)
    dateAxis = DateAxis(
      days: days, width: Self.plotRight - Self.plotLeft,
      overhang: (left: Self.plotLeft - 8, right: Self.width - Self.plotRight - 4), centeredOnDays: chart.by == .day,
      finest: [.day: .day, .week: .week, .month: .month, .year: .years(1)][chart.by] ?? .day)
    let lows = chart.points.map { $0.low ?? $0.value }
    let highs = chart.points.map { $0.high ?? $0.value }
    let bars = chart.style == .bars || chart.style == .stackedBars
    valueAxis = ValueAxis(
      low: lows.min() ?? 0, high: highs.max() ?? 0, fromZero: bars, minutesAsHours: chart.minutesAsHours)
  }

  /// The whole document, starting with the XML declaration.
  package static func document(_ chart: ChartData) -> String {
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + SVGChart(chart).svg(idPrefix: "chart")
  }

  /// The `<svg>` element; ids start with `idPrefix`.
  package func svg(idPrefix: String) -> String {
    var out = ""
    let titleID = "\(idPrefix)-title"
    let descID = "\(idPrefix)-desc"
    out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Self.width.svg)\" height=\"\(Self.height.svg)\""
    out += " viewBox=\"0 0 \(Self.width.svg) \(Self.height.svg)\" role=\"img\""
    out +=
      " aria-labelledby=\"\(titleID) \(descID)\" font-family=\"sans-serif\" font-size=\"\(ChartMetrics.fontSize.svg)\""
    out += " data-by=\"\(chart.by.rawValue)\" data-unit=\"\(esc(chart.unit))\">\n"
    out += "<title id=\"\(titleID)\">\(esc(chart.title))</title>\n"
    out += "<desc id=\"\(descID)\">\(esc(description))</desc>\n"
    out += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
    out += "<text x=\"\(Self.plotLeft.svg)\" y=\"28\" font-size=\"18\" font-weight=\"bold\" fill=\"#1a202c\">"
    out += esc(chart.title) + "</text>\n"
    out += legend()
    out += valueGrid()
    out += dateTicks()
    out += "<g class=\"marks\">\n"
    switch chart.style {
    case .bars, .stackedBars: out += bars()
    case .bandLine, .line: out += lines()
    }
    out += "</g>\n"
    out += axisLines()
    out += "</svg>\n"
    return out
  }

  /// What the chart shows in words, for the `<desc>`.
  package var description: String {
    let points = chart.points
    guard let first = points.first, let last = points.last else { return "" }
    let count = points.count
    let noun = count == 1 ? chart.by.noun : chart.by.noun + "s"
    let span = "\(first.period) to \(last.period), \(count) \(noun) with data"
    let unit = chart.unit.isEmpty ? "" : " \(chart.unit)"
    let highest = points.max { $0.value < $1.value } ?? first
    let lowest = points.min { $0.value < $1.value } ?? first
    func value(_ point: ChartPoint) -> String { ChartNumber.shown(point.value) + unit }
    switch chart.style {
    case .bars, .stackedBars:
      let total = points.reduce(0) { $0 + $1.value }
      var text = "Bar chart of \(chart.quantity.lowercased()) per \(chart.by.noun), \(span)"
      if chart.style == .stackedBars {
        text += ", each bar stacked from " + chart.parts.map { $0.heading.lowercased() }.joined(separator: ", ")
        if !chart.markerLabel.isEmpty { text += ", a dark line marking the time \(chart.markerLabel.lowercased())" }
      }
      if chart.style == .stackedBars {
        let average = ChartNumber.shown(total / Double(count))
        text +=
          ". \(chart.valueLabel.prefix(1).uppercased() + chart.valueLabel.dropFirst()) \(average)\(unit) on average"
      } else {
        text += ". Total \(ChartNumber.shown(total))\(unit)"
      }
      text += "; highest \(value(highest)) in \(highest.period)"
      return text + ", lowest \(value(lowest)) in \(lowest.period)."
    case .bandLine, .line:
      var text = "Line chart of the \(chart.valueLabel) \(chart.quantity.lowercased()) per \(chart.by.noun)"
      if chart.style == .bandLine { text += ", over a shaded band from the \(chart.bandLabel)" }
      text += ", \(span). The \(chart.valueLabel) ranges from \(value(lowest)) in \(lowest.period)"
      text += " to \(value(highest)) in \(highest.period)"
      if chart.style == .bandLine,
        let low = points.compactMap(\.low).min(), let high = points.compactMap(\.high).max()
      {
        text += "; the band from \(ChartNumber.shown(low))\(unit) to \(ChartNumber.shown(high))\(unit)"
      }
      return text + ". First \(value(first)) in \(first.period), last \(value(last)) in \(last.period)."
    }
  }

  // MARK: Scales

  func x(day position: Double) -> Double { Self.plotLeft + dateAxis.x(position) }

  func y(_ value: Double) -> Double {
    Self.plotBottom - valueAxis.fraction(value) * (Self.plotBottom - Self.plotTop)
  }

  // MARK: Frame

  func valueGrid() -> String {
    var out = "<g class=\"value-axis\" fill=\"\(Self.axisColor)\">\n"
    for tick in valueAxis.ticks {
      let y = y(tick).svg
      out += "<line x1=\"\(Self.plotLeft.svg)\" x2=\"\(Self.plotRight.svg)\" y1=\"\(y)\" y2=\"\(y)\""
      out += " stroke=\"\(Self.gridColor)\"/>"
      out += "<text x=\"\((Self.plotLeft - 8).svg)\" y=\"\(y)\" dy=\"0.32em\" text-anchor=\"end\">"
      out += esc(valueAxis.label(tick)) + "</text>\n"
    }
    let middle = ((Self.plotTop + Self.plotBottom) / 2).svg
    var unit = chart.unit.isEmpty || chart.unit == chart.quantity.lowercased() ? "" : " (\(chart.unit))"
    if chart.minutesAsHours { unit = " (hours)" }
    out += "<text class=\"axis-title\" transform=\"translate(18 \(middle)) rotate(-90)\" text-anchor=\"middle\""
    out += " font-size=\"13\">\(esc(chart.quantity + unit))</text>\n"
    return out + "</g>\n"
  }

  func dateTicks() -> String {
    var out = "<g class=\"date-axis\" fill=\"\(Self.axisColor)\" text-anchor=\"middle\">\n"
    for tick in dateAxis.ticks {
      let x = x(day: tick.position).svg
      out += "<line x1=\"\(x)\" x2=\"\(x)\" y1=\"\(Self.plotBottom.svg)\" y2=\"\((Self.plotBottom + 5).svg)\""
      out += " stroke=\"\(Self.axisColor)\"/>"
      out += "<text class=\"tick\" x=\"\(x)\" y=\"\((Self.plotBottom + 19).svg)\">\(esc(tick.label))</text>"
      if let year = tick.yearLabel {
        out += "<text class=\"year\" x=\"\(x)\" y=\"\((Self.plotBottom + 34).svg)\">\(esc(year))</text>"
      }
      out += "\n"
    }
    let middle = ((Self.plotLeft + Self.plotRight) / 2).svg
    let title: String
    switch chart.by {
    case .day: title = "Day (local date)"
    case .week: title = "Week (ISO 8601, starting Monday)"
    case .month: title = "Month"
    case .year: title = "Year"
    }
    out += "<text class=\"axis-title\" x=\"\(middle)\" y=\"\((Self.height - 12).svg)\" font-size=\"13\">"
    out += esc(chart.periodTitle ?? title) + "</text>\n"
    return out + "</g>\n"
  }

  func axisLines() -> String {
    let left = Self.plotLeft.svg
    let bottom = Self.plotBottom.svg
    var out = "<g class=\"axes\" stroke=\"\(Self.axisColor)\">"
    out += "<line x1=\"\(left)\" x2=\"\(left)\" y1=\"\(Self.plotTop.svg)\" y2=\"\(bottom)\"/>"
    out += "<line x1=\"\(left)\" x2=\"\(Self.plotRight.svg)\" y1=\"\(bottom)\" y2=\"\(bottom)\"/>"
    return out + "</g>\n"
  }

  /// A swatch and a name per series, under the title.
  func legend() -> String {
    var entries: [(color: String, name: String, line: Bool)] = []
    switch chart.style {
    case .bars: entries = [(Self.barColor, chart.valueLabel.isEmpty ? chart.quantity : chart.valueLabel, false)]
    case .stackedBars:
      entries = chart.parts.enumerated().map {
        (Self.partColors[$0.offset % Self.partColors.count], $0.element.heading, false)
      }
      if !chart.markerLabel.isEmpty { entries.append((Self.markerColor, chart.markerLabel, true)) }
    case .bandLine: entries = [(Self.lineColor, chart.valueLabel, false), (Self.bandColor, chart.bandLabel, false)]
    case .line: entries = [(Self.lineColor, chart.valueLabel, false)]
    }
    var out = "<g class=\"legend\" fill=\"#1a202c\">\n"
    var x = Self.plotLeft
    for entry in entries {
      let (top, height) = entry.line ? (48, 2) : (42, 14)
      out += "<rect x=\"\(x.svg)\" y=\"\(top)\" width=\"14\" height=\"\(height)\" fill=\"\(entry.color)\"/>"
      out += "<text x=\"\((x + 20).svg)\" y=\"53\">\(esc(entry.name))</text>\n"
      x += 20 + Double(entry.name.count) * ChartMetrics.characterWidth + 18
    }
    return out + "</g>\n"
  }

  func esc(_ text: String) -> String { MarkupText.escaped(text) }
}

extension Double {
  /// A coordinate in SVG: at most two decimals, no trailing zeros.
  var svg: String { NumberText.format(self, decimals: 2) }
}
