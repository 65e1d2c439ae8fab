import Foundation
import TestSupport
import Testing

/// What healthport cannot carry from an input into an output is said, not dropped in silence.
@Suite("nothing lost in silence")
struct NothingLostTests {
  /// Runs a Python script with `arguments`, expecting success; returns its output.
  static func python(_ script: String, _ arguments: [String]) throws -> String {
    let result = try Harness.runTool("/usr/bin/python3", ["-c", script] + arguments)
    #expect(result.status == 0, "\(result.output)")
    return result.output
  }

  /// Puts control characters into 5 StepCount types and one source name of a JSON Lines file, and
  /// prints how many XML 1.0 forbids (counted on the decoded strings, as Python reads them).
  static let jsonLinesWithControls = """
    import json, sys
    lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
    out, changed = [], 0
    for line in lines:
        obj = json.loads(line)
        attrs = obj.get("attributes") if obj.get("element") == "Record" else None
        if attrs and attrs.get("type") == "HKQuantityTypeIdentifierStepCount" and changed < 5:
            attrs["type"] = "HKQuantityTypeIdentifier\\u0001ctl\\u001f"
            if changed == 0:
                attrs["sourceName"] = attrs["sourceName"] + "\\u0002"
            changed += 1
        out.append(json.dumps(obj, ensure_ascii=False))
    open(sys.argv[2], "w", encoding="utf-8").write("\\n".join(out) + "\\n")
    def count(value):
        if isinstance(value, str):
            return sum(1 for c in value if ord(c) < 0x20 and c not in "\\t\\n\\r")
        if isinstance(value, dict):
            return sum(count(k) + count(v) for k, v in value.items())
        if isinstance(value, list):
            return sum(count(v) for v in value)
        return 0
    print(sum(count(json.loads(line)) for line in out))
    """

  /// The Records of an export XML whose type is `type`, counted by Python's parser.
  static let recordsOfType = """
    import sys, zipfile, xml.etree.ElementTree as ET
    path = sys.argv[1]
    if path.endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            data = z.read("apple_health_export/export.xml")
    else:
        data = open(path, "rb").read()
    root = ET.fromstring(data)
    print(sum(1 for r in root.iter("Record") if r.get("type") == sys.argv[2]))
    """

  @Test("JSON Lines or CSV to XML: the control characters XML forbids are counted in a warning")
  func controlCharactersToXML() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let sample = Harness.samples.appendingPathComponent("export.xml").path
    let clean = directory.appendingPathComponent("clean.jsonl").path
    #expect(try Harness.run(["convert", sample, "--to", "jsonl", "-o", clean]).status == 0)
    let input = directory.appendingPathComponent("controls.jsonl").path
    let expected = try Self.python(Self.jsonLinesWithControls, [clean, input]).trimmingCharacters(
      in: .whitespacesAndNewlines)
    #expect(expected == "11")

    for (format, name) in [("xml", "out.xml"), ("zip", "out.zip")] {
      let output = directory.appendingPathComponent(name).path
      let result = try Harness.run(["convert", input, "--to", format, "-o", output])
      #expect(result.status == 0, "stderr: \(result.stderr)")
      #expect(
        result.stderr.contains("warning: removed \(expected) control character(s) that XML 1.0 forbids"),
        "--to \(format) stderr: \(result.stderr)")
      // The records are kept, their type without the characters.
      let kept = try Self.python(Self.recordsOfType, [output, "HKQuantityTypeIdentifierctl"])
      #expect(kept.trimmingCharacters(in: .whitespacesAndNewlines) == "5", "--to \(format)")
    }
    // Without control characters, no such warning.
    let plain = try Harness.run(["convert", clean, "--to", "xml", "-o", directory.appendingPathComponent("p.xml").path])
    #expect(plain.status == 0 && !plain.stderr.contains("control character"), "stderr: \(plain.stderr)")

    // CSV input: three rows whose type holds one control character each (a raw byte in the file).
    let csv = directory.appendingPathComponent("records.csv").path
    #expect(try Harness.run(["convert", sample, "--to", "csv", "-o", csv]).status == 0)
    let edit = """
      import sys
      lines = open(sys.argv[1], encoding="utf-8").read().split("\\n")
      for i in range(1, 4):
          lines[i] = lines[i].replace("HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierStep\\u0007Count", 1)
      open(sys.argv[2], "w", encoding="utf-8").write("\\n".join(lines))
      print(sum(line.count("\\u0007") for line in lines))
      """
    let csvInput = directory.appendingPathComponent("controls.csv").path
    let csvCount = try Self.python(edit, [csv, csvInput]).trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(csvCount == "3")
    let fromCSV = try Harness.run([
      "convert", csvInput, "--to", "xml", "-o", directory.appendingPathComponent("csv.xml").path,
    ])
    #expect(fromCSV.status == 0, "stderr: \(fromCSV.stderr)")
    #expect(
      fromCSV.stderr.contains("warning: removed 3 control character(s) that XML 1.0 forbids"),
      "stderr: \(fromCSV.stderr)")
  }
}
