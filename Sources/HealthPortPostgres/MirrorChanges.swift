import SQLiteStore

/// What a load changes in the mirror of an existing store, so that only that goes to the server.
///
/// Before the load, each table's largest row id is noted: rows above it are new (the loader never
/// reuses an id it did not free in the same load). Triggers in the mirror (a private file, thrown
/// away after the load) note each row the load updates with a different value, or deletes, by its
/// id in `healthport_changed`; for `ecg_samples`, whose key is `(recording_id, position)`, every
/// insert, update or delete notes its recording. The store then deletes the noted rows (or
/// recordings' samples) and copies in the mirror's rows that are new or noted: the same rows as a
/// full copy, without sending what did not change.
struct MirrorChanges {
  /// The table of noted ids (excluded from ``MirrorSchema``: not part of the store).
  static let table = "healthport_changed"

  /// How a table's changes are found.
  enum Tracking {
    /// Keyed by `id` (its row id): new rows above ``Table/newAbove``, the others noted.
    case byID
    /// Keyed by `column` first, an integer: every change notes that column's value, and the rows
    /// holding a noted value are sent again.
    case byGroup(column: String)
  }

  struct Table {
    var tracking: Tracking
    /// The largest row id before the load (`byID`).
    var newAbove: Int64
  }

  /// Per table name.
  var tables: [String: Table] = [:]

  /// Creates the triggers in the mirror `db` and notes the largest ids; tables whose key is
  /// neither `id` nor led by an integer column are left out (sent whole).
  static func track(_ db: SQLiteConnection, _ mirror: MirrorSchema) throws -> MirrorChanges {
    var changes = MirrorChanges()
    try createTable(db)
    for source in mirror.tables {
      let name = source.name
      let note = { (row: String, column: String) in
        "INSERT OR IGNORE INTO \(table) (tbl, id) VALUES ('\(name)', \(row).\(column))"
      }
      let differs = source.columns.map { "old.\($0.name) IS NOT new.\($0.name)" }.joined(separator: " OR ")
      if source.key == ["id"] {
        let newAbove = try db.scalarInt("SELECT max(id) FROM \(name)") ?? 0
        try noteUpdates(db, source)
        changes.tables[name] = Table(tracking: .byID, newAbove: newAbove)
      } else if let first = source.key.first,
        source.columns.contains(where: { $0.name == first && $0.type == .integer })
      {
        try db.execute(
          """
          CREATE TRIGGER IF NOT EXISTS healthport_inserted_\(name) AFTER INSERT ON \(name)
            BEGIN \(note("new", first)); END;
          CREATE TRIGGER IF NOT EXISTS healthport_updated_\(name) AFTER UPDATE ON \(name) WHEN \(differs)
            BEGIN \(note("old", first)); \(note("new", first)); END;
          CREATE TRIGGER IF NOT EXISTS healthport_deleted_\(name) AFTER DELETE ON \(name)
            BEGIN \(note("old", first)); END;
          """)
        changes.tables[name] = Table(tracking: .byGroup(column: first), newAbove: 0)
      }
    }
    return changes
  }

  /// The table of noted ids, empty.
  static func createTable(_ db: SQLiteConnection) throws {
    try db.execute(
      "CREATE TABLE IF NOT EXISTS \(table) (tbl TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (tbl, id)) "
        + "WITHOUT ROWID; DELETE FROM \(table)")
  }

  /// Triggers that note each row of `source` (keyed by `id`) updated with a different value or
  /// deleted.
  static func noteUpdates(_ db: SQLiteConnection, _ source: MirrorSchema.Table) throws {
    let name = source.name
    let note = "INSERT OR IGNORE INTO \(table) (tbl, id) VALUES ('\(name)', old.id)"
    let differs = source.columns.map { "old.\($0.name) IS NOT new.\($0.name)" }.joined(separator: " OR ")
    try db.execute(
      """
      CREATE TRIGGER IF NOT EXISTS healthport_updated_\(name) AFTER UPDATE ON \(name) WHEN \(differs)
        BEGIN \(note); END;
      CREATE TRIGGER IF NOT EXISTS healthport_deleted_\(name) AFTER DELETE ON \(name)
        BEGIN \(note); END;
      """)
  }

  /// Forgets what was noted (after the store took it), and notes the largest ids again.
  mutating func restart(_ db: SQLiteConnection) throws {
    try db.execute("DELETE FROM \(Self.table)")
    for (name, entry) in tables {
      guard case .byID = entry.tracking else { continue }
      tables[name]?.newAbove = try db.scalarInt("SELECT max(id) FROM \(name)") ?? 0
    }
  }

  /// The SQLite query of `table`'s rows to send (`columns` listed), or nil when it is not tracked.
  func select(_ table: String, columns: String) -> String? {
    guard let entry = tables[table] else { return nil }
    let noted = "(SELECT id FROM \(Self.table) WHERE tbl = '\(table)')"
    switch entry.tracking {
    case .byID:
      return "SELECT \(columns) FROM \(table) WHERE id IN \(noted) AND id <= \(entry.newAbove) "
        + "UNION ALL SELECT \(columns) FROM \(table) WHERE id > \(entry.newAbove)"
    case .byGroup(let column): return "SELECT \(columns) FROM \(table) WHERE \(column) IN \(noted)"
    }
  }

  /// The column by which noted rows are deleted from the store's `table`.
  func deleteColumn(_ table: String) -> String? {
    switch tables[table]?.tracking {
    case .byID: "id"
    case .byGroup(let column): column
    case nil: nil
    }
  }
}
