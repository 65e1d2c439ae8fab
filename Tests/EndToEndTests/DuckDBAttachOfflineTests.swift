import Foundation
import TestSupport
import Testing

/// `docs/sqlite.md`'s "DuckDB without a download": its Python block, run as written on a loaded
/// database, with an empty home folder (no extension DuckDB downloaded earlier).
@Suite("DuckDB attaches a healthport database without a download", .needsPythonClients)
struct DuckDBAttachOfflineTests {
  static let runner = #"""
    import io, os, sys, contextlib, tempfile
    docs, folder = sys.argv[1], sys.argv[2]
    section = open(docs, encoding="utf-8").read().split("### DuckDB without a download", 1)[1].split("\n## ", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    os.environ["HOME"] = tempfile.mkdtemp()  # no ~/.duckdb/extensions
    os.chdir(folder)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {})
    print(out.getvalue())
    """#

  @Test("the docs' block attaches health.db and reads daily_steps")
  func documentedBlock() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let db = directory.appendingPathComponent("health.db").path
    let load = try Harness.run([
      "load", Harness.samples.appendingPathComponent("export.zip").path, "--db", db, "--quiet",
    ])
    #expect(load.status == 0, "\(load.stderr)")
    let expected = try Harness.run([
      "steps", Harness.samples.appendingPathComponent("export.zip").path, "--format", "csv",
    ])
    #expect(expected.status == 0, "\(expected.stderr)")
    let docs = Harness.repoRoot.appendingPathComponent("docs/sqlite.md").path
    let result = try TestEnvironment.runClientPython(Self.runner, [docs, directory.path])
    #expect(result.status == 0, "\(result.stderr)")
    // DuckDB's box: the header, then the last 7 days of `healthport steps`.
    #expect(result.stdout.contains("period"), "\(result.stdout)")
    #expect(result.stdout.contains("steps"), "\(result.stdout)")
    let days = expected.stdoutText.split(separator: "\n").dropFirst().map { $0.split(separator: ",")[0] }
    #expect(!days.isEmpty)
    for day in days.suffix(7) {
      let period = day.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
      #expect(result.stdout.contains(period), "\(period) in \(result.stdout)")
    }
  }
}
