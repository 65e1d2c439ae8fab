extension SVGChart {
  /// The attributes every mark carries: `data-period` and one `data-NAME` per column.
  func dataAttributes(_ point: ChartPoint) -> String {
    var out = " data-period=\"\(esc(point.period))\""
    for (column, cell) in zip(chart.columns, point.cells) { out += " data-\(column.name)=\"\(esc(cell))\"" }
    return out
  }

  /// A tooltip (and a name for assistive technology): `2024-03-05: Steps 12,345; Samples 12`.
  func tooltip(_ point: ChartPoint) -> String {
    let cells = chart.tabulatedCells(point).map { "\($0.column.heading) \($0.cell)" }
    return "<title>\(esc(point.period + ": " + cells.joined(separator: "; ")))</title>"
  }

  /// The horizontal extent of a period's bar: its days, narrowed by a gap when wide enough.
  func barExtent(_ point: ChartPoint) -> (x: Double, width: Double) {
    let range = chart.by.dayRange(forKey: point.key)
    let left = x(day: Double(range.lowerBound))
    let full = x(day: Double(range.upperBound)) - left
    let inset = full > 3 ? Swift.min(full * 0.12, 4) : 0
    // At least a pixel, so that a day among ten years still shows.
    let width = Swift.min(Swift.max(full - 2 * inset, 1), 64)
    return (left + (full - width) / 2, width)
  }

  func bars() -> String {
    var out = ""
    let base = y(Swift.max(valueAxis.lower, 0))
    for point in chart.points {
      let (left, width) = barExtent(point)
      if chart.style == .stackedBars {
        out += "<g class=\"mark\"\(dataAttributes(point))>\(tooltip(point))"
        var bottom = base
        for (index, part) in point.parts.enumerated() {
          let name = chart.parts[index].name
          let color = Self.partColors[index % Self.partColors.count]
          var running = 0.0
          for earlier in point.parts[...index] { running += earlier }
          let top = y(running)
          out += "<rect class=\"part\" data-part=\"\(esc(name))\" data-part-value=\"\(esc(NumberText.format(part)))\""
          out +=
            " x=\"\(left.svg)\" y=\"\(top.svg)\" width=\"\(width.svg)\" height=\"\(Swift.max(0, bottom - top).svg)\""
          out += " fill=\"\(color)\"/>"
          bottom = top
        }
        if let marker = point.marker {
          let y = y(marker).svg
          out +=
            "<line class=\"marker\" x1=\"\((left - 2).svg)\" x2=\"\((left + width + 2).svg)\" y1=\"\(y)\" y2=\"\(y)\""
          out += " stroke=\"\(Self.markerColor)\" stroke-width=\"2\"/>"
        }
        out += "</g>\n"
      } else {
        let top = y(point.value)
        out += "<rect class=\"mark\"\(dataAttributes(point)) x=\"\(left.svg)\" y=\"\(Swift.min(top, base).svg)\""
        out += " width=\"\(width.svg)\" height=\"\(abs(base - top).svg)\" fill=\"\(Self.barColor)\">"
        out += tooltip(point) + "</rect>\n"
      }
    }
    return out
  }

  /// The middle of a period, where its point sits.
  func center(_ point: ChartPoint) -> Double {
    let range = chart.by.dayRange(forKey: point.key)
    return x(day: Double(range.lowerBound + range.upperBound) / 2)
  }

  /// Runs of periods that follow each other without a gap: a line never bridges missing periods.
  func runs() -> [ArraySlice<ChartPoint>] {
    var runs: [ArraySlice<ChartPoint>] = []
    var start = 0
    let points = chart.points
    for index in points.indices.dropFirst() {
      let previousEnd = chart.by.dayRange(forKey: points[index - 1].key).upperBound
      if chart.by.dayRange(forKey: points[index].key).lowerBound != previousEnd {
        runs.append(points[start..<index])
        start = index
      }
    }
    if !points.isEmpty { runs.append(points[start...]) }
    return runs
  }

  func lines() -> String {
    var out = ""
    let runs = runs()
    if chart.style == .bandLine {
      out += "<g class=\"band\" fill=\"\(Self.bandColor)\" stroke=\"\(Self.bandColor)\">\n"
      for run in runs {
        if run.count == 1, let point = run.first {
          let x = center(point).svg
          out += "<line x1=\"\(x)\" x2=\"\(x)\" y1=\"\(y(point.low ?? point.value).svg)\""
          out += " y2=\"\(y(point.high ?? point.value).svg)\" stroke-width=\"3\"/>\n"
          continue
        }
        var path = ""
        for point in run {
          path += (path.isEmpty ? "M" : "L") + "\(center(point).svg) \(y(point.high ?? point.value).svg)"
        }
        for point in run.reversed() { path += "L\(center(point).svg) \(y(point.low ?? point.value).svg)" }
        out += "<path d=\"\(path)Z\" stroke-width=\"1\"/>\n"
      }
      out += "</g>\n"
    }
    out +=
      "<g class=\"line\" fill=\"none\" stroke=\"\(Self.lineColor)\" stroke-width=\"2\" stroke-linejoin=\"round\">\n"
    for run in runs where run.count > 1 {
      var path = ""
      for point in run { path += (path.isEmpty ? "M" : "L") + "\(center(point).svg) \(y(point.value).svg)" }
      out += "<path d=\"\(path)\"/>\n"
    }
    out += "</g>\n"
    let spacing = (Self.plotRight - Self.plotLeft) / Double(Swift.max(1, days.count))
    let radius = Swift.min(3.5, Swift.max(1.5, spacing * Double(chart.by.dayRange(forKey: 0).count) / 3))
    for point in chart.points {
      out += "<circle class=\"mark\"\(dataAttributes(point)) cx=\"\(center(point).svg)\" cy=\"\(y(point.value).svg)\""
      out += " r=\"\(radius.svg)\" fill=\"\(Self.lineColor)\">\(tooltip(point))</circle>\n"
    }
    return out
  }
}
