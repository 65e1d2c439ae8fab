import Foundation
import Testing

/// `routes --to geojson|gpx|csv` (with `--format` as its alias and `--to DATE` still the date
/// filter), and a lone `apple_health_export/export.xml` reading the side-file folders beside it.
@Suite("routes --to, and export.xml with its side folders")
struct RoutesFormatOptionTests {
  @Test("--to FORMAT writes what --format writes", arguments: ["geojson", "gpx", "csv"])
  func toNamesTheFormat(format: String) throws {
    let zip = GeneratedBundle.zip.path
    let byTo = try Harness.run(["routes", zip, "--to", format.uppercased()])
    let byFormat = try Harness.run(["routes", zip, "--format", format])
    #expect(byTo.status == 0, "stderr: \(byTo.stderr)")
    #expect(byTo.stdout == byFormat.stdout)
    #expect(!byTo.stdout.isEmpty)
  }

  @Test("--to is the format and the date: a date before every route leaves none")
  func toAsDate() throws {
    let zip = GeneratedBundle.zip.path
    let all = try Harness.run(["routes", zip, "--to", "csv"])
    let none = try Harness.run(["routes", zip, "--to", "csv", "--to", "2000-01-01"])
    #expect(none.status == 0, "stderr: \(none.stderr)")
    #expect(all.stdoutText.split(separator: "\n").count > 1)
    #expect(none.stdoutText.split(separator: "\n").count == 1, "the header line only")
    let wrong = try Harness.run(["routes", zip, "--to", "kml"])
    #expect(wrong.status == 64)
    #expect(wrong.stderr.contains("unknown format 'kml' for --to"))
    let clash = try Harness.run(["routes", zip, "--to", "gpx", "--format", "csv"])
    #expect(clash.status == 64)
  }

  @Test("a lone export.xml reads workout-routes/ and electrocardiograms/ beside it, as the folder does")
  func loneExportReadsSideFolders() throws {
    let export = GeneratedBundle.exportFolder.appendingPathComponent("export.xml")
    let expected = BundleTests.withoutPerRoute(try BundleCount.of(GeneratedBundle.exportFolder))
    let (count, result) = try BundleTests.infoCount([export.path])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    #expect(count == expected)
    let csv = try Harness.run(["routes", export.path, "--to", "csv"])
    let fromZip = try Harness.run(["routes", GeneratedBundle.zip.path, "--to", "csv"])
    #expect(csv.stdout == fromZip.stdout)
    // --to xml -o FILE stays export.xml alone, byte for byte.
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let out = directory.appendingPathComponent("out.xml")
    #expect(try Harness.run(["convert", export.path, "--to", "xml", "-o", out.path, "--quiet"]).status == 0)
    #expect(try Data(contentsOf: out) == Data(contentsOf: export))
  }
}
