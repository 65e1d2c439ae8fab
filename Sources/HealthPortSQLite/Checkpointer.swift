import Foundation
import SQLiteStore

/// Copies the WAL into the database file on a thread and connection of its own, so that the
/// loading thread never waits for a checkpoint's reads, writes and fsyncs.
///
/// The loader turns SQLite's automatic checkpoints off for its connection and calls
/// ``request()`` after each commit; this thread then runs a PASSIVE checkpoint, which copies
/// committed frames only and never blocks the writer. It usually finishes long before the next
/// commit, so SQLite restarts the WAL from its beginning and the file stays about one batch in
/// size. A checkpoint is as crash-safe as an automatic one: a load killed during it leaves the
/// database as consistent as before.
final class Checkpointer: @unchecked Sendable {
  private let connection: SQLiteConnection
  private let condition = NSCondition()
  // Guarded by `condition`.
  private var requested = false
  private var stopping = false
  private var finished = false
  private var failure: SQLiteError?

  /// Opens a second connection to the WAL database at `path` and starts the thread.
  init(path: String) throws {
    connection = try SQLiteConnection(path: path, mode: .readWrite)
    connection.setBusyTimeout(milliseconds: 10_000)
    let thread = Thread { [self] in work() }
    thread.name = "healthport-checkpoint"
    thread.start()
  }

  /// Asks for a checkpoint (returns at once; requests made during one are merged into the next).
  func request() {
    condition.lock()
    requested = true
    condition.signal()
    condition.unlock()
  }

  /// Waits for the checkpoint in progress, stops the thread and closes its connection; throws the
  /// first error a checkpoint met (a full disk, an I/O error), if any.
  func finish() throws {
    condition.lock()
    stopping = true
    condition.signal()
    while !finished { condition.wait() }
    let failure = failure
    condition.unlock()
    try connection.close()
    if let failure { throw failure }
  }

  private func work() {
    condition.lock()
    while true {
      while !requested, !stopping { condition.wait() }
      if stopping { break }
      requested = false
      condition.unlock()
      var error: SQLiteError?
      do {
        try connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
      } catch let caught as SQLiteError {
        // Busy means another checkpoint is running: the next request catches up.
        if !caught.isBusy { error = caught }
      } catch {}
      condition.lock()
      if let error, failure == nil { failure = error }
    }
    finished = true
    condition.broadcast()
    condition.unlock()
  }
}
