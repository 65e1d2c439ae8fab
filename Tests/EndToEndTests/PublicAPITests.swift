import Foundation
import Testing

/// The library's public API (docs/contributing.md, "The library"): at most 200 declarations over
/// HealthPort, HealthPortSQLite and HealthPortParquet, each documented and named in
/// scripts/public-api.txt, and enough for a program outside the package to write its own sink,
/// stage and aggregation.
@Suite("The public API")
struct PublicAPITests {
  /// The script's --check: the count, the keep list and the doc comments.
  @Test("at most 200 public declarations, each in the keep list and documented")
  func counted() throws {
    let script = Harness.repoRoot.appendingPathComponent("scripts/narrow-public-api.py").path
    let check = try Harness.runTool("/usr/bin/env", ["python3", script, "--check"])
    #expect(check.status == 0, "\(check.output)")
    let count = check.output.split(separator: "\n").compactMap { line -> Int? in
      guard line.hasSuffix("public declarations in HealthPort, HealthPortSQLite, HealthPortParquet") else { return nil }
      return Int(line.split(separator: " ")[0])
    }
    #expect(count.count == 1 && count[0] <= 200 && count[0] > 0, "\(check.output)")
  }

  /// Type-checks `files` as a module outside the package (no `-package-name`), against the
  /// debug build's modules.
  static func typecheck(_ files: [String]) throws -> (status: Int32, output: String) {
    let modules = Harness.binary.deletingLastPathComponent().appendingPathComponent("Modules").path
    let maps = try FileManager.default.contentsOfDirectory(
      atPath: Harness.repoRoot.appendingPathComponent("Sources").path
    )
    .filter { $0.hasPrefix("C") }.sorted()
    .map { Harness.repoRoot.appendingPathComponent("Sources/\($0)/module.modulemap").path }
    .filter { FileManager.default.fileExists(atPath: $0) }
    let includes = try Harness.runTool("/usr/bin/env", ["pkg-config", "--cflags-only-I", "libxml-2.0", "libarchive"])
    let arguments =
      ["swiftc", "-typecheck", "-swift-version", "6", "-I", modules]
      + maps.flatMap { ["-Xcc", "-fmodule-map-file=\($0)"] }
      + includes.output.split(whereSeparator: \.isWhitespace).flatMap { ["-Xcc", String($0)] } + files
    return try Harness.runTool("/usr/bin/env", arguments)
  }

  @Test("the example and a sink, stage and aggregation of one's own type-check outside the package")
  func enoughForAClient() throws {
    let client = Harness.repoRoot.appendingPathComponent("Tests/Fixtures/public-api/Client.swift").path
    let example = Harness.repoRoot.appendingPathComponent("Examples/Steps/main.swift").path
    for file in [client, example] {
      let result = try Self.typecheck([file])
      #expect(result.status == 0, "\(file): \(result.output)")
    }
  }

  @Test("what the command line alone needs is hidden from a program outside the package")
  func packageOnlyHidden() throws {
    let file = Harness.repoRoot.appendingPathComponent("Tests/Fixtures/public-api/PackageOnly.swift").path
    let result = try Self.typecheck([file])
    #expect(result.status != 0)
    for name in ["grouped", "isEmpty", "stepType"] {
      #expect(
        result.output.contains("'\(name)' is inaccessible due to 'package' protection level"), "\(result.output)")
    }
  }
}
