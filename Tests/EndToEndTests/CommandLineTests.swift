import Foundation
import Testing

@Suite("Command-line conventions")
struct CommandLineTests {
  @Test(
    "help at every level, in OVERVIEW/USAGE/OPTIONS form",
    arguments: [["--help"], ["-h"], ["info", "--help"], ["info", "-h"], ["help", "info"]])
  func help(arguments: [String]) throws {
    let result = try Harness.run(arguments)
    #expect(result.status == 0)
    #expect(result.stdoutText.hasPrefix("OVERVIEW:"))
    #expect(result.stdoutText.contains("USAGE:"))
    #expect(result.stdoutText.contains("OPTIONS:"))
  }

  @Test("the top-level help names the environment variable that picks the threads")
  func environmentInHelp() throws {
    let result = try Harness.run(["--help"])
    let text = result.stdoutText
    let environment = try #require(text.range(of: "ENVIRONMENT:"))
    #expect(text[environment.upperBound...].contains("HEALTHPORT_THREADS=N"))
  }

  @Test("--version")
  func version() throws {
    let result = try Harness.run(["--version"])
    #expect(result.status == 0)
    #expect(result.stdoutText.hasPrefix("healthport "))
  }

  @Test(
    "usage errors exit 64 with a hint",
    arguments: [
      (["inof"], "did you mean 'info'"),
      (["info", "--fromat", "json"], "did you mean '--format'"),
      (["info", "--format", "xml"], "choose one of table, json"),
      (["info", "--format"], "needs a value"),
      (["info", "a.xml", "b.xml"], "expected one INPUT"),
      ([], "USAGE"),
    ])
  func usageErrors(arguments: [String], hint: String) throws {
    let result = try Harness.run(arguments)
    #expect(result.status == 64)
    #expect(result.stderr.contains(hint), "stderr: \(result.stderr)")
    #expect(result.stdout.isEmpty)
  }

  @Test("-- ends the options: a file named like an option is an input")
  func doubleDash() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.copyItem(
      at: Harness.samples.appendingPathComponent("export.xml"), to: directory.appendingPathComponent("--weird.xml"))
    let result = try Harness.run(["info", "--format=json", "--", "--weird.xml"], in: directory)
    #expect(result.status == 0, "stderr: \(result.stderr)")
  }
}
