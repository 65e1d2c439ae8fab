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
  private let rounds: RequestedRounds

  /// Opens a second connection to the WAL database at `path` and starts the thread.
  init(path: String) throws {
    let connection = try SQLiteConnection(path: path, mode: .readWrite)
    connection.setBusyTimeout(milliseconds: 10_000)
    self.connection = connection
    rounds = RequestedRounds(name: "healthport-checkpoint") {
      do {
        try connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
      } catch let error as SQLiteError where error.isBusy {
        // Another checkpoint is running: the next request catches up.
      }
    }
  }

  /// Asks for a checkpoint (returns at once; requests made during one are merged into the next).
  func request() { rounds.request() }

  /// Waits for the checkpoint in progress, stops the thread and closes its connection; throws the
  /// error that stopped the checkpoints (a full disk, an I/O error), if any.
  func finish() throws {
    let failure = rounds.stop()
    try connection.close()
    if let failure { throw failure }
  }
}
