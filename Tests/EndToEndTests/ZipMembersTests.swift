import Foundation
import Testing

/// Zip members as the input holds them: symbolic links, backslashes and names given twice go
/// through `--to zip` (and JSON Lines) unchanged, and `--to xml -o DIR/` refuses what a folder
/// cannot hold as the zip names it. docs/convert.md and docs/outputs.md describe both.
@Suite("Zip members kept as they are")
struct ZipMembersTests {
  /// Writes a zip of the sample export and, after it, the members `members` (Python literals of
  /// `(name, data, unix mode)`), with Python's zipfile, which stores a name's bytes as given.
  static func zip(_ members: String, at path: String) throws {
    let script = """
      import sys, warnings, zipfile
      warnings.simplefilter("ignore")  # zipfile warns of a duplicate name, and writes it
      with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
          z.writestr("apple_health_export/export.xml", open(sys.argv[1], "rb").read())
          for name, data, mode in \(members):
              info = zipfile.ZipInfo(name, (2024, 1, 2, 3, 4, 6))
              info.create_system = 3
              info.external_attr = mode << 16
              info.compress_type = zipfile.ZIP_DEFLATED
              z.writestr(info, data)
      """
    let made = try Harness.runTool(
      "/usr/bin/python3", ["-c", script, Harness.samples.appendingPathComponent("export.xml").path, path])
    try #require(made.status == 0, "\(made.output)")
  }

  /// Every member of the zip at `path` in order: its name's bytes (hex), its Unix file type
  /// (`link`, `file`, `dir`) and its data's bytes (hex), as Python's zipfile reads them.
  static func listing(_ path: String) throws -> [String] {
    let script = """
      import sys, zipfile
      with zipfile.ZipFile(sys.argv[1]) as z:
          for info in z.infolist():
              kind = {0o120000: "link", 0o040000: "dir"}.get((info.external_attr >> 16) & 0o170000, "file")
              if info.filename.endswith("/"):
                  kind = "dir"
              print(info.orig_filename.encode("utf-8", "surrogateescape").hex(), kind, z.read(info).hex())
      """
    let listed = try Harness.runTool("/usr/bin/python3", ["-c", script, path])
    try #require(listed.status == 0, "\(listed.output)")
    return listed.output.split(separator: "\n").map(String.init)
  }

  static let members = """
    [
        ("apple_health_export/notes.txt", b"first", 0o100644),
        ("apple_health_export/latest", b"export.xml", 0o120777),
        ("apple_health_export/escape", b"../../../etc/passwd", 0o120777),
        ("apple_health_export/C:\\\\evil\\\\win.txt", b"windows", 0o100644),
        ("C:\\\\evil\\\\win.txt", b"top", 0o100644),
        ("apple_health_export/r\\u00e9sum\\u00e9.txt", b"utf-8", 0o100644),
        ("apple_health_export/notes.txt", b"second", 0o100644),
        ("apple_health_export/routes/", b"", 0o040755),
        ("apple_health_export/routes/today", b"../latest", 0o120777),
    ]
    """

  @Test(
    "--to zip keeps symbolic links, backslashes and duplicate names, directly and through JSON Lines",
    arguments: ["1", "2"])
  func zipKeepsMembers(threads: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("in.zip").path
    try Self.zip(Self.members, at: input)
    let want = try Self.listing(input)
    #expect(want.count == 10)
    #expect(want.filter { $0.contains(" link ") }.count == 3, "\(want)")
    let environment = ["HEALTHPORT_THREADS": threads]
    let copy = directory.appendingPathComponent("copy.zip").path
    let direct = try Harness.run(["convert", input, "--to", "zip", "-o", copy, "-q"], environment: environment)
    #expect(direct.status == 0, "stderr: \(direct.stderr)")
    #expect(try Self.listing(copy) == want)
    // Through JSON Lines and back.
    let jsonl = directory.appendingPathComponent("in.jsonl").path
    let lines = try Harness.run(["convert", input, "--to", "jsonl", "-o", jsonl, "-q"], environment: environment)
    #expect(lines.status == 0, "stderr: \(lines.stderr)")
    let back = directory.appendingPathComponent("back.zip").path
    let again = try Harness.run(["convert", jsonl, "--to", "zip", "-o", back, "-q"], environment: environment)
    #expect(again.status == 0, "stderr: \(again.stderr)")
    #expect(try Self.listing(back) == want)
  }

  @Test(
    "--to xml -o DIR/ refuses a symbolic link, a backslash and a name given twice, naming the member",
    arguments: [
      (
        #"[("apple_health_export/latest", b"export.xml", 0o120777)]"#,
        "('apple_health_export/latest') is a symbolic link"
      ),
      (
        #"[("apple_health_export/C:\\evil\\win.txt", b"w", 0o100644)]"#,
        #"('apple_health_export/C:\evil\win.txt') holds a backslash"#
      ),
      (#"[("C:\\evil\\win.txt", b"w", 0o100644)]"#, #"('C:\evil\win.txt') holds a backslash"#),
      (
        #"[("apple_health_export/a.txt", b"1", 0o100644), ("apple_health_export/a.txt", b"2", 0o100644)]"#,
        "two members named 'apple_health_export/a.txt'"
      ),
    ])
  func folderRefuses(members: String, message: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("in.zip").path
    try Self.zip(members, at: input)
    let out = directory.appendingPathComponent("out").path + "/"
    let result = try Harness.run(["convert", input, "--to", "xml", "-o", out, "-q"])
    #expect(result.status == 65, "stderr: \(result.stderr)")
    #expect(result.stderr.contains("\(input): error: "), "stderr: \(result.stderr)")
    #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["in.zip"], "nothing written")
  }

  @Test("--to xml -o DIR/ refuses a member whose name holds a NUL, naming it whole, not cut short there")
  func folderRefusesNUL() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("in.zip").path
    try Self.zip(#"[("apple_health_export/noXes.txt", b"notes", 0o100644)]"#, at: input)
    // Python's ZipInfo cuts a name at a NUL, so the NUL goes into the bytes afterwards, in the
    // local header and in the central directory alike.
    let patch = """
      import sys
      raw = open(sys.argv[1], "rb").read()
      assert raw.count(b"noXes.txt") == 2
      open(sys.argv[1], "wb").write(raw.replace(b"noXes.txt", b"no\\x00es.txt"))
      """
    let patched = try Harness.runTool("/usr/bin/python3", ["-c", patch, input])
    try #require(patched.status == 0, "\(patched.output)")
    #expect(try Self.listing(input).contains { $0.hasPrefix(Data("apple_health_export/no\0es.txt".utf8).hex + " ") })
    let out = directory.appendingPathComponent("out").path + "/"
    let result = try Harness.run(["convert", input, "--to", "xml", "-o", out, "-q"])
    #expect(result.status == 65, "stderr: \(result.stderr)")
    #expect(
      result.stderr.contains(#"\#(input): error: member 2 ('apple_health_export/no\0es.txt') holds a NUL"#),
      "stderr: \(result.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["in.zip"], "nothing written")
  }
}

extension Data {
  /// The bytes in lowercase hexadecimal, as Python's `bytes.hex()` writes them.
  fileprivate var hex: String { map { String(format: "%02x", $0) }.joined() }
}
