import Foundation

/// Where the tests find what lies outside the repository: the real fixtures in `../shared/` and the
/// pinned Python readers in `.venv-clients/`. Both test targets use it, so they decide alike.
///
/// A user's fresh clone has no `../shared`: tests that need it are skipped with a message. CI has it
/// and sets `HEALTHPORT_REQUIRE_FIXTURES=1` (`.ci/run`), so there a missing folder fails instead of
/// skipping quietly. The same variable makes missing Python clients an error.
public enum TestEnvironment {
  /// The repository root, found from this file's path.
  public static let repoRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// `../shared/fixtures/real/` beside the project.
  public static let realFixtures: URL = repoRoot.deletingLastPathComponent()
    .appendingPathComponent("shared/fixtures/real")

  /// True when CI asks that nothing be skipped (`HEALTHPORT_REQUIRE_FIXTURES=1`).
  /// True under `make stress` (`HEALTHPORT_STRESS=1`): the big-input tests run.
  public static var runsStressTests: Bool {
    ProcessInfo.processInfo.environment["HEALTHPORT_STRESS"] == "1"
  }

  public static var skippingForbidden: Bool {
    ProcessInfo.processInfo.environment["HEALTHPORT_REQUIRE_FIXTURES"] == "1"
  }

  public static var hasRealFixtures: Bool { FileManager.default.fileExists(atPath: realFixtures.path) }

  /// Whether fixture tests run: when the folder is there, and always where skipping is forbidden
  /// (they then fail on the missing files, which is the point).
  public static var runsRealFixtureTests: Bool { hasRealFixtures || skippingForbidden }

  /// `../shared/bench/gen_export.py`, the second export generator (its README names the inputs the
  /// issues measure, e.g. the incremental exports A and B).
  public static let exportGenerator: URL = repoRoot.deletingLastPathComponent()
    .appendingPathComponent("shared/bench/gen_export.py")

  public static var hasExportGenerator: Bool { FileManager.default.fileExists(atPath: exportGenerator.path) }

  /// Whether tests of the generator's exports run: as ``runsRealFixtureTests``.
  public static var runsExportGeneratorTests: Bool { hasExportGenerator || skippingForbidden }

  public static let generatorSkipMessage =
    "../shared/bench/gen_export.py is absent: skipped (CI sets HEALTHPORT_REQUIRE_FIXTURES=1 and fails instead)"

  public static let skipMessage =
    "../shared/fixtures/real is absent: skipped (CI sets HEALTHPORT_REQUIRE_FIXTURES=1 and fails instead)"

  /// The Python of `.venv-clients/` (pandas, DuckDB and its SQLite scanner), made by
  /// `scripts/python-clients.sh`, which `make test` runs.
  public static let clientPython: URL = repoRoot.appendingPathComponent(".venv-clients/bin/python")

  public static var hasClientPython: Bool { FileManager.default.isExecutableFile(atPath: clientPython.path) }

  public static var runsClientTests: Bool { hasClientPython || skippingForbidden }

  /// The Python of `.venv-clients-pandas3/` (pandas 3; the main environment pins pandas 2), made by
  /// the same script, for the CSV tests that run under both.
  public static let pandas3Python: URL = repoRoot.appendingPathComponent(".venv-clients-pandas3/bin/python")

  public static var hasPandas3Python: Bool { FileManager.default.isExecutableFile(atPath: pandas3Python.path) }

  public static var runsPandas3Tests: Bool { hasPandas3Python || skippingForbidden }

  public static let clientSkipMessage =
    ".venv-clients is absent (run scripts/python-clients.sh, as `make test` does): skipped"

  /// The file of DuckDB's SQLite scanner inside the pinned `duckdb-ext-sqlite` wheel, loaded by
  /// path because `LOAD sqlite` would try the network.
  public static var duckDBSQLiteExtension: URL? {
    let lib = repoRoot.appendingPathComponent(".venv-clients/lib")
    guard let pythons = try? FileManager.default.contentsOfDirectory(atPath: lib.path) else { return nil }
    for python in pythons.sorted() {
      let candidate = lib.appendingPathComponent(
        "\(python)/site-packages/duckdb_ext/extensions/v1.4.4/linux_amd64/sqlite_scanner.duckdb_extension")
      if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
    }
    return nil
  }

  /// The file of a DuckDB extension (`postgres_scanner`, `sqlite_scanner`) inside its pinned
  /// `duckdb-ext-…` wheel in `.venv-clients/`.
  public static func duckDBExtension(named name: String) -> URL? {
    let lib = repoRoot.appendingPathComponent(".venv-clients/lib")
    guard let pythons = try? FileManager.default.contentsOfDirectory(atPath: lib.path) else { return nil }
    for python in pythons.sorted() {
      let candidate = lib.appendingPathComponent(
        "\(python)/site-packages/duckdb_ext/extensions/v1.4.4/linux_amd64/\(name).duckdb_extension")
      if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
    }
    return nil
  }

  /// Runs the clients' Python (or `python`, e.g. ``pandas3Python``) on `script` with `arguments`;
  /// returns its exit status, stdout and stderr. Output goes through files so that a full pipe
  /// never blocks it.
  public static func runClientPython(
    _ script: String, _ arguments: [String], python: URL = clientPython, in directory: URL? = nil
  ) throws -> (status: Int32, stdout: String, stderr: String) {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("healthport-py-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let out = scratch.appendingPathComponent("out")
    let err = scratch.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    let process = Process()
    process.executableURL = python
    process.arguments = ["-c", script] + arguments
    if let directory { process.currentDirectoryURL = directory }
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    process.standardInput = FileHandle.nullDevice
    if let ext = duckDBSQLiteExtension {
      process.environment = ProcessInfo.processInfo.environment.merging(["DUCKDB_SQLITE_EXTENSION": ext.path]) { $1 }
    }
    try process.run()
    process.waitUntilExit()
    return (
      process.terminationStatus, String(decoding: try Data(contentsOf: out), as: UTF8.self),
      String(decoding: try Data(contentsOf: err), as: UTF8.self)
    )
  }
}
