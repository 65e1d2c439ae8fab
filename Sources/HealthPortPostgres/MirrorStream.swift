import Foundation
import HealthPortSQLite
import SQLiteStore

/// Sends a new store's biggest tables to the server while the SQLite stage still loads the
/// mirror: after each batch the loader commits, a thread of its own reads the mirror's rows above
/// the largest id it has sent (through its own connection: the mirror is in WAL mode while it is
/// loaded) and copies them in, frozen, inside the load's one transaction. The server writes them
/// while the loader goes on. Rows the loader updates or deletes after they were sent are noted
/// by triggers (``MirrorChanges/noteUpdates(_:_:)``): the end of the load deletes them from the
/// store and sends them again with the rows not sent yet
/// (``PostgresStore/sync(from:mode:changes:createPostGIS:opened:streamed:)``).
final class MirrorStream: @unchecked Sendable {
  /// The tables sent while loading: the ones that grow with the export, keyed by `id`. The others
  /// (the exports row, workouts, step days, summaries) are updated or recomputed at the end of
  /// the load and sent after it.
  static let tableNames: Set<String> = [
    "records", "metadata", "hrv_beats", "correlation_records", "workout_events", "workout_statistics",
    "route_locations", "route_points", "extras",
  ]

  /// Rows per batch of the loader while it streams: smaller than a SQLite load's, so that the
  /// server gets rows sooner and less is left for the end.
  static let batchRows = 20_000

  /// The tables of `mirror` that a stream sends.
  static func tables(_ mirror: MirrorSchema) -> [MirrorSchema.Table] {
    mirror.tables.filter { tableNames.contains($0.name) && $0.key == ["id"] }
  }

  private let store: PostgresStore
  private let path: String
  private let tables: [MirrorSchema.Table]
  /// The worker's; read by others only after ``RequestedRounds/stop()``.
  private var db: SQLiteConnection?
  /// The largest id sent per table (the same).
  private var sent: [String: Int64] = [:]
  private var rounds: RequestedRounds!

  /// Starts the thread; `store`'s connection is its own until ``finish()`` or ``cancel()``.
  init(store: PostgresStore, mirror path: String, tables: [MirrorSchema.Table]) {
    self.store = store
    self.path = path
    self.tables = tables
    rounds = RequestedRounds(name: "healthport-postgres") { [self] in try sendNewRows() }
  }

  /// After a batch's commit: sends the new rows (at once, or after the round in flight); throws
  /// the server's error when an earlier round failed, so that the load stops at the next batch
  /// rather than after the whole export.
  func request() throws {
    if let failure = rounds.failure { throw failure }
    rounds.request()
  }

  /// Stops after the round in flight; returns the largest id sent per table, or throws the
  /// server's error.
  func finish() throws -> [String: Int64] {
    let failure = rounds.stop()
    close()
    if let failure { throw failure }
    return sent
  }

  /// Stops after the round in flight, ignoring its errors (the load failed).
  func cancel() {
    rounds.stop()
    close()
  }

  private func close() {
    try? db?.close()
    db = nil
  }

  /// Sends each table's rows above the largest id sent (on the worker's thread, through its own
  /// connection to the mirror, opened at the first round).
  private func sendNewRows() throws {
    let db: SQLiteConnection
    if let opened = self.db {
      db = opened
    } else {
      db = try SQLiteConnection(path: path, mode: .readOnly)
      db.setBusyTimeout(milliseconds: 10_000)
      self.db = db
    }
    for table in tables {
      let above = sent[table.name] ?? 0
      let select = try db.prepare(
        "SELECT \(table.columns.map(\.name).joined(separator: ", ")) FROM \(table.name) WHERE id > ? ORDER BY id")
      try select.bind(1, above)
      if let last = try store.guarded({ try store.stream(table, select, into: table.name, freeze: true) }) {
        sent[table.name] = last
      }
    }
  }
}
