import Foundation
import TestSupport
import Testing

/// What one run of the built binary cost: its exit status, CPU time (user and system) and peak
/// resident set, as `/usr/bin/time` reports them for that child alone (a child forked by the
/// test process itself would inherit its high-water mark). CPU time, unlike wall time, depends
/// little on the load of the machine; ratios of two runs compare growth, never an absolute speed.
struct ChildUsage {
  var status: Int32
  var cpuSeconds: Double
  /// The user part of ``cpuSeconds``: healthport's own work, without the kernel's.
  var userSeconds: Double
  var peakKilobytes: Int
  var stderr: String

  /// Runs healthport with `arguments` (stdin empty) and two threads unless `environment` says
  /// otherwise.
  static func measure(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildUsage {
    let scratch = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let report = scratch.appendingPathComponent("time")
    let result = try Harness.run(
      ["-o", report.path, "-f", "%U %S %M", Harness.binary.path] + arguments,
      environment: ["HEALTHPORT_THREADS": "2"].merging(environment) { $1 },
      executable: URL(fileURLWithPath: "/usr/bin/time"))
    // The last line is the format's (`Command exited with non-zero status` may come before it).
    let text = try String(contentsOf: report, encoding: .utf8)
    let fields = text.split(separator: "\n").last.map { $0.split(separator: " ") } ?? []
    guard fields.count == 3, let user = Double(fields[0]), let system = Double(fields[1]), let peak = Int(fields[2])
    else { throw Harness.DumpError(description: "/usr/bin/time said: \(text)") }
    return ChildUsage(
      status: result.status, cpuSeconds: user + system, userSeconds: user, peakKilobytes: peak, stderr: result.stderr)
  }

  /// Runs `arguments(small)` and `arguments(large)` (the large input 4× the small one) and checks
  /// that both end with `status`, the large one in at most `ratio` times the CPU time of the
  /// small one (4× for linear work; 16× for quadratic), both under `peakMegabytes` (when given).
  static func expectLinear(
    small: [String], large: [String], status: Int32 = 0, ratio: Double = 5, peakMegabytes: Int? = 64,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    var one = try measure(small)
    var four = try measure(large)
    // CPU time varies with what else the machine runs: while over, the pair is measured again (at
    // most twice) and the faster run of each size counts (as in ManyMembersTests).
    for _ in 0..<2 where four.cpuSeconds > ratio * max(one.cpuSeconds, 0.05) {
      one.cpuSeconds = min(one.cpuSeconds, try measure(small).cpuSeconds)
      four.cpuSeconds = min(four.cpuSeconds, try measure(large).cpuSeconds)
    }
    for run in [one, four] {
      #expect(run.status == status, "stderr: \(run.stderr.prefix(2000))", sourceLocation: sourceLocation)
      if let peakMegabytes {
        #expect(
          run.peakKilobytes < peakMegabytes * 1024, "peak \(run.peakKilobytes) KB", sourceLocation: sourceLocation)
      }
    }
    #expect(
      four.cpuSeconds <= ratio * max(one.cpuSeconds, 0.05),
      "CPU \(one.cpuSeconds) s at 1×, \(four.cpuSeconds) s at 4×", sourceLocation: sourceLocation)
  }
}
