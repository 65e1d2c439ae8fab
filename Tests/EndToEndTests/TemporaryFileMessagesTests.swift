import Foundation
import Testing

/// A temporary file healthport cannot make is reported on the folder it tried (`$TMPDIR`), with
/// what the file was for; the routes' spool says that TMPDIR chooses another folder.
@Suite struct TemporaryFileMessagesTests {
  static let zip = Harness.samples.appendingPathComponent("export.zip")

  @Test("routes: the spool cannot be made in a TMPDIR that does not exist")
  func routesSpool() throws {
    let folder = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let missing = folder.appendingPathComponent("missing").path
    for arguments in [["routes", Self.zip.path], ["routes", Self.zip.path, "--to", "csv"]] {
      let result = try Harness.run(arguments, environment: ["TMPDIR": missing])
      #expect(result.status == 1, "\(arguments)")
      #expect(
        result.stderr
          == "\(missing): error: cannot create the routes' temporary spool: No such file or directory "
          + "(TMPDIR chooses another folder)\n", "\(arguments)")
      #expect(result.stdout.isEmpty)
    }
  }

  @Test("a zip on stdin: its members wait in a temporary file, which cannot be made")
  func zipOnStdin() throws {
    let folder = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let missing = folder.appendingPathComponent("missing").path
    let result = try Harness.run(
      ["convert", "-", "--to", "jsonl"], stdin: Self.zip, environment: ["TMPDIR": missing])
    #expect(result.status == 1)
    #expect(result.stderr == "\(missing): error: cannot create a temporary file: No such file or directory\n")
    // With a TMPDIR that exists, the same run succeeds.
    let fine = try Harness.run(
      ["convert", "-", "--to", "jsonl"], stdin: Self.zip, environment: ["TMPDIR": folder.path])
    #expect(fine.status == 0, "\(fine.stderr)")
  }
}
