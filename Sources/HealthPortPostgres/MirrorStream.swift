import Foundation
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
  private let condition = NSCondition()
  // Guarded by `condition`.
  private var requested = false
  private var stopping = false
  private var stopped = false
  private var failure: Error?
  /// The largest id sent per table (only the worker writes it before it stops).
  private var sent: [String: Int64] = [:]

  /// Starts the thread; `store`'s connection is its own until ``finish()`` or ``cancel()``.
  init(store: PostgresStore, mirror path: String, tables: [MirrorSchema.Table]) {
    self.store = store
    self.path = path
    self.tables = tables
    let thread = Thread { [self] in work() }
    thread.name = "healthport-postgres"
    thread.start()
  }

  /// After a batch's commit: sends the new rows (at once, or after the round in flight).
  func request() {
    condition.lock()
    requested = true
    condition.signal()
    condition.unlock()
  }

  /// Stops after the round in flight; returns the largest id sent per table, or throws the
  /// server's error.
  func finish() throws -> [String: Int64] {
    stop()
    if let failure { throw failure }
    return sent
  }

  /// Stops after the round in flight, ignoring its errors (the load failed).
  func cancel() { stop() }

  private func stop() {
    condition.lock()
    stopping = true
    condition.signal()
    while !stopped { condition.wait() }
    condition.unlock()
  }

  private func work() {
    defer {
      condition.lock()
      stopped = true
      condition.broadcast()
      condition.unlock()
    }
    var db: SQLiteConnection?
    defer { try? db?.close() }
    while true {
      condition.lock()
      while !requested && !stopping { condition.wait() }
      let go = !stopping
      requested = false
      condition.unlock()
      guard go else { return }
      do {
        if db == nil {
          let opened = try SQLiteConnection(path: path, mode: .readOnly)
          opened.setBusyTimeout(milliseconds: 10_000)
          db = opened
        }
        if let db { try sendNewRows(db) }
      } catch {
        failure = error
        return
      }
    }
  }

  /// Sends each table's rows above the largest id sent.
  private func sendNewRows(_ db: SQLiteConnection) throws {
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
