import Foundation
import TestSupport
import Testing

/// `healthport chart sleep` as its readers meet it: the page's table lists each column once, the
/// stages keep apart in every kind of colour vision, and a page of three years of nights never
/// scrolls sideways. (The refusal of `--dedupe` is among `ChartSpanTests.errors`.)
@Suite("chart sleep: the table, the stages' colours, the page's width", .serialized)
struct ChartSleepTests {
  static let stages = ["deep", "core", "rem", "unspecified", "awake"]
  /// Okabe and Ito's palette (2008): orange, sky blue, bluish green, yellow, blue, vermillion,
  /// reddish purple, black.
  static let okabeIto = ["#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7", "#000000"]

  static func draw(_ input: URL, _ extra: [String], to file: URL) throws -> ChartProbe.Chart {
    let result = try Harness.run(["chart", "sleep", input.path, "-o", file.path, "--quiet"] + extra)
    #expect(result.status == 0, "\(result.stderr)")
    return try ChartProbe.chart(file)
  }

  @Test("the page's table and the tooltips list each column once", arguments: [[], ["--by", "week"]])
  func columnsOnce(_ extra: [String]) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("sleep.html")
    let chart = try Self.draw(Harness.samples.appendingPathComponent("export.zip"), extra, to: file)
    let header = chart.header ?? []
    let repeated = Dictionary(grouping: header) { $0 }.filter { $0.value.count > 1 }.keys.sorted()
    #expect(repeated.isEmpty, "headings given more than once: \(repeated), in \(header)")
    #expect(header.contains("Asleep (min)") && header.contains("In bed (min)"), "\(header)")
    let table = chart.table ?? []
    #expect(!table.isEmpty && table.count == chart.marks.count)
    for row in table { #expect(row.count == header.count, "\(row)") }
    // The marks keep both attributes: data-value (the bar's height) and data-asleep-min, equal.
    for mark in chart.markValues { #expect(mark["value"] != nil && mark["value"] == mark["asleep-min"], "\(mark)") }
    if let column = header.firstIndex(of: "Asleep (min)") {
      #expect(table.map { $0[column] } == chart.markValues.map { $0["asleep-min"] ?? "" })
    }
    // Each bar's tooltip names the asleep minutes once too.
    let text = try String(contentsOf: file, encoding: .utf8)
    let tooltips = text.components(separatedBy: "<g class=\"mark\"").dropFirst().compactMap {
      $0.components(separatedBy: "</title>").first
    }
    #expect(tooltips.count == chart.marks.count)
    for tooltip in tooltips {
      #expect(tooltip.components(separatedBy: "Asleep (min)").count == 2, "\(tooltip)")
    }
  }

  @Test("CIEDE2000 as computed here gives Sharma, Wu and Dalal's 34 published values, either way round")
  func ciede2000() {
    for (index, (one, two, expected)) in ColourDifference.sharmaPairs.enumerated() {
      let forward = ColourDifference.ciede2000(one, two)
      let backward = ColourDifference.ciede2000(two, one)
      #expect(abs(forward - expected) < 1e-4, "pair \(index + 1): \(forward), published \(expected)")
      #expect(abs(backward - expected) < 1e-4, "pair \(index + 1) reversed: \(backward), published \(expected)")
    }
    // The path from sRGB: red's published CIELAB (D65), white and black; a simulation keeps white white.
    let red = ColourDifference.lab("#ff0000", .normal)
    #expect(abs((red?.l ?? 0) - 53.24) < 0.01 && abs((red?.a ?? 0) - 80.09) < 0.01, "\(String(describing: red))")
    #expect(abs((red?.b ?? 0) - 67.20) < 0.01, "\(String(describing: red))")
    for vision in ColourDifference.Vision.allCases {
      let white = ColourDifference.lab("#ffffff", vision)
      #expect(abs((white?.l ?? 0) - 100) < 0.1 && hypot(white?.a ?? 9, white?.b ?? 9) < 0.5, "\(vision)")
      let black = ColourDifference.lab("#000000", vision)
      #expect(abs(black?.l ?? 9) < 1e-9 && hypot(black?.a ?? 9, black?.b ?? 9) < 1e-9, "\(vision)")
    }
  }

  @Test("the stages and the in-bed line: Okabe–Ito colours, each two ΔE00 ≥ 10 in normal and simulated vision")
  func stageColours() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    // Read from what the binary draws: every part's fill, the in-bed line's stroke, the legend.
    let chart = try Self.draw(
      Harness.samples.appendingPathComponent("export.zip"), [], to: directory.appendingPathComponent("sleep.svg"))
    var colours: [(name: String, colour: String)] = []
    for stage in Self.stages {
      let fills = chart.partFills[stage] ?? []
      #expect(fills.count == 1, "\(stage) is drawn in \(fills)")
      if let fill = fills.first { colours.append((stage, fill.lowercased())) }
    }
    #expect(chart.markerStrokes.count == 1, "the in-bed line is drawn in \(chart.markerStrokes)")
    if let stroke = chart.markerStrokes.first { colours.append(("in bed", stroke.lowercased())) }
    #expect(colours.count == 6)
    let legend = chart.legend.map { "\($0.name) \($0.color.lowercased())" }
    let expectedLegend = zip(["Deep", "Core", "REM", "Unspecified", "Awake", "In bed"], colours).map {
      "\($0) \($1.colour)"
    }
    #expect(legend == expectedLegend)
    for (name, colour) in colours { #expect(Self.okabeIto.contains(colour), "\(name): \(colour) is not Okabe–Ito's") }
    for vision in ColourDifference.Vision.allCases {
      for (index, one) in colours.enumerated() {
        for two in colours[(index + 1)...] {
          guard let first = ColourDifference.lab(one.colour, vision),
            let second = ColourDifference.lab(two.colour, vision)
          else {
            Issue.record("\(one.colour) or \(two.colour) is not #rrggbb")
            continue
          }
          let difference = ColourDifference.ciede2000(first, second)
          #expect(
            difference >= 10,
            "\(vision): \(one.name) \(one.colour) and \(two.name) \(two.colour) differ by ΔE00 \(difference)")
        }
      }
    }
  }

  /// Measures the page once laid out and writes the numbers into it, for `--dump-dom` to carry
  /// out; measured before the `<pre>` is added, so that it cannot widen what it measures.
  static let measuring = """
    <script>
    (function () {
      var page = document.documentElement, figure = document.querySelector("figure");
      var table = document.querySelector(".table-scroll");
      var out = {
        pageScrollWidth: page.scrollWidth, pageClientWidth: page.clientWidth,
        figureScrollWidth: figure.scrollWidth, figureClientWidth: figure.clientWidth,
        figureOverflowX: getComputedStyle(figure).overflowX,
        tableRight: table.getBoundingClientRect().right,
        tableScrollWidth: table.scrollWidth, tableClientWidth: table.clientWidth
      };
      var pre = document.createElement("pre");
      pre.id = "measured";
      pre.textContent = JSON.stringify(out);
      document.body.appendChild(pre);
    })();
    </script>

    """

  static func measurement(_ dom: String) -> [String: Any]? {
    guard let start = dom.range(of: "<pre id=\"measured\">"),
      let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex)
    else { return nil }
    let json = dom[start.upperBound..<end.lowerBound].replacingOccurrences(of: "&amp;", with: "&")
    return (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
  }

  @Test(
    "three years of nights: the page never scrolls sideways at 1,200 × 800, nor at 560 px, where the chart scrolls in its figure",
    .needsChromium)
  func pageWidth() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("export.xml")
    try IndependentSleep.generate(input.path, seed: 7, nights: 1_096)
    let page = directory.appendingPathComponent("sleep.html")
    let chart = try Self.draw(input, [], to: page)
    #expect(chart.marks.count == 1_096)
    // The page's Content-Security-Policy forbids every script: the copy measured here also allows
    // inline ones (and holds the measuring script); nothing else differs.
    let text = try String(contentsOf: page, encoding: .utf8)
    let policy = "style-src 'unsafe-inline'"
    #expect(text.contains(policy) && text.contains("</body>"))
    let measured = text.replacingOccurrences(of: policy, with: policy + "; script-src 'unsafe-inline'")
      .replacingOccurrences(of: "</body>", with: Self.measuring + "</body>")
    let copy = directory.appendingPathComponent("measured.html")
    try Data(measured.utf8).write(to: copy)
    for (width, height) in [(1_200, 800), (560, 800)] {
      let dom = try Chromium.dumpDOM(copy, width: width, height: height)
      guard let values = Self.measurement(dom) else {
        Issue.record("\(width) px: no measurement in the page: \(dom.suffix(400))")
        continue
      }
      func number(_ key: String) -> Double { (values[key] as? NSNumber)?.doubleValue ?? .nan }
      let context = "\(width) × \(height): \(values)"
      #expect(abs(number("pageClientWidth") - Double(width)) <= 20, "the window's width: \(context)")
      #expect(number("pageScrollWidth") <= number("pageClientWidth"), "the page scrolls sideways: \(context)")
      #expect(values["figureOverflowX"] as? String == "auto", "\(context)")
      // The table's region fits the window; where the table cannot, it scrolls inside the region.
      #expect(number("tableRight") <= number("pageClientWidth"), "\(context)")
      if width < 640 {
        #expect(number("tableScrollWidth") > number("tableClientWidth"), "the table scrolls in its region: \(context)")
        #expect(
          number("figureScrollWidth") > number("figureClientWidth"), "the chart scrolls in its figure: \(context)")
      }
    }
  }
}
