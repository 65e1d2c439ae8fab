import Foundation
import TestSupport
import Testing

/// `make test` for a newcomer (issue 31, section 5): scripts/test-summary.py leaves out the line of
/// each passed and skipped test, prints failures in full, ends with a line per skip reason and
/// `N passed, N failed, N skipped`, and keeps the exit status; no empty XCTest run.
@Suite("make test's summary")
struct TestSummaryTests {
  static let script = Harness.repoRoot.appendingPathComponent("scripts/test-summary.py")

  /// Swift Testing's lines for a run with two passes (one of a parameterised test, whose argument
  /// spans two lines), a failure, a skip for each of two reasons (one twice), a skip without one and
  /// a skipped suite.
  static let run = """
    [0/1] Planning build
    ◇ Test run started.
    ↳ Testing Library Version: 6.3.1 (937120cbc281cf2)
    ↳ Target Platform: x86_64-unknown-linux-gnu
    ◇ Suite "help" started.
    ◇ Test "one" started.
    ✔ Test "one" passed after 0.002 seconds.
    ◇ Test case passing 1 argument text → "two
    lines" to "widths" started.
    ✔ Test "widths" with 5 test cases passed after 1.250 seconds.
    ➜ Test "real" skipped: "../shared/fixtures/real is absent: skipped"
    ➜ Test realToo() skipped: "../shared/fixtures/real is absent: skipped"
    ➜ Test "big" skipped: "a big-input stress test: skipped (make stress runs it)"
    ➜ Test bare() skipped.
    ➜ Suite "clients" skipped: ".venv-clients is absent"
    ✘ Test "two" recorded an issue at HelpTests.swift:12:5: Expectation failed: 1 == 2
    ↳ the detail of the issue
    a line the test printed
    ✘ Test "two" failed after 0.010 seconds with 1 issue.
    ✔ Suite "help" passed after 1.3 seconds.
    ✘ Test run with 8 tests in 2 suites failed after 1.4 seconds with 1 issue.

    """

  /// The script run on a command that prints `text` (through a file) and exits with `status`.
  static func summarise(_ text: String, status: Int32) throws -> (
    status: Int32, output: String, log: String, logPath: String
  ) {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let lines = directory.appendingPathComponent("lines")
    try text.write(to: lines, atomically: true, encoding: .utf8)
    let log = directory.appendingPathComponent("test.log")
    let result = try Harness.runTool(
      "/usr/bin/env",
      ["python3", script.path, "--log", log.path, "--", "/bin/sh", "-c", "cat '\(lines.path)'; exit \(status)"])
    return (result.status, result.output, (try? String(contentsOf: log, encoding: .utf8)) ?? "", log.path)
  }

  @Test("a failing run: failures in full, passes and skips counted, a line per skip reason, exit 1")
  func failingRun() throws {
    let result = try Self.summarise(Self.run, status: 1)
    #expect(result.status == 1)
    #expect(result.log == Self.run, "the log holds every line")
    let lines = result.output.split(separator: "\n").map(String.init)
    #expect(
      lines == [
        "[0/1] Planning build",
        "✘ Test \"two\" recorded an issue at HelpTests.swift:12:5: Expectation failed: 1 == 2",
        "↳ the detail of the issue",
        "a line the test printed",
        "✘ Test \"two\" failed after 0.010 seconds with 1 issue.",
        "✘ Test run with 8 tests in 2 suites failed after 1.4 seconds with 1 issue.",
        "2 skipped: ../shared/fixtures/real is absent: skipped",
        "1 skipped: (no reason given)",
        "1 skipped: .venv-clients is absent (a whole suite)",
        "1 skipped: a big-input stress test: skipped (make stress runs it)",
        "The whole output, every test's line included: \(result.logPath)",
        "2 passed, 1 failed, 5 skipped",
      ], "\(result.output)")
  }

  @Test("the exit status: the command's; never 0 with a failure or an unfinished run; a signal as 128+N")
  func exitStatus() throws {
    let passing =
      Self.run.split(separator: "\n").filter { !$0.hasPrefix("✘") && !$0.hasPrefix("↳ the") }
      .joined(separator: "\n") + "\n✔ Test run with 7 tests in 2 suites passed after 1.4 seconds.\n"
    let passed = try Self.summarise(passing, status: 0)
    #expect(passed.status == 0, "\(passed.output)")
    #expect(passed.output.hasSuffix("\n2 passed, 0 failed, 5 skipped\n"), "\(passed.output)")
    #expect(try Self.summarise(Self.run, status: 0).status == 1, "a failure reported, though the command exits 0")
    let unfinished = try Self.summarise("✔ Test \"one\" passed after 0.002 seconds.\n", status: 0)
    #expect(unfinished.status == 1)
    #expect(unfinished.output.contains("The test run did not finish (exit status 0)"), "\(unfinished.output)")
    let killed = try Harness.runTool(
      "/usr/bin/env", ["python3", Self.script.path, "--", "/bin/sh", "-c", "kill -9 $$"])
    #expect(killed.status == 137, "\(killed.output)")
    #expect(killed.output.hasSuffix("0 passed, 0 failed, 0 skipped\n"), "\(killed.output)")
  }

  @Test("a passed test Swift Testing printed no line for is counted from the run's total")
  func passWithoutLine() throws {
    let text = """
      ◇ Test "a" started.
      ◇ Test "b" started.
      ✔ Test "a" passed after 0.1 seconds.
      ➜ Test "c" skipped: "a reason"
      ✔ Test run with 3 tests in 1 suite passed after 0.2 seconds.

      """
    let result = try Self.summarise(text, status: 0)
    #expect(result.status == 0, "\(result.output)")
    #expect(result.output.contains("(1 passed tests printed no line of their own"), "\(result.output)")
    #expect(result.output.hasSuffix("\n2 passed, 0 failed, 1 skipped\n"), "\(result.output)")
  }

  @Test("make test runs swift test through the summary, without XCTest (there are no XCTest tests)")
  func makefileRecipe() throws {
    let makefile = try String(contentsOf: Harness.repoRoot.appendingPathComponent("Makefile"), encoding: .utf8)
    let test = try #require(makefile.split(separator: "\n").first { $0.hasPrefix("TEST := ") })
    #expect(test.contains("scripts/test-summary.py") && test.contains("--disable-xctest"), "\(test)")
    let recipe = makefile.components(separatedBy: "\ntest:")[1].split(separator: "\n").dropFirst()
      .prefix { $0.hasPrefix("\t") }
    #expect(recipe.last == "\t$(TEST)", "\(recipe)")
    // --disable-xctest is right only while no test uses XCTest.
    let tests = Harness.repoRoot.appendingPathComponent("Tests")
    for case let file as URL in FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)!
    where file.pathExtension == "swift" {
      let imports = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").filter {
        $0.hasPrefix("import XCTest") || $0.hasPrefix("@testable import XCTest")
      }
      #expect(imports.isEmpty, "\(file.path)")
    }
    // CI runs the README's test command, and fails with it.
    let ci = try String(contentsOf: Harness.repoRoot.appendingPathComponent(".ci/run"), encoding: .utf8)
    #expect(ci.contains("set -euo pipefail") && ci.contains("\nmake test\n"))
    let readme = try String(contentsOf: Harness.repoRoot.appendingPathComponent("README.md"), encoding: .utf8)
    #expect(readme.contains("\nmake test   #"))
  }
}
