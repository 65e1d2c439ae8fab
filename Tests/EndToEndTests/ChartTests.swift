import Foundation
import TestSupport
import Testing

/// `healthport chart`: the built binary draws each chart; the file is well-formed XML with no
/// script and no outside reference; chromium renders it; the values on its marks (and in the
/// page's table) are those of the matching command.
@Suite("chart", .serialized)
struct ChartTests {
  static let kinds = ["steps", "sleep", "heart-rate", "weight"]

  /// The commands whose output a chart must equal, and how their columns map to the marks'
  /// `data-…` attributes.
  static func matching(_ kind: String, by: String) -> [(arguments: [String], columns: [String: String])] {
    let by = by == "night" ? "day" : by
    switch kind {
    case "steps":
      return [(["steps", "--by", by], ["period": "period", "steps": "value", "samples": "samples"])]
    case "heart-rate":
      return ["avg": "value", "min": "min", "max": "max"].sorted { $0.key < $1.key }.map { aggregate, name in
        (
          ["stats", "--type", "HeartRate", "--agg", aggregate, "--by", by],
          ["period": "period", "value": name, "samples": "samples"]
        )
      }
    case "weight":
      return [
        (
          ["stats", "--type", "BodyMass", "--agg", "latest", "--by", by],
          ["period": "period", "value": "value", "samples": "samples"]
        )
      ]
    default:
      let minutes = ["in_bed_min", "asleep_min", "core_min", "deep_min", "rem_min", "unspecified_min", "awake_min"]
      var columns = ["bedtime": "bedtime", "wake_time": "wake-time"]
      for column in minutes { columns[column] = column.replacingOccurrences(of: "_", with: "-") }
      if by == "day" {
        columns["night"] = "period"
        columns["sources"] = "sources"
        return [(["sleep"], columns), (["sleep"], ["asleep_min": "value"])]
      }
      columns["period"] = "period"
      columns["nights"] = "nights"
      return [(["sleep", "--by", by], columns), (["sleep", "--by", by], ["asleep_min": "value"])]
    }
  }

  /// Checks that the marks of `chart` carry exactly the rows of the matching commands.
  static func expectEqualsCommands(
    _ chart: ChartProbe.Chart, kind: String, input: URL, by: String, extra: [String] = []
  ) throws {
    let marks = chart.markValues
    for (arguments, columns) in matching(kind, by: by) {
      let result = try Harness.run(arguments + [input.path, "--format", "csv"] + extra)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      let rows = try ChartProbe.csv(result.stdoutText)
      #expect(rows.count == marks.count, "\(kind) \(arguments): \(rows.count) rows, \(marks.count) marks")
      for (row, mark) in zip(rows, marks) {
        for (column, attribute) in columns {
          // Numbers: the chart's with at most 3 decimals, the CSV's exact.
          if let exact = row[column].flatMap({ Double($0) }), let shown = mark[attribute].flatMap({ Double($0) }) {
            #expect(
              abs(exact - shown) <= 0.0005 + 1e-9 * abs(exact),
              "\(kind) \(arguments) \(row): \(column) vs data-\(attribute)")
          } else {
            #expect(mark[attribute] == row[column], "\(kind) \(arguments) \(row): \(column) vs data-\(attribute)")
          }
        }
      }
    }
    if kind == "sleep" {
      // The stacked parts, bottom first, are the stages' minutes.
      let stages = ["deep", "core", "rem", "unspecified", "awake"]
      #expect(chart.parts.count == marks.count)
      for (parts, mark) in zip(chart.parts, marks) {
        #expect(parts.map(\.0) == stages)
        #expect(parts.map(\.1) == stages.map { mark["\($0)-min"] ?? "" }, "\(mark)")
      }
    }
    if let table = chart.table {
      // The table holds the period and then every attribute, in the marks' order, but sleep's
      // data-value, which repeats data-asleep-min.
      let shown = chart.marks.map { mark in mark.filter { kind != "sleep" || $0.0 != "value" } }
      #expect(table == shown.map { $0.map(\.1) }, "\(kind): the page's table differs from the marks")
      #expect(Set(chart.header ?? []).count == table.first?.count, "\(kind): \(chart.header ?? [])")
    }
  }

  /// Well-formed (xmllint), no script, no reference to anything outside but the SVG namespace.
  static func expectSelfContained(_ file: URL) throws {
    let text = try String(contentsOf: file, encoding: .utf8)
    var svg = text
    if file.pathExtension == "html",
      let start = text.range(of: "<svg"), let end = text.range(of: "</svg>")
    {
      svg = String(text[start.lowerBound..<end.upperBound])
    }
    let scratch = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let svgFile = scratch.appendingPathComponent("chart.svg")
    try Data(svg.utf8).write(to: svgFile)
    let lint = try Harness.runTool("/usr/bin/xmllint", ["--noout", svgFile.path])
    #expect(lint.status == 0, "xmllint: \(lint.output)")
    let lower = text.lowercased()
    #expect(!lower.contains("<script"))
    for marker in ["href", "src=", "url(", "@import", "<image", "<iframe", "<link", "<object", "<embed"] {
      #expect(!lower.contains(marker), "\(file.lastPathComponent) holds \(marker)")
    }
    let schemes = lower.components(separatedBy: "http").dropFirst()
    for after in schemes where !after.hasPrefix("-equiv") {
      #expect(after.hasPrefix("://www.w3.org/2000/svg\""), "an http reference: http\(after.prefix(40))")
    }
    #expect(svg.contains("<title") && svg.contains("<desc"))
  }

  /// The colour of each chart's marks (bars, the line and points, the deepest sleep stage).
  static let markColors = ["steps": "#2b6cb0", "heart-rate": "#c53030", "weight": "#c53030", "sleep": "#0072b2"]

  /// Renders in chromium and checks that it drew: a full-size PNG, a good share of pixels that
  /// are not white, and pixels of the marks' colour. An SVG is shot at its own size (960×440),
  /// a page in a 1280×720 window.
  /// Where chromium is missing and skipping is allowed, only the tests marked `.needsChromium`
  /// say so (skipped); the others check everything else.
  static func expectRenders(_ file: URL, kind: String) throws {
    if Chromium.path == nil && !Chromium.skippingForbidden { return }
    let (width, height) = file.pathExtension == "svg" ? (960, 440) : (1280, 720)
    let png = file.deletingPathExtension().appendingPathExtension("\(file.pathExtension).png")
    try Chromium.screenshot(file, to: png, width: width, height: height)
    let picture = try ChartProbe.png(png, colors: [markColors[kind] ?? "#000000"])
    #expect(picture.width == width && picture.height == height)
    #expect(picture.bytes > 8_000, "\(file.lastPathComponent): a \(picture.bytes)-byte PNG")
    // Axes, labels, gridlines and marks: a blank page would be 0.
    #expect(picture.nonWhite > 0.015, "\(file.lastPathComponent): \(picture.nonWhite) of the pixels are not white")
    #expect(picture.nonWhite < 0.9)
    #expect(
      (picture.colorCounts.first ?? 0) >= 20, "\(file.lastPathComponent): no marks drawn (\(picture.colorCounts))")
  }

  /// A generated export (the benchmark's generator), made once.
  static let generated: URL = {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("healthport-chart-\(getpid())")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let file = directory.appendingPathComponent("generated.xml")
    if !FileManager.default.fileExists(atPath: file.path) {
      _ = try? Harness.runTool(
        "/usr/bin/env",
        [
          "python3", Harness.repoRoot.appendingPathComponent("Benchmarks/generate_export.py").path, "--size-mb", "3",
          "--seed", "1", "-o", file.path, "--quiet",
        ])
    }
    return file
  }()

  struct Case: CustomTestStringConvertible, Sendable {
    var kind: String
    var input: String
    var format: String
    var testDescription: String { "\(kind) from \(input) as .\(format)" }
  }

  static let cases: [Case] = kinds.flatMap { kind in
    ["Samples/export.zip", "generated"].flatMap { input in
      ["svg", "html"].map { Case(kind: kind, input: input, format: $0) }
    }
  }

  @Test("each chart from the samples and a generated export", .needsChromium, arguments: cases)
  func rendersAndMatches(_ test: Case) throws {
    // The generated export holds no body mass: its weight chart is the empty-selection error.
    let input = test.input == "generated" ? Self.generated : Harness.repoRoot.appendingPathComponent(test.input)
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("\(test.kind).\(test.format)")
    let result = try Harness.run(["chart", test.kind, input.path, "-o", file.path])
    if test.kind == "weight" && test.input == "generated" {
      #expect(result.status == 65)
      #expect(result.stderr.contains("no BodyMass samples to chart"), "\(result.stderr)")
      #expect(!FileManager.default.fileExists(atPath: file.path))
      return
    }
    #expect(result.status == 0, "\(result.stderr)")
    try Self.expectSelfContained(file)
    let chart = try ChartProbe.chart(file)
    #expect(!chart.marks.isEmpty)
    try Self.expectEqualsCommands(chart, kind: test.kind, input: input, by: "day")
    try Self.expectRenders(file, kind: test.kind)
  }

  @Test("--by week and month equal the commands' periods", arguments: kinds, ["week", "month"])
  func periods(_ kind: String, _ by: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = kind == "weight" ? Harness.samples.appendingPathComponent("export.zip") : Self.generated
    let file = directory.appendingPathComponent("chart.svg")
    let result = try Harness.run(["chart", kind, input.path, "--by", by, "-o", file.path])
    #expect(result.status == 0, "\(result.stderr)")
    let chart = try ChartProbe.chart(file)
    try Self.expectEqualsCommands(chart, kind: kind, input: input, by: by)
  }

  @Test("filters, --tz, --dedupe and --priority pass through to the aggregators")
  func filters() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = Harness.samples.appendingPathComponent("export.zip")
    for extra in [["--dedupe"], ["--dedupe", "--priority", "iPhone"], ["--source-product", "Watch"]] {
      let file = directory.appendingPathComponent("steps.svg")
      let result = try Harness.run(["chart", "steps", input.path, "-o", file.path] + extra)
      #expect(result.status == 0, "\(result.stderr)")
      try Self.expectEqualsCommands(try ChartProbe.chart(file), kind: "steps", input: input, by: "day", extra: extra)
    }
    let generated = Self.generated
    for (kind, extra) in [
      ("sleep", ["--tz", "Europe/Berlin", "--priority", "iPhone"]), ("sleep", ["--from", "2025-05-24"]),
      ("heart-rate", ["--source-product", "Watch", "--dedupe"]), ("heart-rate", ["--tz", "-05:00", "--by", "week"]),
    ] {
      let file = directory.appendingPathComponent("\(kind).svg")
      let result = try Harness.run(["chart", kind, generated.path, "-o", file.path] + extra)
      #expect(result.status == 0, "\(result.stderr)")
      let by = extra.contains("week") ? "week" : "day"
      let rest = by == "week" ? Array(extra.dropLast(2)) : extra
      try Self.expectEqualsCommands(try ChartProbe.chart(file), kind: kind, input: generated, by: by, extra: rest)
    }
    // And the steps totals are the independent implementation's too.
    let file = directory.appendingPathComponent("steps.svg")
    _ = try Harness.run(["chart", "steps", input.path, "--dedupe", "-o", file.path])
    let expected = try IndependentAggregates.steps(input.path, dedupe: true)
    let marks = try ChartProbe.chart(file).markValues
    #expect(marks.count == expected.count)
    for (mark, row) in zip(marks, expected) {
      #expect(mark["period"] == row["period"] as? String)
      let value = Double(mark["value"] ?? "") ?? -1
      #expect(abs(value - (row["steps"] as? Double ?? 0)) < 0.0005 + 1e-9, "\(mark)")
    }
  }

  @Test("the real exports: each chart equals its command, or there is nothing to chart", .needsRealFixtures)
  func realExports() throws {
    let exports = Harness.realExports()
    #expect(!exports.isEmpty)
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var drawn = 0
    for export in exports {
      for kind in Self.kinds {
        let file = directory.appendingPathComponent("\(drawn)-\(kind).svg")
        let result = try Harness.run(["chart", kind, export.path, "-o", file.path])
        if result.status == 65, result.stderr.contains("samples to chart") {
          let command = Self.matching(kind, by: "day")[0].arguments
          let rows = try ChartProbe.csv(try Harness.run(command + [export.path, "--format", "csv"]).stdoutText)
          #expect(rows.isEmpty, "\(export.lastPathComponent) \(kind): no chart, but \(rows.count) rows")
          continue
        }
        #expect(result.status == 0, "\(export.lastPathComponent) \(kind): \(result.stderr)")
        try Self.expectSelfContained(file)
        try Self.expectEqualsCommands(try ChartProbe.chart(file), kind: kind, input: export, by: "day")
        drawn += 1
      }
    }
    #expect(drawn >= 4, "only \(drawn) charts drawn from the real exports")
  }
}
