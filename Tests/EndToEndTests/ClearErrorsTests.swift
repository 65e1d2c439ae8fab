import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Input healthport cannot read is named for what it is, with how to fix it.
@Suite("clear errors")
struct ClearErrorsTests {
  /// The sample export in another encoding, by `iconv` (not healthport).
  static func encoded(_ encoding: String, in directory: URL) throws -> URL {
    let target = directory.appendingPathComponent("export-\(encoding).xml")
    let script = "iconv -f UTF-8 -t \(encoding) \"$0\" > \"$1\""
    let result = try Harness.runTool(
      "/bin/sh", ["-c", script, Harness.samples.appendingPathComponent("export.xml").path, target.path])
    #expect(result.status == 0, "\(result.output)")
    return target
  }

  @Test(
    "a UTF-16 export is named as such, with the iconv that converts it",
    arguments: [("UTF-16", "with a byte-order mark", "-f UTF-16 "), ("UTF-16LE", "no byte-order mark", "-f UTF-16LE ")])
  func utf16(encoding: String, what: String, hint: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = try Self.encoded(encoding, in: directory)
    let result = try Harness.run(["info", file.path])
    #expect(result.status == 65, "stderr: \(result.stderr)")
    #expect(result.stderr.contains("\(file.path):1:1: error: the document is UTF-16"), "stderr: \(result.stderr)")
    #expect(result.stderr.contains(what) && result.stderr.contains("iconv \(hint)-t UTF-8"), "stderr: \(result.stderr)")
    // The hint works: the converted file reads as the sample does.
    let converted = directory.appendingPathComponent("export-utf8.xml")
    let iconv = try Harness.runTool(
      "/bin/sh", ["-c", "iconv \(hint)-t UTF-8 \"$0\" > \"$1\"", file.path, converted.path])
    #expect(iconv.status == 0, "\(iconv.output)")
    let back = try Harness.run(["info", converted.path, "--format", "json"])
    let sample = try Harness.run([
      "info", Harness.samples.appendingPathComponent("export.xml").path, "--format", "json",
    ])
    #expect(back.status == 0)
    let records = { (data: Data) in ((try? Harness.json(data)) as? [String: Any])?["recordCount"] as? Int }
    #expect(records(back.stdout) != nil && records(back.stdout) == records(sample.stdout))
  }

  @Test("a UTF-8 export whose declaration says UTF-16 is named as such")
  func mislabelled() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let text = try String(contentsOf: Harness.samples.appendingPathComponent("export.xml"), encoding: .utf8)
    let file = directory.appendingPathComponent("export.xml")
    try text.replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding=\"UTF-16\"").write(
      to: file, atomically: true, encoding: .utf8)
    let result = try Harness.run(["info", file.path])
    #expect(result.status == 65, "stderr: \(result.stderr)")
    #expect(result.stderr.contains("says the document is UTF-16, but its bytes are UTF-8"), "stderr: \(result.stderr)")
  }

  @Test(
    "bytes that do not convert from the declared encoding: one located error, no raw libxml2 line",
    arguments: [1, 2])
  func unconvertibleBytes(threads: Int) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("export.xml")
    var bytes = Data("<?xml version=\"1.0\" encoding=\"UTF-7\"?>\n<HealthData>".utf8)
    bytes.append(contentsOf: [0xFF, 0xFE, 0x2B, 0x41, 0x80])
    bytes.append(contentsOf: Array("</HealthData>\n".utf8))
    try bytes.write(to: file)
    let result = try Harness.run(["info", file.path], environment: ["HEALTHPORT_THREADS": "\(threads)"])
    #expect(result.status == 65, "stderr: \(result.stderr)")
    let lines = result.stderr.split(separator: "\n")
    #expect(lines.count == 1, "stderr: \(result.stderr)")
    #expect(lines.first?.hasPrefix("\(file.path):2:") == true, "stderr: \(result.stderr)")
    #expect(
      result.stderr.contains("do not convert from the encoding the document declares"), "stderr: \(result.stderr)")
    // The input did not end early: no truncation hint.
    #expect(!result.stderr.contains("truncated"), "stderr: \(result.stderr)")
  }

  @Test("a zip holding two exports is refused, naming both, whatever reads it")
  func twoExportsInAZip() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let zip = directory.appendingPathComponent("two.zip")
    let script = """
      import sys, zipfile
      data = open(sys.argv[1], "rb").read()
      with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
          z.writestr("apple_health_export/export.xml", data)
          z.writestr("apple_health_export/export_cda.xml", b"<?xml version='1.0'?><ClinicalDocument/>")
          z.writestr("apple_health_export/workout-routes/route_1.gpx", b"<gpx/>")
          z.writestr("other/eksport.xml", data)
      """
    let made = try Harness.runTool(
      "/usr/bin/python3", ["-c", script, Harness.samples.appendingPathComponent("export.xml").path, zip.path])
    #expect(made.status == 0, "\(made.output)")
    let out = directory.appendingPathComponent("out")
    for arguments in [
      ["info", zip.path], ["steps", zip.path], ["convert", zip.path, "--to", "csv", "-o", out.path],
      ["convert", zip.path, "--to", "zip", "-o", out.path + ".zip"], ["convert", "-", "--to", "jsonl", "-o", out.path],
    ] {
      let result = try Harness.run(arguments, stdin: arguments.contains("-") ? zip : nil)
      #expect(result.status == 65, "\(arguments): \(result.stderr)")
      #expect(
        result.stderr.contains("holds two Apple Health exports, apple_health_export/export.xml and other/eksport.xml"),
        "\(arguments): \(result.stderr)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["two.zip"], "no output left")
  }

  @Test(
    "a DOCTYPE with ]> inside a comment, a quoted default or a processing instruction is read",
    arguments: [
      "<!-- an old note: ]> -->", "<!ATTLIST Record note CDATA \"a ]> b\">", "<!ATTLIST Record note CDATA 'it]>s'>",
      "<?note ]> ?>",
    ])
  func doctypeWithBracket(declaration: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let text = try String(contentsOf: Harness.samples.appendingPathComponent("export.xml"), encoding: .utf8)
    let file = directory.appendingPathComponent("export.xml")
    try text.replacingOccurrences(of: "<!DOCTYPE HealthData [\n", with: "<!DOCTYPE HealthData [\n\(declaration)\n")
      .write(to: file, atomically: true, encoding: .utf8)
    #expect(try String(contentsOf: file, encoding: .utf8).contains(declaration))
    // Well-formed, by libxml2's own command-line tool.
    let lint = try Harness.runTool("/usr/bin/xmllint", ["--noout", file.path])
    #expect(lint.status == 0, "\(lint.output)")
    let result = try Harness.run(["info", file.path, "--format", "json"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let sample = try Harness.run([
      "info", Harness.samples.appendingPathComponent("export.xml").path, "--format", "json",
    ])
    let records = { (data: Data) in ((try? Harness.json(data)) as? [String: Any])?["recordCount"] as? Int }
    #expect(records(result.stdout) != nil && records(result.stdout) == records(sample.stdout))
    // The prolog comes back byte for byte.
    let back = directory.appendingPathComponent("back.xml")
    #expect(try Harness.run(["convert", file.path, "--to", "xml", "-o", back.path, "-q"]).status == 0)
    #expect(try Data(contentsOf: back) == Data(contentsOf: file))
  }

  @Test("an ECG sample too long to be a number is a located error; --skip-invalid skips the recording")
  func infiniteECGSample() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let folder = directory.appendingPathComponent("fol")
    let unzip = try Harness.run([
      "convert", Harness.samples.appendingPathComponent("export.zip").path, "--to", "xml", "-o", folder.path + "/",
      "-q",
    ])
    #expect(unzip.status == 0, "stderr: \(unzip.stderr)")
    let ecgs = folder.appendingPathComponent("apple_health_export/electrocardiograms")
    try FileManager.default.createDirectory(at: ecgs, withIntermediateDirectories: true)
    let header = [
      "Name", "Recorded Date,2023-03-04 20:55:07 -0500", "Sample Rate,512 hertz", "", "Lead,Lead I", "Unit,µV", "",
    ]
    let lines = header + ["12.5", "-3.25", String(repeating: "9", count: 400), "7"]
    try (lines.joined(separator: "\n") + "\n").write(
      to: ecgs.appendingPathComponent("ecg_2023-03-04.csv"), atomically: true, encoding: .utf8)
    let result = try Harness.run(["info", folder.path])
    #expect(result.status == 65, "stderr: \(result.stderr)")
    #expect(result.stderr.contains("ecg_2023-03-04.csv:\(header.count + 3):1: error:"), "stderr: \(result.stderr)")
    #expect(result.stderr.contains("too large to be a voltage"), "stderr: \(result.stderr)")
    let skipping = try Harness.run(["info", folder.path, "--format", "json", "--skip-invalid"])
    #expect(skipping.status == 0, "stderr: \(skipping.stderr)")
    #expect(skipping.stderr.contains("skipped the file"), "stderr: \(skipping.stderr)")
    let json = try #require(try Harness.json(skipping.stdout) as? [String: Any])
    let sample = try Harness.run([
      "info", Harness.samples.appendingPathComponent("export.zip").path, "--format", "json",
    ])
    let whole = try #require(try Harness.json(sample.stdout) as? [String: Any])
    #expect(json["recordCount"] as? Int == whole["recordCount"] as? Int, "everything else was read")
    #expect(json["ecgRecordingCount"] as? Int == 0)
  }

  @Test("a zip member without a name, and a full disk under --to zip, are named with their cause")
  func zipWriteCauses() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let zip = directory.appendingPathComponent("unnamed.zip")
    let script = """
      import sys, zipfile
      with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
          z.writestr("apple_health_export/export.xml", open(sys.argv[1], "rb").read())
          z.writestr(zipfile.ZipInfo(""), b"x")
      """
    let made = try Harness.runTool(
      "/usr/bin/python3", ["-c", script, Harness.samples.appendingPathComponent("export.xml").path, zip.path])
    #expect(made.status == 0, "\(made.output)")
    for (format, output, cause) in [
      ("zip", "copy.zip", "member 2 has an empty name, which libarchive cannot write into a zip"),
      ("xml", "copy/", "member 2 has an empty name, which no file can have"),
    ] {
      let path = directory.appendingPathComponent(output).path + (output.hasSuffix("/") ? "/" : "")
      let result = try Harness.run(["convert", zip.path, "--to", format, "-o", path, "-q"])
      #expect(result.status == 65, "stderr: \(result.stderr)")
      #expect(result.stderr.contains("\(zip.path): error: \(cause)"), "stderr: \(result.stderr)")
      #expect(!result.stderr.contains("unknown libarchive error"))
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["unnamed.zip"])
    // A full disk: a node like /dev/full's of the test's own when it may make one, so that a
    // regression (replacing the device with a file) could never touch the system's.
    let node = directory.appendingPathComponent("full").path
    let device = mknod(node, S_IFCHR | 0o666, dev_t(1 << 8 | 7)) == 0 ? node : "/dev/full"
    try #require(FileManager.default.fileExists(atPath: device), "\(device) is missing")
    let full = try Harness.run([
      "convert", Harness.samples.appendingPathComponent("export.zip").path, "--to", "zip", "-o", device, "-q",
    ])
    #expect(full.status == 1, "stderr: \(full.stderr)")
    #expect(
      full.stderr.contains("\(device): error: cannot write the zip archive: Write error: No space left on device"),
      "stderr: \(full.stderr)")
  }

  @Test("a write failing inside a folder output names the folder the user named, not the temporary one")
  func folderWriteErrorsNameTheTarget() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = Harness.samples.appendingPathComponent("export.zip").path
    // Files may not grow past 1 KiB (ulimit -f), so the first table written fails (EFBIG).
    for (arguments, target) in [
      (["convert", input, "--to", "csv", "--split", "-o"], "tables"),
      (["convert", input, "--to", "parquet", "-o"], "dataset"),
      (["convert", input, "--to", "xml", "-o"], "unzipped/"),
    ] {
      let out = directory.appendingPathComponent(target).path + (target.hasSuffix("/") ? "/" : "")
      let result = try Harness.run(
        [
          "-c", "trap '' XFSZ; ulimit -f 1; exec \"$0\" \"$@\"", Harness.binary.path,
        ] + arguments + [out, "--quiet"], executable: URL(fileURLWithPath: "/bin/sh"))
      let named = directory.appendingPathComponent(target).path + "/"
      #expect(result.status == 1, "\(arguments): \(result.stderr)")
      #expect(result.stderr.hasPrefix(named), "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains(": error: cannot write: File too large"), "\(arguments): \(result.stderr)")
      #expect(!result.stderr.contains(".tmp-"), "\(arguments): \(result.stderr)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [], "nothing left behind")
  }

  @Test("an encrypted zip is named as such, with its member, not called damaged")
  func encryptedZip() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let zip = directory.appendingPathComponent("locked.zip")
    // The sample zipped by Python, then marked encrypted (bit 0 of the general-purpose flags, in
    // the local header and the central directory) over bytes that are not the plain ones.
    let script = """
      import struct, sys, zipfile
      data = open(sys.argv[1], "rb").read()
      with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_STORED) as z:
          z.writestr("apple_health_export/export.xml", data)
      raw = bytearray(open(sys.argv[2], "rb").read())
      for signature, offset in ((b"PK\\x03\\x04", 6), (b"PK\\x01\\x02", 8)):
          at = raw.find(signature)
          flags = struct.unpack_from("<H", raw, at + offset)[0]
          struct.pack_into("<H", raw, at + offset, flags | 1)
      start = raw.find(b"<?xml")
      raw[start:start + 12] = bytes(range(12))
      open(sys.argv[2], "wb").write(raw)
      """
    let made = try Harness.runTool(
      "/usr/bin/python3", ["-c", script, Harness.samples.appendingPathComponent("export.xml").path, zip.path])
    #expect(made.status == 0, "\(made.output)")
    for arguments in [
      ["info", zip.path], ["convert", zip.path, "--to", "csv", "-o", directory.appendingPathComponent("out.csv").path],
    ] {
      let result = try Harness.run(arguments)
      #expect(result.status == 65, "\(arguments): \(result.stderr)")
      #expect(
        result.stderr.contains("the member apple_health_export/export.xml is encrypted"),
        "\(arguments): \(result.stderr)")
      #expect(!result.stderr.contains("damaged"), "\(arguments): \(result.stderr)")
    }
  }

  @Test(
    "the 4 MiB prolog cap counts blank lines, before the declaration or after the DOCTYPE, with 1 or 2 parsers",
    arguments: [("before", "1"), ("before", "2"), ("after", "1"), ("after", "2")])
  func prologCap(place: String, threads: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let sample = try Data(contentsOf: Harness.samples.appendingPathComponent("export.xml"))
    let root = try #require(sample.range(of: Data("<HealthData".utf8))).lowerBound
    func file(blanks: Int, _ name: String) throws -> URL {
      let url = directory.appendingPathComponent(name)
      let lines = Data(repeating: 0x0A, count: blanks)
      try (place == "before" ? lines + sample : sample[..<root] + lines + sample[root...]).write(to: url)
      return url
    }
    let environment = ["HEALTHPORT_THREADS": threads]
    // Just under the cap after the DOCTYPE: read as the sample is (before the XML declaration
    // a blank is not well-formed at all).
    if place == "after" {
      let under = try file(blanks: (4 << 20) - root - 64, "under.xml")
      let read = try Harness.run(["info", under.path, "--format", "json"], environment: environment)
      #expect(read.status == 0, "stderr: \(read.stderr)")
    }
    // Blank lines past the cap: refused, whatever reads it (the parallel reader's first range,
    // which holds them all, as well as one parser fed block by block).
    let over = try file(blanks: (4 << 20) + (256 << 10), "over.xml")
    let refused = try Harness.run(["info", over.path], environment: environment)
    #expect(refused.status == 65, "stderr: \(refused.stderr)")
    #expect(
      refused.stderr.contains("the prolog (XML declaration and DOCTYPE) is larger than 4 MiB"), "\(refused.stderr)")
  }
}
