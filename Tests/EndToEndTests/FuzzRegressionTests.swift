import Foundation
import Testing

/// Every input the fuzzers once broke healthport with (Tests/Fixtures/fuzz-regressions, kept by
/// `make fuzz`) must now end in a result or a located error, never a crash.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
  static let folder = Harness.repoRoot.appendingPathComponent("Tests/Fixtures/fuzz-regressions")
  static let inputs: [String] =
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()

  @Test("the folder holds the reproducers found so far")
  func present() {
    #expect(Self.inputs.contains { $0.hasPrefix("xml-") })
  }

  @Test("ends with exit 0 or 65 and a message, never a signal", arguments: inputs)
  func noCrash(name: String) throws {
    let result = try Harness.run(["info", Self.folder.appendingPathComponent(name).path, "--format", "json"])
    #expect(result.status == 0 || result.status == 65, "status \(result.status): \(result.stderr)")
    if result.status == 65 { #expect(result.stderr.contains("error:")) }
  }

  /// A control character before `<!DOCTYPE` once hid the DOCTYPE from the prolog scanner, so
  /// libxml2 parsed the internal subset (and leaked the document it built for it).
  @Test("a DOCTYPE behind a control character is still hidden from libxml2")
  func doctypeBehindControlCharacter() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("doctype.xml")
    let text =
      "<?xml version=\"1.0\"?>\u{0B}<!DOCTYPE HealthData [\n<!ENTITY a \"expanded\">\n]>\n<HealthData locale=\"&a;\">\n</HealthData>\n"
    try text.write(to: file, atomically: true, encoding: .utf8)
    let result = try Harness.run(["info", file.path, "--format", "json"])
    #expect(result.status == 65)
    #expect(result.stderr.contains("Entity 'a' not defined"), "stderr: \(result.stderr)")
  }
}
