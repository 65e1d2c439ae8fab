import Foundation
import TestSupport
import Testing

/// Paths and a runner for end-to-end tests of the built `healthport` binary.
enum Harness {
  /// The repository root.
  static let repoRoot: URL = TestEnvironment.repoRoot

  /// `../shared/fixtures/real/` beside the project (absent in a user's clone: tests that need it
  /// carry the `.needsRealFixtures` trait and are skipped).
  static let realFixtures: URL = TestEnvironment.realFixtures

  static var hasRealFixtures: Bool { TestEnvironment.hasRealFixtures }

  static let samples: URL = repoRoot.appendingPathComponent("Samples")

  /// The built binary: `HEALTHPORT_BIN`, else the debug build beside the test bundle.
  static let binary: URL = {
    if let path = ProcessInfo.processInfo.environment["HEALTHPORT_BIN"] { return URL(fileURLWithPath: path) }
    let bundle = Bundle.main.bundleURL
    for candidate in [
      bundle.appendingPathComponent("healthport"),
      bundle.deletingLastPathComponent().appendingPathComponent("healthport"),
    ]
    where FileManager.default.isExecutableFile(atPath: candidate.path) {
      return candidate
    }
    return repoRoot.appendingPathComponent(".build/debug/healthport")
  }()

  struct Result {
    var status: Int32
    var stdout: Data
    var stderr: String
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
  }

  /// Runs healthport (or `executable`, e.g. a shell that sets limits first) with `arguments`;
  /// stdin from `stdin` (a file) or empty. Output goes through temporary files so that a full
  /// pipe can never block the child.
  static func run(
    _ arguments: [String], stdin: URL? = nil, in directory: URL? = nil, environment: [String: String] = [:],
    executable: URL? = nil
  ) throws -> Result {
    let scratch = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let outURL = scratch.appendingPathComponent("stdout")
    let errURL = scratch.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let process = Process()
    process.executableURL = executable ?? binary
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    process.standardOutput = try FileHandle(forWritingTo: outURL)
    process.standardError = try FileHandle(forWritingTo: errURL)
    process.standardInput = try stdin.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    let status =
      process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    return Result(
      status: status, stdout: try Data(contentsOf: outURL),
      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
  }

  /// A CSV header line as healthport writes it: the comma-separated `names`, each in quotes, and a
  /// line feed (`csvHeader("period,steps")` is `"period","steps"` and `\n`).
  static func csvHeader(_ names: String) -> String {
    names.split(separator: ",", omittingEmptySubsequences: false).map { "\"\($0)\"" }.joined(separator: ",") + "\n"
  }

  /// A fresh temporary directory for one test.
  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("healthport-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// Parses JSON output into Foundation objects.
  static func json(_ data: Data) throws -> Any { try JSONSerialization.jsonObject(with: data) }

  /// Every real fixture that is a whole export (not the Reyrolle fragments), by path.
  static func realExports() -> [URL] {
    guard hasRealFixtures,
      let files = FileManager.default.enumerator(at: realFixtures, includingPropertiesForKeys: nil)
    else { return [] }
    return files.compactMap { $0 as? URL }
      .filter { ["xml", "zip"].contains($0.pathExtension) && !$0.path.contains("NicolasReyrolle") }
      .sorted { $0.path < $1.path }
  }
}

extension Harness {
  /// Runs a program other than healthport; its status, with stdout and stderr together.
  static func runTool(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let scratch = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let log = scratch.appendingPathComponent("log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = try FileHandle(forWritingTo: log)
    process.standardError = try FileHandle(forWritingTo: log)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: try Data(contentsOf: log), as: UTF8.self))
  }

  /// Every table of a SQLite database, row by row in rowid order, read by Python's sqlite3 (the
  /// load's own times left out): two databases hold the same data when these are equal.
  static func tableRows(_ database: URL) throws -> String {
    let script = """
      import sqlite3, sys
      db = sqlite3.connect(sys.argv[1])
      for (table,) in db.execute("select name from sqlite_master where type='table' order by name"):
          columns = [c[1] for c in db.execute(f"pragma table_info({table})") if c[1] not in ("started_at", "finished_at", "seconds")]
          without_rowid = db.execute(f"select sql like '%without rowid%' from sqlite_master where name = ?", (table,)).fetchone()[0]
          order = "" if without_rowid else " order by rowid"  # a WITHOUT ROWID table is read in key order
          for row in db.execute(f"select {', '.join(columns)} from {table}{order}"):
              print(table, row)
      print("end of dump")
      """
    let dump = try toolOutput("/usr/bin/env", ["python3", "-c", script, database.path])
    guard dump.hasSuffix("end of dump\n") else {
      throw DumpError(description: "the dump of \(database.path) stopped early")
    }
    return dump
  }

  struct DumpError: Error, CustomStringConvertible { var description: String }

  /// Runs a program other than healthport and returns its stdout (stderr is the test's).
  static func toolOutput(_ path: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }
}
