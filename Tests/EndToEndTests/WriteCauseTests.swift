import Foundation
import Testing

/// A write that fails names the user's path and the system's cause, whatever the output:
/// docs/errors.md.
@Suite("Write failures name the cause")
struct WriteCauseTests {
  @Test("a file size limit while writing a new SQLite database names the cause, not SQLite's codes")
  func sqliteWriteCause() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let database = directory.appendingPathComponent("out.db").path
    // Files may not grow past 1 KiB (ulimit -f), so the database's first pages fail (EFBIG).
    let result = try Harness.run(
      [
        "-c", "trap '' XFSZ; ulimit -f 1; exec \"$0\" \"$@\"", Harness.binary.path, "convert",
        Harness.samples.appendingPathComponent("export.zip").path, "--to", "sqlite", "-o", database, "-q",
      ], executable: URL(fileURLWithPath: "/bin/sh"))
    #expect(result.status == 1, "stderr: \(result.stderr)")
    #expect(
      result.stderr.contains("\(database): error: cannot write the database: File too large"),
      "stderr: \(result.stderr)")
    #expect(!result.stderr.contains("SQLite error"), "stderr: \(result.stderr)")
    #expect(!result.stderr.contains(".healthport-"), "no temporary path: \(result.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [], "nothing left behind")
  }
}
