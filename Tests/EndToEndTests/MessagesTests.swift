import Foundation
import Testing

/// Messages and small things a user trips over: names, hints, formats, warnings.
@Suite("Messages")
struct MessagesTests {
  static let sample = Harness.samples.appendingPathComponent("export.xml")

  /// Runs `python3 -c script args…` and returns its stdout.
  @discardableResult
  static func python(_ script: String, _ arguments: [String] = []) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script] + arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "python failed")
    return String(decoding: data, as: UTF8.self)
  }

  @Test("a zip member whose name is stored with the UTF-8 flag keeps its name")
  func utf8ZipMemberName() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let zip = directory.appendingPathComponent("export.zip").path
    // Python's zipfile sets the UTF-8 flag (0x800) for a non-ASCII name; it prints the flag bits.
    let flags = try Self.python(
      """
      import sys, zipfile
      with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
          z.writestr('apple_health_export/导出.xml', open(sys.argv[2], 'rb').read())
      print(zipfile.ZipFile(sys.argv[1]).infolist()[0].flag_bits & 0x800)
      """, [zip, Self.sample.path])
    #expect(flags == "2048\n")
    let result = try Harness.run(["info", zip, "--format", "json"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let json = try #require(try Harness.json(result.stdout) as? [String: Any])
    let input = try #require(json["input"] as? [String: Any])
    #expect(input["path"] as? String == zip + ":apple_health_export/导出.xml")

    // An error inside the member names it too: a member cut in the middle of a Record.
    let cut = directory.appendingPathComponent("cut.zip").path
    try Self.python(
      """
      import sys, zipfile
      data = open(sys.argv[2], 'rb').read()
      with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
          z.writestr('导出.xml', data[:data.index(b'<Workout ') + 20])
      """, [cut, Self.sample.path])
    let failed = try Harness.run(["info", cut])
    #expect(failed.status == 65)
    #expect(failed.stderr.hasPrefix(cut + ":导出.xml:"), "stderr: \(failed.stderr)")
  }
}
