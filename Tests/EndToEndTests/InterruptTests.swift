import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A healthport interrupted by SIGINT (Ctrl-C), SIGTERM or SIGHUP removes the temporary files it
/// writes its outputs through, dies of the signal, and leaves every other file as it was.
@Suite("healthport interrupted by a signal", .serialized)
struct InterruptTests {
  /// About 60 MB of export, generated once per test run: the debug build needs seconds for it, so
  /// there is time to interrupt it mid-way.
  static let bigExport: Result<URL, Error> = Result(catching: {
    let directory = try Harness.temporaryDirectory()
    let url = directory.appendingPathComponent("big.xml")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "python3", Harness.repoRoot.appendingPathComponent("Benchmarks/generate_export.py").path, "--size-mb", "60",
      "-o", url.path, "--quiet",
    ]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
    return url
  })

  /// The names in `directory`, sorted.
  static func names(_ directory: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
  }

  /// Whether a name is one of healthport's temporaries (`.NAME.tmp-PID`, `PATH.healthport-PID`).
  static func isTemporary(_ name: String) -> Bool {
    name.contains(".tmp-") || name.contains(".healthport-")
  }

  static func size(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : -1
  }

  /// Runs its arguments as a command with the signals as a shell gives them: none blocked and
  /// none ignored. A `Process` child inherits the test runner's signal mask (SIGINT, SIGTERM and
  /// SIGHUP blocked), and Python ignores SIGPIPE; `exec` keeps the process id, so the signal
  /// reaches healthport itself.
  static let cleanSignalsExec = """
    import os, signal, sys
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    os.execv(sys.argv[1], sys.argv[1:])
    """

  /// Runs healthport with `arguments` in `directory`, waits until `ready` holds (polled every
  /// 5 ms, at most `patience` seconds on a busy machine), sends `signal` and waits for the end. Returns whether
  /// `ready` held while the process still ran, and how the process ended.
  static func interrupt(
    _ arguments: [String], in directory: URL, with signal: Int32, patience: Double = 60, when ready: () -> Bool
  ) throws -> (interrupted: Bool, reason: Process.TerminationReason, status: Int32) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", Self.cleanSignalsExec, Harness.binary.path] + arguments + ["--quiet"]
    process.currentDirectoryURL = directory
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(patience)
    var isReady = false
    while process.isRunning, Date() < deadline {
      if ready() {
        isReady = true
        break
      }
      usleep(5_000)
    }
    let interrupted = isReady && process.isRunning
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
    return (interrupted, process.terminationReason, process.terminationStatus)
  }

  /// The temporary in `directory` once it holds more than `bytes` (a file) or `files` files (a
  /// folder), so that the signal comes mid-write.
  static func temporaryIsGrowing(in directory: URL, bytes: Int = 1 << 20, files: Int = 3) -> Bool {
    for name in names(directory) where isTemporary(name) {
      let path = directory.appendingPathComponent(name).path
      var info = stat()
      guard stat(path, &info) == 0 else { continue }
      if (info.st_mode & S_IFMT) == S_IFDIR {
        if names(directory.appendingPathComponent(name)).count >= files { return true }
      } else if info.st_size > bytes {
        return true
      }
    }
    return false
  }

  /// Converts the big export with `arguments`, interrupts it with `signal` mid-write and checks
  /// that the folder holds exactly what it held before. A file `out.csv` is there before each run,
  /// so that the target of the CSV case exists: it must be left as it was.
  func expectCleanInterruption(_ arguments: [String], signal: Int32) throws {
    let input = try Self.bigExport.get()
    let work = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: work) }
    let previous = Data("a previous output\n".utf8)
    try previous.write(to: work.appendingPathComponent("out.csv"))
    let before = Self.names(work)

    let run = try Self.interrupt(["convert", input.path] + arguments, in: work, with: signal) {
      Self.temporaryIsGrowing(in: work)
    }
    #expect(run.interrupted, "the conversion ended before it was interrupted: make the input larger")
    #expect(run.reason == .uncaughtSignal && run.status == signal, "ended with \(run.reason) \(run.status)")
    #expect(Self.names(work) == before)
    #expect(try Data(contentsOf: work.appendingPathComponent("out.csv")) == previous)
  }

  @Test("convert --to csv -o: SIGINT removes the temporary file; the existing target stays as it was")
  func csvInterrupted() throws {
    try expectCleanInterruption(["--to", "csv", "-o", "out.csv"], signal: SIGINT)
  }

  @Test("convert --to csv --split -o DIR: SIGINT removes the temporary folder and its tables")
  func splitInterrupted() throws {
    try expectCleanInterruption(["--to", "csv", "--split", "-o", "tables"], signal: SIGINT)
  }

  @Test("convert --to jsonl -o: SIGTERM removes the temporary file")
  func jsonLinesTerminated() throws {
    try expectCleanInterruption(["--to", "jsonl", "-o", "out.jsonl"], signal: SIGTERM)
  }

  @Test("load into a new database: SIGINT and SIGHUP remove the temporary database")
  func newDatabaseInterrupted() throws {
    let input = try Self.bigExport.get()
    for signal in [SIGINT, SIGHUP] {
      let work = try Harness.temporaryDirectory()
      defer { try? FileManager.default.removeItem(at: work) }
      let run = try Self.interrupt(["load", input.path, "--db", "new.db"], in: work, with: signal) {
        Self.temporaryIsGrowing(in: work)
      }
      #expect(run.interrupted, "the load ended before it was interrupted: make the input larger")
      #expect(run.reason == .uncaughtSignal && run.status == signal, "ended with \(run.reason) \(run.status)")
      #expect(Self.names(work) == [])
    }
  }

  @Test("load into an existing database: SIGINT leaves it intact and openable, with the rows it held")
  func existingDatabaseInterrupted() throws {
    let input = try Self.bigExport.get()
    let work = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: work) }
    let db = work.appendingPathComponent("health.db").path
    let seed = try Harness.run(["load", Harness.samples.appendingPathComponent("export.xml").path, "--db", db])
    #expect(seed.status == 0, "stderr: \(seed.stderr)")
    let seeded = try LoadStoreTests.sqlite(db, "SELECT count(*) FROM records").first?.first as? Int ?? -1
    #expect(seeded > 0)
    let before = Self.names(work)

    // Interrupted once the load has written a few batches into the WAL.
    let run = try Self.interrupt(["load", input.path, "--db", "health.db"], in: work, with: SIGINT) {
      Self.size(db + "-wal") > 4 << 20
    }
    #expect(run.interrupted, "the load ended before it was interrupted: make the input larger")
    #expect(run.reason == .uncaughtSignal && run.status == SIGINT, "ended with \(run.reason) \(run.status)")
    // The database and its own WAL stay (SQLite recovers from them); nothing else is left.
    let after = Self.names(work)
    #expect(after.allSatisfy { before.contains($0) || $0 == "health.db-wal" || $0 == "health.db-shm" }, "\(after)")
    #expect(after.contains("health.db"))

    #expect(try LoadStoreTests.sqlite(db, "PRAGMA integrity_check").first?.first as? String == "ok")
    let records = try LoadStoreTests.sqlite(db, "SELECT count(*) FROM records").first?.first as? Int ?? -1
    #expect(records >= seeded, "the rows loaded before are kept")
  }
}
