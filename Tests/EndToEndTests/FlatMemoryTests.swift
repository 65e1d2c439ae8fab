import Foundation
import TestSupport
import Testing

/// Memory stays flat whatever the input's size and shape: `info`'s peak on the second generator's
/// exports (a fresh device address on every record) at 20 MB and 100 MB, two threads. Not timed:
/// it measures the peak resident set (`/usr/bin/time -f %M`), which does not depend on the load.
@Suite("Flat memory")
struct FlatMemoryTests {
  static func peakKilobytes(_ arguments: [String]) throws -> Int {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let report = directory.appendingPathComponent("time")
    let result = try Harness.run(
      ["-o", report.path, "-f", "%M", Harness.binary.path] + arguments, environment: ["HEALTHPORT_THREADS": "2"],
      executable: URL(fileURLWithPath: "/usr/bin/time"))
    #expect(result.status == 0, "\(result.stderr)")
    let text = try String(contentsOf: report, encoding: .utf8)
    return try #require(Int(text.split(separator: "\n").last.map(String.init) ?? ""), "\(text)")
  }

  @Test("info's peak is under 40 MB at 20 MB and 100 MB, within 5 MB of each other", .needsExportGenerator)
  func infoPeak() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var peaks: [Int] = []
    for megabytes in [20, 100] {
      let export = directory.appendingPathComponent("export-\(megabytes).xml")
      let generated = try Harness.runTool(
        "/usr/bin/env",
        [
          "python3", TestEnvironment.exportGenerator.path, "--mb", String(megabytes), "--version", "14", "--seed", "7",
          "-o", export.path,
        ])
      try #require(generated.status == 0, "gen_export.py: \(generated.output)")
      peaks.append(try Self.peakKilobytes(["info", export.path, "--quiet"]))
    }
    for peak in peaks { #expect(peak < 40 * 1024, "peaks \(peaks) KB") }
    #expect(abs(peaks[1] - peaks[0]) < 5 * 1024, "peaks \(peaks) KB")
  }
}
