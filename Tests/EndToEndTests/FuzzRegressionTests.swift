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
    #expect(Self.inputs.contains { $0.hasPrefix("jsonl-") })
  }

  /// The corpora of the GPX and ECG fuzz targets (Fuzz/corpus/<target>/, replayed by every
  /// `make fuzz` run): 5 MB at most in all; the named seeds (the files libFuzzer kept are named by
  /// their SHA-1) are each read by the target's own reader, one route or recording.
  @Test("the GPX and ECG corpora are small and their seeds read as GPX and ECG", arguments: ["gpx", "ecg"])
  func seedCorpus(target: String) throws {
    let folder = Harness.repoRoot.appendingPathComponent("Fuzz/corpus/\(target)")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    let isHash = { (name: String) in name.count == 40 && name.allSatisfy(\.isHexDigit) }
    let seeds = names.filter { !isHash($0) }
    #expect(seeds.count >= 3, "\(names)")
    var total = 0
    for name in names {
      total += try Data(contentsOf: folder.appendingPathComponent(name)).count
    }
    #expect(total <= 5 << 20)
    for name in seeds {
      let path = folder.appendingPathComponent(name).path
      let result = try Harness.run(["info", path, "--format", "json"])
      #expect(result.status == 0, "\(name): \(result.stderr)")
      let summary = try Harness.json(result.stdout) as? [String: Any]
      let input = summary?["input"] as? [String: Any]
      #expect(input?["format"] as? String == target, "\(name)")
      let count = target == "gpx" ? "routeFileCount" : "ecgRecordingCount"
      #expect(summary?[count] as? Int == 1, "\(name)")
    }
  }

  /// The six targets share one driver (Fuzz/Support, `runFuzzTarget`): none declares libFuzzer's
  /// entry point, its replay loop or its chunked reads again.
  @Test("every fuzz target runs through the one shared driver")
  func sharedDriver() throws {
    let fuzz = Harness.repoRoot.appendingPathComponent("Fuzz")
    let mains = try FileManager.default.contentsOfDirectory(atPath: fuzz.path).sorted()
      .map { fuzz.appendingPathComponent("\($0)/main.swift") }
      .filter { FileManager.default.fileExists(atPath: $0.path) }
    #expect(mains.count == 6)
    for main in mains {
      let text = try String(contentsOf: main, encoding: .utf8)
      let name = main.deletingLastPathComponent().lastPathComponent
      #expect(text.contains("runFuzzTarget {"), "\(name)")
      for copied in ["LLVMFuzzerRunDriver", "fread(", "options.chunkSize"] {
        #expect(!text.contains(copied), "\(name) has its own \(copied)")
      }
    }
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

  /// Values that healthport does not read (an unknown key of an element object or of the header
  /// line) were skipped by a recursive descent without a depth limit: a million nested arrays
  /// overflowed the stack. Past 256 levels (the limit for elements) they are an error located at
  /// the bracket that goes one level too deep.
  @Test(
    "a JSON value nested a million levels deep is a located error, not a stack overflow",
    arguments: [#"{"element":"Record","x":"#, #"{"kind":"healthport","x":"#])
  func deeplyNestedJSONValue(prefix: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("deep.jsonl")
    let depth = 1_000_000
    let text = prefix + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}\n"
    try text.write(to: file, atomically: true, encoding: .utf8)
    let result = try Harness.run(["info", file.path, "--format", "json"])
    #expect(result.status == 65, "status \(result.status)")
    // The brackets start right after the prefix (ASCII: one column per character); the first
    // one is level 1, so the 257th is the first past the limit.
    let column = prefix.count + 257
    #expect(
      result.stderr.contains("deep.jsonl:1:\(column): error: JSON values are nested deeper than 256 levels"),
      "stderr: \(result.stderr.prefix(500))")
  }

  /// A header naming another root than `HealthData` (fuzz-jsonl's first find, minimised to
  /// `{"root":""}`) escaped the reader unlocated: exit 1 and a bare message. It is malformed
  /// input: exit 65, located at the header object, whether the root is started by the elements
  /// array, by the first element line or at the end of a header-only input.
  @Test(
    "a header whose root is not HealthData is a located error (exit 65)",
    arguments: [
      (#"{"root":""}"#, "1:1", "<>"),
      (#"{"header":{"root":"Foo"},"elements":[]}"#, "1:11", "<Foo>"),
      ("{\"kind\":\"header\",\"root\":\"Foo\"}\n{\"element\":\"Record\"}\n", "1:1", "<Foo>"),
      ("\n  {\"kind\":\"header\",\"root\":\"Foo\"}\n", "2:3", "<Foo>"),
    ])
  func rootNotHealthData(text: String, location: String, root: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("root.json")
    try text.write(to: file, atomically: true, encoding: .utf8)
    let result = try Harness.run(["info", file.path, "--format", "json"])
    #expect(result.status == 65, "status \(result.status): \(result.stderr)")
    #expect(
      result.stderr.contains(
        "root.json:\(location): error: not an Apple Health export: the root element is \(root), expected <HealthData>"),
      "stderr: \(result.stderr)")
  }
}
