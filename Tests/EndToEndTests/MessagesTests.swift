import Foundation
import Testing

/// Messages and small things a user trips over: names, hints, formats, warnings.
@Suite("Messages")
struct MessagesTests {
  static let sample = Harness.samples.appendingPathComponent("export.xml")

  /// Runs `python3 -c script args…` with `stdin` and returns its stdout.
  @discardableResult
  static func python(_ script: String, _ arguments: [String] = [], stdin: String? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script] + arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    let input = Pipe()
    process.standardInput = input
    try process.run()
    try input.fileHandleForWriting.write(contentsOf: Data((stdin ?? "").utf8))
    try input.fileHandleForWriting.close()
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

  @Test("no INPUT while stdin is a terminal: a usage error at once, not a silent wait")
  func terminalStdin() throws {
    // The binary runs with a pseudo-terminal as stdin; a wait would hit the 20 s timeout.
    let output = try Self.python(
      """
      import os, pty, subprocess, sys
      master, slave = pty.openpty()
      for args in (['info'], ['steps'], ['convert', '--to', 'csv']):
          p = subprocess.Popen([sys.argv[1]] + args, stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
          try:
              out, err = p.communicate(timeout=20)
              print(p.returncode, len(out), err.decode().splitlines()[0])
          except subprocess.TimeoutExpired:
              p.kill()
              print('waited')
      # `-` reads the terminal, after a note; Ctrl-D ends the (empty) input. A terminal's end of
      # input is not sticky, and the reader looks again after the first: Ctrl-D until it ends.
      import time
      p = subprocess.Popen([sys.argv[1], 'info', '-'], stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
      for _ in range(50):
          if p.poll() is not None:
              break
          os.write(master, b'\\x04')
          time.sleep(0.2)
      try:
          out, err = p.communicate(timeout=20)
          print(p.returncode, err.decode().splitlines()[0])
      except subprocess.TimeoutExpired:
          p.kill()
          print('waited')
      """, [Harness.binary.path])
    var lines = output.split(separator: "\n").map(String.init)
    #expect(lines.count == 4, "\(output)")
    let dash = lines.popLast() ?? ""
    #expect(
      dash.hasSuffix("healthport info: reading an export from stdin (the terminal); end it with Ctrl-D"), "\(dash)")
    for (line, command) in zip(lines, ["info", "steps", "convert"]) {
      #expect(line.hasPrefix("64 0 healthport \(command): error: no INPUT, and stdin is a terminal"), "\(line)")
    }
  }

  @Test(
    "format names: any case; an unknown one is named with the choices",
    arguments: [
      (["--to", "CSV"], 0, "\"type\",\"sourceName\","), (["--to", "Jsonl"], 0, "{\"kind\":\"header\""),
      (["--to", "avro"], 64, "unknown format 'avro' for --to (one of csv, jsonl, json, xml, zip, sqlite, parquet)"),
      (["--to", "jsnol"], 64, "did you mean 'jsonl'?"),
      (["--to", "2024-01-01"], 64, "missing --to csv|jsonl|json|xml|zip|sqlite|parquet"),
    ])
  func convertFormats(arguments: [String], status: Int32, text: String) throws {
    let result = try Harness.run(["convert", Self.sample.path, "--quiet"] + arguments)
    #expect(result.status == status, "stderr: \(result.stderr)")
    #expect((status == 0 ? result.stdoutText : result.stderr).contains(text), "stderr: \(result.stderr)")
  }

  @Test("-v is --version")
  func shortVersion() throws {
    let short = try Harness.run(["-v"])
    #expect(short.status == 0)
    #expect(short.stdoutText == (try Harness.run(["--version"])).stdoutText)
    #expect(short.stdoutText.hasPrefix("healthport "))
  }

  @Test("steps --to json: --to ends the date range here, the hint names --format json")
  func toJSONHint() throws {
    let result = try Harness.run(["steps", Self.sample.path, "--to", "json"])
    #expect(result.status == 64)
    #expect(result.stderr.contains("use --format json"), "stderr: \(result.stderr)")
  }

  @Test("a healthport database given as INPUT is named for what it is", arguments: ["steps", "info", "convert"])
  func databaseInput(command: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let database = directory.appendingPathComponent("g.db").path
    let load = try Harness.run(["load", Self.sample.path, "--db", database, "--quiet"])
    try #require(load.status == 0, "stderr: \(load.stderr)")
    let result = try Harness.run([command, database] + (command == "convert" ? ["--to", "csv"] : []))
    #expect(result.status == 65)
    #expect(result.stderr.hasPrefix(database + ": error: this is a SQLite database"), "stderr: \(result.stderr)")
  }

  @Test(
    "without --format, -o picks the format from its extension",
    arguments: [
      ("steps.csv", [String](), Harness.csvHeader("period,steps,samples")), ("steps.JSON", [], "[\n  {\"period\": "),
      ("steps.txt", [], "period "), ("steps.csv", ["--format", "table"], "period "),
    ])
  func outputExtension(name: String, extra: [String], prefix: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = directory.appendingPathComponent(name).path
    let result = try Harness.run(["steps", Self.sample.path, "-o", output] + extra)
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let written = try String(contentsOfFile: output, encoding: .utf8)
    #expect(written.hasPrefix(prefix), "\(written.prefix(80))")
  }

  @Test("the progress bar shows no rate or time left before it has measured one")
  func progressFirstFrame() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    // An export over the bar's 64 MiB threshold; stderr is a pseudo-terminal so that the bar shows.
    // The first frames are read, then the run is stopped.
    let output = try Self.python(
      """
      import os, pty, subprocess, sys
      path = sys.argv[2]
      with open(path, 'w') as f:
          f.write('<?xml version="1.0" encoding="UTF-8"?>\\n<HealthData locale="en_US">\\n')
          line = (' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count"'
                  ' startDate="2024-01-02 08:00:00 +0100" endDate="2024-01-02 08:05:00 +0100" value="12"/>\\n')
          f.write(line * (70_000_000 // len(line)))
          f.write('</HealthData>\\n')
      master, slave = pty.openpty()
      p = subprocess.Popen([sys.argv[1], 'info', path], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=slave)
      os.close(slave)
      data = b''
      while data.count(b'\\r') < 2:
          try:
              chunk = os.read(master, 65536)
          except OSError:
              break
          if not chunk:
              break
          data += chunk
      p.kill()
      p.wait()
      print(data.decode().split('\\r')[1])
      """, [Harness.binary.path, directory.appendingPathComponent("big.xml").path])
    #expect(output.hasPrefix("[") && output.contains("/70 MB"), "\(output)")
    #expect(!output.contains("MB/s") && !output.contains("left"), "\(output)")
  }

  @Test(
    "a source option that matches nothing in the input gets a warning with the closest name",
    arguments: [
      (["steps", "--source-product", "Wacth"], "warning: --source-product 'Wacth' matches no source", "'Watch'"),
      (
        ["steps", "--dedupe", "--priority", "Garmin,Watch"], "warning: --priority 'Garmin' matches no source",
        "'iPhone'"
      ),
      (["info", "--source", "Fitbit"], "warning: --source 'Fitbit' is in no source name", "'Pedometer++'"),
      (["convert", "--to", "csv", "--source-product", "iphon"], "warning: --source-product 'iphon'", "'iPhone'"),
    ])
  func unmatchedSources(arguments: [String], warning: String, named: String) throws {
    let result = try Harness.run(arguments + [Self.sample.path])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let lines = result.stderr.split(separator: "\n").filter { $0.contains("warning: --") }
    #expect(lines.count == 1, "stderr: \(result.stderr)")
    #expect(lines.first?.contains(warning) == true, "stderr: \(result.stderr)")
    #expect(lines.first?.contains(named) == true, "stderr: \(result.stderr)")
  }

  @Test(
    "names that match something get no warning",
    arguments: [
      ["steps", "--source-product", "watch"], ["steps", "--dedupe", "--priority", "Pedometer++,iphone"],
      ["info", "--source", "apple watch"],
    ])
  func matchedSources(arguments: [String]) throws {
    let result = try Harness.run(arguments + [Self.sample.path])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    #expect(!result.stderr.contains("warning"), "stderr: \(result.stderr)")
  }
}
