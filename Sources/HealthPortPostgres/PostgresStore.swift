import HealthPort
import HealthPortSQLite
import PostgresClient
import SQLiteStore

#if canImport(Glibc)
  import Glibc
#endif

/// One schema of a PostgreSQL database holding a healthport store, over one connection.
final class PostgresStore {
  let connection: PGConnection
  let uri: String
  let schema: String

  init(connection: PGConnection, uri: String, schema: String) {
    self.connection = connection
    self.uri = uri
    self.schema = schema
  }

  var quotedSchema: String { PGConnection.quoteIdentifier(schema) }

  func qualified(_ name: String) -> String { "\(quotedSchema).\(PGConnection.quoteIdentifier(name))" }

  /// Runs `body`, turning the server's errors into one line naming it.
  func guarded<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as PGError {
      throw PostgresTarget.storeError(error, uri: uri, schema: schema)
    }
  }

  // MARK: The lock

  /// The advisory lock of this schema: one load at a time, the others wait up to `seconds`, then
  /// fail. Held by the session until it ends.
  func lock(waitingUpTo seconds: Double) throws {
    let key = "healthport load " + schema
    let start = monotonicSeconds()
    while true {
      let got = try guarded { try connection.scalar("SELECT pg_try_advisory_lock(hashtext($1)::bigint)", [key]) }
      if got == "t" { return }
      if monotonicSeconds() - start >= seconds {
        throw PostgresTarget.failure(
          "another load into schema \(schema) of \(PostgresTarget.redacted(uri)) holds its lock; waited "
            + "\(Int(seconds)) s for it, in vain. Run this load again once the other has finished.")
      }
      usleep(100_000)
    }
  }

  // MARK: The schema version

  /// What the schema holds: nil when it has no healthport tables yet, else its schema version.
  func schemaVersion() throws -> Int64? {
    try guarded {
      let meta = try connection.scalar("SELECT to_regclass($1) IS NOT NULL", [qualified("meta")])
      if meta == "t" {
        let version = try connection.scalar("SELECT max(schema_version) FROM \(qualified("meta"))")
        return version.flatMap { Int64($0) } ?? 0
      }
      let tables = try connection.scalar(
        "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = $1", [schema])
      if let tables, tables != "0" {
        throw PostgresTarget.failure(.foreignSchema(schema: schema, server: PostgresTarget.redacted(uri)))
      }
      return nil
    }
  }

  // MARK: From PostgreSQL into the mirror

  /// Copies every table of the store into the empty healthport SQLite database at `path`.
  func dump(into path: String) throws {
    let db = try SQLiteDatabase.open(path: path)
    defer { try? db.close() }
    let mirror = try MirrorSchema(db)
    // A private file, removed after any failure: no journal, no fsync, and the indexes built once
    // the rows are in (a sorted build instead of one insertion per row), their sorts spilled to
    // temporary files rather than memory (a 1 GB export's store peaked at 310 MB in memory).
    try db.execute(
      "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE; PRAGMA temp_store = FILE")
    var indexes: [String] = []
    let listed = try db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
    var names: [String] = []
    while try listed.step() {
      names.append(listed.text(0) ?? "")
      indexes.append(listed.text(1) ?? "")
    }
    for name in names { try db.execute("DROP INDEX \(name)") }
    try db.execute("BEGIN")
    let existing = try guarded { try columns() }
    for table in mirror.tables {
      // An older store may lack tables and columns: the mirror's defaults fill those.
      guard let have = existing[table.name] else { continue }
      let present = table.columns.filter { have.contains($0.name) }
      let names = present.map(\.name)
      let insert = try db.prepare(
        "INSERT INTO \(table.name) (\(names.joined(separator: ", "))) VALUES ("
          + names.map { _ in "?" }.joined(separator: ", ") + ")")
      let sql =
        "COPY \(qualified(table.name)) (\(names.map(PGConnection.quoteIdentifier).joined(separator: ", "))) "
        + "TO STDOUT (FORMAT binary)"
      try guarded {
        try connection.copyOut(sql) { fields in
          for (index, column) in present.enumerated() {
            let position = Int32(index + 1)
            guard let field = fields[index] else {
              try insert.bindNull(position)
              continue
            }
            switch column.type {
            case .integer: try insert.bind(position, Int64(bitPattern: Self.bigEndian(field)))
            case .real: try insert.bind(position, Double(bitPattern: Self.bigEndian(field)))
            // Read in place: the row's bytes live until the insert has run.
            case .text, .bytes: try insert.bindStatic(position, utf8: field.bindMemory(to: UInt8.self))
            // jsonb's binary form: a version byte (1), then the text.
            case .json:
              try insert.bindStatic(
                position, utf8: UnsafeBufferPointer(rebasing: field.bindMemory(to: UInt8.self).dropFirst()))
            }
          }
          try insert.run()
        }
      }
    }
    for (name, index) in zip(names, indexes) where !MirrorSchema.indexesNotLoaded.contains(name) {
      try db.execute(index)
    }
    try db.execute("COMMIT")
  }

  static func bigEndian(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var value: UInt64 = 0
    for byte in bytes { value = value << 8 | UInt64(byte) }
    return value
  }

  // MARK: From the mirror into PostgreSQL

  /// What ``sync(from:mode:)`` does to the schema before and after the rows.
  enum SyncMode {
    /// A new store: tables created and filled, then indexes, views and `meta`.
    case create
    /// A store of the current version: rows only.
    case update
    /// A store of an older version: views dropped, missing tables and columns added, rows, then
    /// the current indexes and views and `meta`'s new version.
    case migrate
  }

  /// Makes the store hold exactly what the SQLite database at `path` holds, in one transaction:
  /// a new store is created and filled by COPY; an existing one gets only the rows `changes`
  /// noted (deleted, then copied in again) and the new ones, or, for tables not tracked, its rows
  /// through a staging table (`INSERT … ON CONFLICT DO UPDATE` on the primary key, rows gone
  /// deleted). A new store whose big tables were sent while it loaded (``MirrorStream``) passes
  /// the transaction ``open(_:mode:createPostGIS:)`` began and the largest id sent per table.
  func sync(
    from path: String, mode: SyncMode, changes: MirrorChanges? = nil, createPostGIS: Bool = false,
    opened: Opened? = nil, streamed: [String: Int64] = [:]
  ) throws {
    let db = try SQLiteConnection(path: path, mode: .readOnly)
    defer { try? db.close() }
    let mirror = try MirrorSchema(db)
    try guarded {
      do {
        let opened = try opened ?? open(mirror, mode: mode, createPostGIS: createPostGIS)
        let postgis = opened.postgis
        let tightened = opened.tightened
        var gone = false
        for table in mirror.tables {
          if mode == .update, let changes, changes.deleteColumn(table.name) != nil {
            try sendChanges(table, from: db, changes: changes, goneTable: &gone)
          } else if mode == .create, let sent = streamed[table.name] {
            try sendRest(table, from: db, sentUpTo: sent, goneTable: &gone)
          } else {
            try copy(table, from: db, into: mode == .create ? table.name : nil)
          }
        }
        if mode != .update {
          for (table, column) in tightened {
            try connection.execute("ALTER TABLE \(table) ALTER COLUMN \(column) SET NOT NULL")
          }
          if mode == .create {
            for table in mirror.tables { try connection.execute(MirrorSchema.addKey(table)) }
          }
          for table in mirror.tables {
            for index in table.indexes {
              try connection.execute(
                index.replacing("CREATE INDEX ", with: "CREATE INDEX IF NOT EXISTS ")
                  .replacing("CREATE UNIQUE INDEX ", with: "CREATE UNIQUE INDEX IF NOT EXISTS "))
            }
          }
          try connection.execute(MirrorSchema.roundFunction)
          for view in mirror.views { try connection.execute(MirrorSchema.createView(view.sql)) }
          try connection.execute("CREATE TABLE IF NOT EXISTS meta (schema_version bigint NOT NULL)")
          try connection.execute("DELETE FROM meta")
          try connection.execute("INSERT INTO meta VALUES (\(SQLiteSchema.version))")
        }
        if postgis != nil { try PostGISRoutes.refresh(connection) }
        // No ANALYZE here: autovacuum analyzes the new rows within a minute of the commit, and the
        // index builds have already set each table's size for the planner.
        try connection.execute("COMMIT")
      } catch {
        try? connection.execute("ROLLBACK")
        throw error
      }
    }
  }

  /// What ``open(_:mode:createPostGIS:)`` found and left for the end of the transaction.
  struct Opened {
    /// The schema of the `postgis` extension, nil without it.
    var postgis: String?
    /// Columns added by a migration, to be made `NOT NULL` once the rows are in.
    var tightened: [(table: String, column: String)] = []
  }

  /// Begins the load's transaction and brings the schema's tables to `mirror`'s (a new store:
  /// created without keys); ``sync(from:mode:changes:createPostGIS:opened:streamed:)`` ends it.
  func open(_ mirror: MirrorSchema, mode: SyncMode, createPostGIS: Bool) throws -> Opened {
    try guarded {
      try connection.execute("BEGIN")
      do {
        if createPostGIS { try createExtension() }
        let postgis = try connection.scalar(
          "SELECT n.nspname FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace "
            + "WHERE e.extname = 'postgis'")
        let path = [quotedSchema] + (postgis.map { [PGConnection.quoteIdentifier($0)] } ?? []) + ["pg_catalog"]
        try connection.execute("SET LOCAL search_path = \(path.joined(separator: ", "))")
        // Index builds sort in memory rather than on disk (for this transaction only; never lowered).
        _ = try connection.query(
          "SELECT set_config('maintenance_work_mem', '\(Self.indexBuildKilobytes)kB', true) FROM pg_settings "
            + "WHERE name = 'maintenance_work_mem' AND setting::bigint < \(Self.indexBuildKilobytes)")
        var opened = Opened(postgis: postgis)
        switch mode {
        case .create:
          try connection.execute("CREATE SCHEMA IF NOT EXISTS \(quotedSchema)")
          // Without primary keys until the rows are in: a sorted build is faster than a bulk COPY's
          // one insertion per row.
          for table in mirror.tables { try connection.execute(MirrorSchema.createTable(table, key: false)) }
        case .update: break
        case .migrate: opened.tightened = try migrateTables(mirror)
        }
        return opened
      } catch {
        try? connection.execute("ROLLBACK")
        throw error
      }
    }
  }

  /// Ends the transaction that ``open(_:mode:createPostGIS:)`` began, without changing anything.
  func rollBack() { try? connection.execute("ROLLBACK") }

  /// `CREATE EXTENSION postgis` (`--postgis`), refused in one line when the role may not.
  private func createExtension() throws {
    do {
      try connection.execute("CREATE EXTENSION IF NOT EXISTS postgis")
    } catch let error as PGError where error.isPermission || error.sqlState == "0A000" || error.sqlState == "58P01" {
      let why =
        error.isPermission
        ? "the role may not CREATE EXTENSION postgis (a superuser must, once: CREATE EXTENSION postgis)"
        : "the server has no PostGIS (Debian: postgresql-15-postgis-3)"
      throw PostgresTarget.failure(
        .noPostGIS(why: why, server: PostgresTarget.redacted(uri), detail: error.message))
    }
  }

  /// Brings the tables of an older store to the mirror's: views dropped (they are created again),
  /// missing tables created, missing columns added (nullable until the rows are in: returned).
  private func migrateTables(_ mirror: MirrorSchema) throws -> [(table: String, column: String)] {
    for view in mirror.views { try connection.execute("DROP VIEW IF EXISTS \(view.name) CASCADE") }
    let existing = try columns()
    var tightened: [(table: String, column: String)] = []
    for table in mirror.tables {
      guard let have = existing[table.name] else {
        try connection.execute(MirrorSchema.createTable(table))
        continue
      }
      for column in table.columns where !have.contains(column.name) {
        try connection.execute("ALTER TABLE \(table.name) ADD COLUMN \(column.name) \(column.type.postgres)")
        if let instant = MirrorSchema.instantColumn(column.name) {
          try connection.execute(
            "ALTER TABLE \(table.name) ADD COLUMN \(instant) timestamptz "
              + "GENERATED ALWAYS AS (to_timestamp(\(column.name))) STORED")
        }
        if column.notNull { tightened.append((table.name, column.name)) }
      }
    }
    return tightened
  }

  /// The columns of each table of the schema.
  func columns() throws -> [String: Set<String>] {
    var tables: [String: Set<String>] = [:]
    for row in try connection.query(
      "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1", [schema])
    {
      if let table = row[0], let column = row[1] { tables[table, default: []].insert(column) }
    }
    return tables
  }

  /// The `maintenance_work_mem` of a load's transaction, at least: 256 MB.
  static let indexBuildKilobytes = 262_144

  /// Sends every row of `table` in the mirror: straight into the new table `target` (created in
  /// this transaction, so its rows are written frozen: no later pass rewrites its pages), or
  /// through a staging table into the existing one.
  private func copy(_ table: MirrorSchema.Table, from db: SQLiteConnection, into target: String?) throws {
    let names = table.columns.map(\.name)
    let list = names.joined(separator: ", ")
    let destination = target ?? "healthport_staging"
    if target == nil {
      try connection.execute(
        "CREATE TEMP TABLE healthport_staging ("
          + table.columns.map { "\($0.name) \($0.type.postgres)" }.joined(separator: ", ") + ") ON COMMIT DROP")
    }
    try stream(
      table, try db.prepare("SELECT \(list) FROM \(table.name)"), into: destination, freeze: target != nil,
      always: true)
    guard target == nil else { return }
    let key = table.key.joined(separator: ", ")
    let matches = table.key.map { "s.\($0) = t.\($0)" }.joined(separator: " AND ")
    try connection.execute(
      "DELETE FROM \(table.name) AS t WHERE NOT EXISTS (SELECT 1 FROM healthport_staging AS s WHERE \(matches))")
    let others = names.filter { !table.key.contains($0) }
    let conflict =
      others.isEmpty
      ? "DO NOTHING"
      : "DO UPDATE SET " + others.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
        + " WHERE (" + others.map { "\(table.name).\($0)" }.joined(separator: ", ") + ") IS DISTINCT FROM ("
        + others.map { "EXCLUDED.\($0)" }.joined(separator: ", ") + ")"
    try connection.execute(
      "INSERT INTO \(table.name) (\(list)) SELECT \(list) FROM healthport_staging ON CONFLICT (\(key)) \(conflict)")
    try connection.execute("DROP TABLE healthport_staging")
  }

  /// Streams the rows of `select` (`table`'s columns in order) into `COPY destination` (`FREEZE`
  /// into a table created in this transaction); sends nothing when there are no rows, unless
  /// `always`.
  @discardableResult
  func stream(
    _ table: MirrorSchema.Table, _ select: SQLiteStatement, into destination: String, freeze: Bool,
    always: Bool = false
  ) throws -> Int64? {
    var more = try select.step()
    guard more || always else { return nil }
    let idColumn = table.columns.firstIndex { $0.name == "id" }.map(Int32.init)
    var lastID: Int64?
    let list = table.columns.map(\.name).joined(separator: ", ")
    let writer = try PGCopyWriter(
      connection: connection,
      sql: "COPY \(destination) (\(list)) FROM STDIN (FORMAT binary\(freeze ? ", FREEZE" : ""))")
    let types = table.columns.map(\.type)
    while more {
      try writer.beginRow(fields: types.count)
      for (index, type) in types.enumerated() {
        let position = Int32(index)
        if select.isNull(position) {
          writer.appendNull()
          continue
        }
        switch type {
        case .integer: writer.append(select.int64(position))
        case .real: writer.append(select.double(position))
        case .text, .bytes: select.withBytes(position) { writer.append(bytes: $0) }
        case .json: select.withBytes(position) { writer.append(json: $0) }
        }
      }
      if let idColumn { lastID = select.int64(idColumn) }
      more = try select.step()
    }
    try writer.finish()
    return lastID
  }

  /// Brings `table` of an existing store to the mirror through what `changes` noted: the noted
  /// rows deleted (their ids copied into the temporary table `healthport_gone`, created once per
  /// transaction: `goneTable`), then the mirror's new and noted rows copied in.
  private func sendChanges(
    _ table: MirrorSchema.Table, from db: SQLiteConnection, changes: MirrorChanges, goneTable: inout Bool
  ) throws {
    guard let column = changes.deleteColumn(table.name),
      let sql = changes.select(table.name, columns: table.columns.map(\.name).joined(separator: ", "))
    else { return }
    let count = try db.prepare("SELECT count(*) FROM \(MirrorChanges.table) WHERE tbl = ?")
    try count.bind(1, table.name)
    let changed = try count.step() ? count.int64(0) : 0
    if changed >= Self.rewriteRows, try changed * 2 > db.scalarInt("SELECT count(*) FROM \(table.name)") ?? 0 {
      try rewrite(table, from: db)
      return
    }
    let noted = try db.prepare("SELECT id FROM \(MirrorChanges.table) WHERE tbl = ?")
    try noted.bind(1, table.name)
    try delete(noted, from: table.name, by: column, goneTable: &goneTable)
    try stream(table, try db.prepare(sql), into: table.name, freeze: false)
  }

  /// Deletes the rows of the store's `table` whose `column` is one of the ids `noted` selects,
  /// through the temporary table `healthport_gone` (created once per transaction: `goneTable`).
  private func delete(_ noted: SQLiteStatement, from table: String, by column: String, goneTable: inout Bool) throws {
    guard try noted.step() else { return }
    if goneTable {
      try connection.execute("TRUNCATE healthport_gone")
    } else {
      try connection.execute("CREATE TEMP TABLE healthport_gone (id bigint NOT NULL) ON COMMIT DROP")
      goneTable = true
    }
    let writer = try PGCopyWriter(connection: connection, sql: "COPY healthport_gone (id) FROM STDIN (FORMAT binary)")
    repeat {
      try writer.beginRow(fields: 1)
      writer.append(noted.int64(0))
    } while try noted.step()
    try writer.finish()
    try connection.execute("ANALYZE healthport_gone")
    try connection.execute("DELETE FROM \(table) AS t USING healthport_gone AS g WHERE t.\(column) = g.id")
  }

  /// Sends what is left of `table` of a new store after its rows up to id `sent` were streamed
  /// (``MirrorStream``): the rows the load updated or deleted since are deleted (noted by the
  /// mirror's triggers), then the noted and the newer rows copied in, frozen.
  private func sendRest(
    _ table: MirrorSchema.Table, from db: SQLiteConnection, sentUpTo sent: Int64, goneTable: inout Bool
  ) throws {
    let noted = try db.prepare("SELECT id FROM \(MirrorChanges.table) WHERE tbl = ? AND id <= ?")
    try noted.bind(1, table.name)
    try noted.bind(2, sent)
    try delete(noted, from: table.name, by: "id", goneTable: &goneTable)
    var changes = MirrorChanges()
    changes.tables[table.name] = MirrorChanges.Table(tracking: .byID, newAbove: sent)
    guard let sql = changes.select(table.name, columns: table.columns.map(\.name).joined(separator: ", ")) else {
      return
    }
    try stream(table, try db.prepare(sql), into: table.name, freeze: true)
  }

  /// A table with at least this many changed rows, more than half of its rows, is written anew
  /// (``rewrite(_:from:)``) rather than row by row.
  static let rewriteRows: Int64 = 10_000

  /// Writes `table` anew from the mirror, as a new store's: emptied (`TRUNCATE`, which holds the
  /// table exclusively until the commit), its key and indexes dropped, every row copied in frozen,
  /// the key and indexes built from the sorted rows. A second load of the same export changes
  /// every record (each notes the last export that held it): one index insertion per row and
  /// index was most of such a load's time.
  private func rewrite(_ table: MirrorSchema.Table, from db: SQLiteConnection) throws {
    try connection.execute("TRUNCATE \(table.name)")
    for index in table.indexes { try connection.execute("DROP INDEX IF EXISTS \(MirrorSchema.indexName(index))") }
    if let key = try connection.scalar(
      "SELECT conname FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'", [qualified(table.name)])
    {
      try connection.execute("ALTER TABLE \(table.name) DROP CONSTRAINT \(PGConnection.quoteIdentifier(key))")
    }
    try copy(table, from: db, into: table.name)
    try connection.execute(MirrorSchema.addKey(table))
    for index in table.indexes { try connection.execute(index) }
  }

  private func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
  }
}
