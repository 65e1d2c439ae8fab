/// A chart as a web page: the SVG inline, with a data table of the same numbers beside it.
/// Self-contained like the SVG: inline styles only, and a Content-Security-Policy that forbids
/// every fetch and script. The page never scrolls sideways: a chart narrower than its 640 px
/// scrolls inside its figure, and the table inside its own region, however many periods.
package enum HTMLChartPage {
  package static func document(_ chart: ChartData) -> String {
    let esc = MarkupText.escaped
    var out = """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <meta name="generator" content="healthport">
      <title>\(esc(chart.title))</title>
      <style>
      body { font-family: sans-serif; margin: 24px; color: #1a202c; background: #ffffff; }
      .chart-page { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
      figure { margin: 0; flex: 1 1 560px; min-width: 0; max-width: 960px; overflow-x: auto; }
      figure svg { width: 100%; min-width: 640px; height: auto; max-width: 960px; }
      figcaption { margin-top: 8px; font-size: 14px; line-height: 1.4; }
      .table-scroll { max-height: 440px; max-width: 100%; overflow: auto; border: 1px solid #cbd5e0; flex: 0 1 auto; }
      .table-scroll:focus { outline: 2px solid #2b6cb0; }
      table { border-collapse: collapse; font-size: 13px; }
      caption { text-align: left; font-weight: bold; padding: 6px 8px; }
      th, td { padding: 3px 10px; border-bottom: 1px solid #e2e8f0; }
      thead th { position: sticky; top: 0; background: #edf2f7; text-align: left; }
      td { text-align: right; font-variant-numeric: tabular-nums; }
      th[scope="row"] { text-align: left; font-weight: normal; white-space: nowrap; }
      </style>
      </head>
      <body>
      <main>
      <h1>\(esc(chart.title))</h1>
      <div class="chart-page">
      <figure aria-labelledby="chart-caption">

      """
    out += SVGChart(chart).svg(idPrefix: "chart")
    out += "<figcaption id=\"chart-caption\">\(esc(SVGChart(chart).description))</figcaption>\n</figure>\n"
    out += "<div class=\"table-scroll\" tabindex=\"0\" role=\"region\" aria-labelledby=\"table-caption\">\n"
    out += "<table>\n<caption id=\"table-caption\">\(esc(chart.title)): the values drawn</caption>\n"
    out += "<thead><tr><th scope=\"col\">\(esc(chart.periodHeading))</th>"
    for column in chart.tabulatedColumns { out += "<th scope=\"col\">\(esc(column.heading))</th>" }
    out += "</tr></thead>\n<tbody>\n"
    for point in chart.points {
      out += "<tr><th scope=\"row\">\(esc(point.period))</th>"
      for (_, cell) in chart.tabulatedCells(point) { out += "<td>\(esc(cell))</td>" }
      out += "</tr>\n"
    }
    out += "</tbody>\n</table>\n</div>\n</div>\n</main>\n</body>\n</html>\n"
    return out
  }
}

extension ChartData {
  /// The heading of the table's first column: "Day", "Week", "Month", or "Night".
  var periodHeading: String {
    if let periodTitle { return periodTitle.split(separator: " ").first.map(String.init) ?? periodTitle }
    return by.noun.prefix(1).uppercased() + by.noun.dropFirst()
  }
}

/// Writes a chart to a file, atomically (``OutputStream``): `.svg` or `.html`/`.htm`, told by the
/// extension, any case.
package enum ChartFile {
  package enum Kind: Sendable { case svg, html }

  /// The kind `path` names, or nil.
  package static func kind(of path: String) -> Kind? {
    let lower = path.lowercased()
    if lower.hasSuffix(".svg") { return .svg }
    if lower.hasSuffix(".html") || lower.hasSuffix(".htm") { return .html }
    return nil
  }

  package static func write(_ chart: ChartData, as kind: Kind, to path: String, protecting input: String?) throws {
    let text = kind == .svg ? SVGChart.document(chart) : HTMLChartPage.document(chart)
    let out = try OutputStream(path: path, protecting: input)
    try out.committing { try out.write(text) }
  }
}
