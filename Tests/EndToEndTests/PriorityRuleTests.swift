import Foundation
import TestSupport
import Testing

/// `--priority` ranks sources for a de-duplication: every command that de-duplicates refuses it
/// without `--dedupe`, in the same words (docs/steps.md); `chart sleep` and `sleep`, which always
/// merge sources, take it alone.
@Suite("--priority goes with --dedupe")
struct PriorityRuleTests {
  @Test(
    "refused without --dedupe, exit 64",
    arguments: [
      ["steps"], ["stats", "--type", "StepCount"], ["workouts"], ["chart", "steps", "-o", "OUT.svg"],
    ])
  func refused(_ command: [String]) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let sample = Harness.samples.appendingPathComponent("export.zip").path
    let arguments = command.map {
      $0.replacingOccurrences(of: "OUT", with: directory.appendingPathComponent("out").path)
    }
    let name = command[0] == "chart" ? "chart" : command[0]
    let refused = try Harness.run(arguments + [sample, "--priority", "Watch"])
    #expect(refused.status == 64)
    #expect(refused.stdout.isEmpty)
    #expect(refused.stderr == "healthport \(name): error: --priority only applies with --dedupe\n")
    let accepted = try Harness.run(arguments + [sample, "--priority", "Watch", "--dedupe", "--quiet"])
    #expect(accepted.status == 0, "\(accepted.stderr)")
  }

  @Test("sleep and chart sleep take --priority alone")
  func sleepTakesItAlone() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let sample = Harness.samples.appendingPathComponent("export.zip").path
    let out = directory.appendingPathComponent("sleep.svg").path
    #expect(try Harness.run(["sleep", sample, "--priority", "Watch", "--quiet"]).status == 0)
    #expect(try Harness.run(["chart", "sleep", sample, "--priority", "Watch", "-o", out, "--quiet"]).status == 0)
  }
}
