import Foundation
import Testing

/// A zip cut short: one verdict, naming the member it ends inside (issue 30, item 8).
@Suite("A truncated zip")
struct TruncatedZipTests {
  /// The generated bundle zipped with export.xml first, then its routes by name, and cut at
  /// `cut` (a fraction of the offset where a member's data begins and ends, by Python's zipfile):
  /// the zip's path and the sizes and paths of its members.
  /// With `fraction` above 1, the zip is cut that many bytes into its central directory instead.
  /// With `hole`, 100 bytes are taken out of that member's data instead, and the offsets after
  /// them mended: the end-of-central-directory record stays, and tells how many members there are.
  static func cutZip(member: Int, fraction: Double, hole: Bool = false) throws -> (
    zip: URL, members: [(path: String, size: Int)]
  ) {
    let top = try Harness.temporaryDirectory()
    let zip = top.appendingPathComponent("export.zip")
    let script = """
      import sys, zipfile, os, struct
      src, out, member, fraction = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
      hole = sys.argv[5] == 'hole'
      names = ['export.xml'] + ['workout-routes/' + n for n in sorted(os.listdir(os.path.join(src, 'workout-routes')))]
      with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
          for n in names: z.write(os.path.join(src, n), 'apple_health_export/' + n)
      with zipfile.ZipFile(out) as z:
          infos = z.infolist()
      data = open(out, 'rb').read()
      info = infos[member]
      start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
      at = start + int(info.compress_size * fraction)
      if fraction > 1:
          with zipfile.ZipFile(out) as z:
              at = z.start_dir + int(fraction)
      if hole:
          data = bytearray(data[:at] + data[at + 100:])
          end = data.rfind(b'PK\\x05\\x06')
          directory = struct.unpack('<I', data[end + 16:end + 20])[0] - 100
          data[end + 16:end + 20] = struct.pack('<I', directory)
          p = directory
          while data[p:p + 4] == b'PK\\x01\\x02':
              n, e, c = struct.unpack('<HHH', data[p + 28:p + 34])
              local = struct.unpack('<I', data[p + 42:p + 46])[0]
              if local > at:
                  data[p + 42:p + 46] = struct.pack('<I', local - 100)
              p += 46 + n + e + c
          open(out, 'wb').write(data)
      else:
          open(out, 'wb').write(data[:at])
      for i in infos: print(i.filename, i.file_size)
      """
    let listing = try Harness.toolOutput(
      "/usr/bin/env",
      [
        "python3", "-c", script, GeneratedBundle.exportFolder.path, zip.path, "\(member)", "\(fraction)",
        hole ? "hole" : "cut",
      ])
    let members = listing.split(separator: "\n").map { line in
      let parts = line.split(separator: " ")
      return (path: String(parts[0]), size: Int(parts[1]) ?? -1)
    }
    return (zip, members)
  }

  static func grouped(_ value: Int) -> String {
    let formatter = NumberFormatter()
    formatter.numberStyle = .decimal
    formatter.locale = Locale(identifier: "en_US")
    return formatter.string(from: NSNumber(value: value)) ?? "\(value)"
  }

  @Test("cut inside export.xml: the file ends inside it (read X of Y bytes), exit 65", arguments: [0.3, 0.9])
  func cutInsideExport(fraction: Double) throws {
    let (zip, members) = try Self.cutZip(member: 0, fraction: fraction)
    defer { try? FileManager.default.removeItem(at: zip.deletingLastPathComponent()) }
    for command in [["info"], ["steps"], ["routes"], ["convert", "--to", "csv"]] {
      for stdin in [false, true] {
        let result = try Harness.run(command + [stdin ? "-" : zip.path], stdin: stdin ? zip : nil)
        let name = stdin ? "<stdin>" : zip.path
        #expect(result.status == 65, "\(command) \(stdin): \(result.stderr)")
        #expect(
          result.stderr.hasPrefix(
            "\(name): error: the file ends inside member 'apple_health_export/export.xml' (read "),
          "\(command) \(stdin): \(result.stderr)")
        #expect(
          result.stderr.contains(" of \(Self.grouped(members[0].size)) bytes)\n"), "\(command): \(result.stderr)")
        #expect(!result.stderr.contains("decompression failed"))
      }
    }
  }

  @Test("export whole, cut inside a route: answers warn (exit 0); outputs with members stop unless --skip-invalid")
  func cutAfterExport() throws {
    let (zip, members) = try Self.cutZip(member: 2, fraction: 0.5)
    let top = zip.deletingLastPathComponent()
    defer { try? FileManager.default.removeItem(at: top) }
    let verdict = "is truncated: it ends inside member '\(members[2].path)' (2 members whole before it"
    let whole = try Harness.run(["steps", GeneratedBundle.zip.path, "--by", "year"])
    for stdin in [false, true] {
      let input = stdin ? "-" : zip.path
      let name = stdin ? "<stdin>" : zip.path
      for command in [["steps", "--by", "year"], ["workouts"], ["stats", "--type", "HeartRate"], ["sleep"], ["info"]] {
        let result = try Harness.run(command + [input], stdin: stdin ? zip : nil)
        #expect(result.status == 0, "\(command) \(stdin): \(result.stderr)")
        #expect(result.stderr.contains("warning: \(name) \(verdict)"), "\(command) \(stdin): \(result.stderr)")
        if command[0] == "steps" { #expect(result.stdout == whole.stdout) }
        if command[0] == "info" {
          // The routes past the cut are not said to be missing from the export.
          #expect(result.stderr.contains("which the export does not hold before the point where the zip is cut"))
        }
      }
      let outputs: [[String]] = [
        ["routes"], ["convert", "--to", "jsonl"], ["convert", "--to", "zip", "-o", top.path + "/back.zip"],
        ["convert", "--to", "csv", "--split", "-o", top.path + "/split"],
        ["convert", "--to", "parquet", "-o", top.path + "/parquet"], ["load", "--db", top.path + "/h.db"],
      ]
      for command in outputs {
        let failed = try Harness.run(command + [input], stdin: stdin ? zip : nil)
        #expect(failed.status == 65, "\(command) \(stdin): \(failed.stderr)")
        #expect(
          failed.stderr.contains("\(name): error: the file is truncated: it ends inside member '\(members[2].path)'"),
          "\(command) \(stdin): \(failed.stderr)")
        let skipped = try Harness.run(command + ["--skip-invalid", input], stdin: stdin ? zip : nil)
        #expect(skipped.status == 0, "\(command) \(stdin): \(skipped.stderr)")
        #expect(skipped.stderr.contains("warning: \(name) \(verdict)"), "\(command) \(stdin): \(skipped.stderr)")
        for path in ["back.zip", "split", "parquet", "h.db"] {
          try? FileManager.default.removeItem(at: top.appendingPathComponent(path))
        }
      }
    }
  }

  @Test("a zip with its end record but a member short: N of M members whole, from the central directory")
  func memberShortOfItsSize() throws {
    let (zip, members) = try Self.cutZip(member: 3, fraction: 0.5, hole: true)
    let top = zip.deletingLastPathComponent()
    defer { try? FileManager.default.removeItem(at: top) }
    let verdict = "it ends inside member '\(members[3].path)' (3 of \(members.count) members whole)"
    for command in [["steps"], ["info"]] {
      let result = try Harness.run(command + [zip.path])
      #expect(result.status == 0, "\(command): \(result.stderr)")
      #expect(result.stderr.contains("warning: \(zip.path) is truncated: \(verdict)"), "\(command): \(result.stderr)")
    }
    let load = try Harness.run(["load", zip.path, "--db", top.path + "/h.db"])
    #expect(load.status == 65, "\(load.stderr)")
    #expect(load.stderr.contains("\(zip.path): error: the file is truncated: \(verdict)"), "\(load.stderr)")
  }

  @Test("a zip file cut inside its central directory: every member whole, a warning, exit 0 for every command")
  func cutInsideDirectory() throws {
    let (zip, members) = try Self.cutZip(member: 0, fraction: 10)
    let top = zip.deletingLastPathComponent()
    defer { try? FileManager.default.removeItem(at: top) }
    let verdict = "\(zip.path) is truncated: its central directory is cut off (all \(members.count) members whole)"
    for command in [
      ["steps"], ["info"], ["load", "--db", top.path + "/h.db"], ["routes", "-o", top.path + "/r.json"],
    ] {
      let result = try Harness.run(command + [zip.path])
      #expect(result.status == 0, "\(command): \(result.stderr)")
      #expect(result.stderr.contains("warning: \(verdict)"), "\(command): \(result.stderr)")
    }
  }
}
