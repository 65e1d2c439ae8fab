import Foundation
import TestSupport
import Testing

/// Hostile input stays inert and bounded: it is stopped with a clear error, within bounded
/// memory and time (each case is generated here, so nothing large is committed).
@Suite("Hostile input")
struct HostileInputTests {
  static let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"

  func write(_ data: Data, _ name: String, in directory: URL) throws -> URL {
    let url = directory.appendingPathComponent(name)
    try data.write(to: url)
    return url
  }

  @Test("very deep nesting is stopped (at 256 levels)")
  func deepNesting() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let depth = 100_000
    let text =
      Self.head + String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth) + "</HealthData>\n"
    let file = try write(Data(text.utf8), "deep.xml", in: directory)
    let result = try Harness.run(["info", file.path])
    #expect(result.status == 65)
    #expect(result.stderr.contains("nested deeper than 256 levels"), "stderr: \(result.stderr)")
  }

  @Test("a huge attribute value is stopped (libxml2's 10 MB limit)")
  func hugeAttribute() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var text = Self.head + " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\""
    text += String(repeating: "x", count: 12_000_000)
    text += "\" startDate=\"2024-01-01 10:00:00 +0100\" endDate=\"2024-01-01 10:00:00 +0100\"/>\n</HealthData>\n"
    let file = try write(Data(text.utf8), "huge.xml", in: directory)
    for threads in ["1", "2"] {
      let result = try Harness.run(["info", file.path], environment: ["HEALTHPORT_THREADS": threads])
      #expect(result.status == 65)
      #expect(
        result.stderr.contains(
          "huge.xml:3:2: error: a tag, name or attribute value over 10 MB (libxml2's limit)"),
        "stderr: \(result.stderr)")
      let skipped = try Harness.run(
        ["info", file.path, "--skip-invalid"], environment: ["HEALTHPORT_THREADS": threads])
      #expect(skipped.status == 0, "stderr: \(skipped.stderr)")
      #expect(
        skipped.stderr.contains("over 10 MB (libxml2's limit); skipped the damaged element"),
        "stderr: \(skipped.stderr)")
    }
  }

  /// A big input (300 MB inflated; the debug build takes about a minute to read the 64 MB after which
  /// the ratio is checked): `make stress` runs it.
  @Test("a zip bomb (an extreme compression ratio) is stopped", .stress)
  func zipBomb() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let zip = directory.appendingPathComponent("bomb.zip")
    // 300 MB of blanks inside a HealthData root deflate about 1000:1.
    let script = """
      import sys, zipfile
      with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
          with z.open("apple_health_export/export.xml", "w", force_zip64=True) as f:
              f.write(b'<?xml version="1.0"?>\\n<HealthData locale="en_US">\\n')
              block = b" " * (1 << 20)
              for _ in range(300):
                  f.write(block)
              f.write(b"</HealthData>\\n")
      """
    let python = Process()
    python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    python.arguments = ["python3", "-c", script, zip.path]
    try python.run()
    python.waitUntilExit()
    try #require(python.terminationStatus == 0)
    let result = try Harness.run(["info", zip.path])
    #expect(result.status == 65)
    #expect(
      result.stderr.contains("the member apple_health_export/export.xml inflates more than"), "stderr: \(result.stderr)"
    )
    #expect(result.stderr.contains("zip bomb"), "stderr: \(result.stderr)")
  }

  /// The same stop on a small input: a member that is not parsed but copied (`--to zip` and
  /// `-o DIR/` inflate every member), 80 MB of zeros deflated to about 80 KB.
  @Test("a zip bomb in a member only copied is stopped, naming the member; nothing is written")
  func zipBombCopied() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let zip = directory.appendingPathComponent("bomb.zip")
    let script = """
      import sys, zipfile
      with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
          z.writestr("apple_health_export/export.xml", open(sys.argv[1], "rb").read())
          with z.open("apple_health_export/junk.bin", "w", force_zip64=True) as f:
              for _ in range(80):
                  f.write(bytes(1 << 20))
      """
    let made = try Harness.runTool(
      "/usr/bin/python3", ["-c", script, Harness.samples.appendingPathComponent("export.xml").path, zip.path])
    try #require(made.status == 0, "\(made.output)")
    for (format, output) in [("zip", "copy.zip"), ("xml", "copy/")] {
      let path = directory.appendingPathComponent(output).path + (output.hasSuffix("/") ? "/" : "")
      let result = try Harness.run(["convert", zip.path, "--to", format, "-o", path, "-q"])
      #expect(result.status == 65, "--to \(format): \(result.stderr)")
      #expect(
        result.stderr.contains(
          "\(zip.path): error: the member apple_health_export/junk.bin inflates more than 100:1 (a zip bomb?)"),
        "--to \(format): \(result.stderr)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["bomb.zip"], "nothing written")
  }

  @Test("a full disk ends with a clear message (stdout on /dev/full)")
  func fullDisk() throws {
    try #require(FileManager.default.fileExists(atPath: "/dev/full"), "/dev/full is missing")
    let process = Process()
    process.executableURL = Harness.binary
    process.arguments = [
      "convert", Harness.samples.appendingPathComponent("export.xml").path, "--to", "xml", "--quiet",
    ]
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 1)
    #expect(stderr.contains("No space left on device"), "stderr: \(stderr)")
  }
}

@Suite("Known quirks are reported as warnings")
struct QuirkWarningTests {
  static let workouts: [String] = [
    "workout_cycling.xml", "workout_hiking.xml", "workout_running.xml", "workout_running_multiple_parts.xml",
    "workout_running_usaint_bolt.xml", "workout_strength.xml", "workout_swimming.xml", "workout_walking.xml",
  ]

  /// All eight real 2026 workouts write their metadata block twice.
  @Test("the duplicated workout metadata block of modern exports", .needsRealFixtures, arguments: workouts)
  func duplicatedMetadata(file: String) throws {
    let fragment = Harness.realFixtures.appendingPathComponent("NicolasReyrolle-apple-health-analyzer/\(file)")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let wrapped = directory.appendingPathComponent("export.xml")
    let body = try String(contentsOf: fragment, encoding: .utf8)
    try ("<HealthData locale=\"en_US\">\n " + body + "\n</HealthData>\n").write(
      to: wrapped, atomically: true, encoding: .utf8)
    let result = try Harness.run(["info", wrapped.path, "--format", "json"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let json = try #require(try Harness.json(result.stdout) as? [String: Any])
    let warnings = json["warnings"] as? [String] ?? []
    #expect(warnings.contains { $0.hasPrefix("1 workout(s) with their metadata block written twice") }, "\(warnings)")
  }

  @Test("records without a value are counted")
  func recordsWithoutValue() throws {
    let export = Harness.samples.appendingPathComponent("export.xml")
    let text = try String(contentsOf: export, encoding: .utf8)
    // Independent count: top-level Record lines without a value attribute.
    let expected = text.split(separator: "\n").filter { $0.hasPrefix(" <Record ") && !$0.contains(" value=\"") }.count
    try #require(expected > 0)
    let result = try Harness.run(["info", export.path, "--format", "json"])
    let json = try #require(try Harness.json(result.stdout) as? [String: Any])
    let warnings = json["warnings"] as? [String] ?? []
    #expect(warnings.contains { $0.hasPrefix("\(expected) record(s) without a value") }, "\(warnings)")
  }
}
