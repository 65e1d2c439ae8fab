import Foundation
import Testing

/// `Examples/Steps` (the library's example, built with the tests as `healthport-example-steps`)
/// prints what `healthport steps --by day --format csv` prints, byte for byte, through the public API.
@Suite("Examples/Steps")
struct ExampleProgramTests {
  static let example = Harness.binary.deletingLastPathComponent().appendingPathComponent("healthport-example-steps")
  static let sampleZip = Harness.samples.appendingPathComponent("export.zip")
  static var hasSample: Bool { FileManager.default.fileExists(atPath: sampleZip.path) }

  @Test(
    "the example's steps per day equal healthport steps --by day --format csv",
    .enabled(if: hasSample, "Samples/export.zip is absent"),
    arguments: [[], ["Watch"], ["iPhone"]])
  func sameBytesAsSteps(products: [String]) throws {
    let example = try Harness.run([Self.sampleZip.path] + products, executable: Self.example)
    #expect(example.status == 0, "\(example.stderr)")
    let cli = try Harness.run(
      ["steps", Self.sampleZip.path, "--by", "day", "--format", "csv", "-q"]
        + products.flatMap { ["--source-product", $0] })
    #expect(cli.status == 0, "\(cli.stderr)")
    #expect(example.stdoutText.hasPrefix(Harness.csvHeader("period,steps,samples")))
    #expect(example.stdoutText.split(separator: "\n").count > 2, "some days of steps")
    #expect(example.stdout == cli.stdout)
  }

  @Test("the same bytes on a generated export of 23 days, all sources and each product")
  func sameBytesOnGeneratedExport() throws {
    let work = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: work) }
    let file = work.appendingPathComponent("generated.xml")
    try ParallelReadTests.generate(megabytes: 10, seed: 5, to: file)
    for products in [[], ["Watch"], ["iPhone"]] {
      let example = try Harness.run([file.path] + products, executable: Self.example)
      #expect(example.status == 0, "\(example.stderr)")
      let cli = try Harness.run(
        ["steps", file.path, "--by", "day", "--format", "csv", "-q"] + products.flatMap { ["--source-product", $0] })
      #expect(example.stdoutText.split(separator: "\n").count > 10, "\(products): days of steps")
      #expect(example.stdout == cli.stdout, "\(products)")
    }
  }

  @Test("the example is at most 40 lines")
  func short() throws {
    let source = try String(
      contentsOf: Harness.repoRoot.appendingPathComponent("Examples/Steps/main.swift"), encoding: .utf8)
    #expect(source.split(separator: "\n", omittingEmptySubsequences: false).count <= 41)
  }

  @Test("a bad input: the located error on stderr, exit 1, nothing on stdout")
  func badInput() throws {
    let scratch = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let bad = scratch.appendingPathComponent("export.xml")
    try Data("<HealthData><Record type=\"x\"".utf8).write(to: bad)
    let result = try Harness.run([bad.path], executable: Self.example)
    #expect(result.status == 1)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.contains("\(bad.path):"), "\(result.stderr)")
  }
}
