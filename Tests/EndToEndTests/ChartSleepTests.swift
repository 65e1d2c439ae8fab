import Foundation
import TestSupport
import Testing

/// `healthport chart sleep` as its readers meet it: the page's table lists each column once.
@Suite("chart sleep: the table", .serialized)
struct ChartSleepTests {
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
}
