import HealthPort
import HealthPortSQLite
import SQLiteStore

#if canImport(Glibc)
  import Glibc
#endif

/// Loads exports into a schema of a PostgreSQL database: what `healthport load --db postgresql://…`
/// runs.
///
/// The rows are the SQLite store's, by construction: each export is loaded by ``SQLiteLoadJob``
/// into a private SQLite copy of the store (in `TMPDIR`), which applies every rule of the SQLite
/// store (natural keys, rewrites counted once, the latest export's date strings, the warning about
/// a second person), then the store is brought to that copy in one transaction per export, its
/// rows sent with binary `COPY`. A load killed at any point leaves the store as it was before
/// that export. One load per schema at a time: the others wait on an advisory lock.
package struct PostgresLoadJob: ExportLoadJob, Sendable {
  /// The libpq URI (`postgresql://…` or `postgres://…`).
  package var uri: String
  /// The schema of the store (`--schema`).
  package var schema: String
  /// Whose exports these are (`""` when not given).
  package var person: String
  /// Creates the `postgis` extension when missing (`--postgis`); routes go into PostGIS whenever
  /// the database has it.
  package var createPostGIS = false
  /// How long to wait for another load of the same schema.
  package var lockWaitSeconds = 90.0

  package init(uri: String, schema: String = "healthport", person: String = "") {
    self.uri = uri
    self.schema = schema
    self.person = person
  }

  package func run(
    paths: [String?], readOptions: (String?) -> ReadOptions, wrap: (ExportSink) -> ExportSink
  ) throws -> [SQLiteLoader.Result] {
    let connection = try PostgresTarget.connect(uri)
    let store = PostgresStore(connection: connection, uri: uri, schema: schema)
    try store.lock(waitingUpTo: lockWaitSeconds)
    var version = try store.schemaVersion()
    if let version, version > SQLiteSchema.version {
      throw PostgresTarget.failure(
        "schema \(schema) of \(PostgresTarget.redacted(uri)) is of healthport schema version \(version), "
          + "later than this healthport's (\(SQLiteSchema.version)): it was left unchanged; load with a newer "
          + "healthport")
    }
    let scratch = try Self.scratchFolder()
    defer { Self.remove(scratch) }
    let mirror = scratch + "/store.db"
    if version != nil {
      try store.dump(into: mirror)
    } else {
      let db = try SQLiteDatabase.open(path: mirror)
      for index in MirrorSchema.indexesNotLoaded { try db.execute("DROP INDEX \(index)") }
      // The rows a new store's first load updates after they were streamed (``MirrorStream``).
      try MirrorChanges.createTable(db)
      for table in MirrorStream.tables(try MirrorSchema(db)) { try MirrorChanges.noteUpdates(db, table) }
      try db.close()
    }
    // A store of the current version gets only what each load changes in the mirror.
    var changes: MirrorChanges?
    var results: [SQLiteLoader.Result] = []
    for path in paths {
      if version == SQLiteSchema.version { try Self.track(mirror, &changes) }
      var job = SQLiteLoadJob(database: mirror, person: person)
      job.scratch = true
      // A new store: its transaction begins now, and its big tables are sent while they load.
      var opened: PostgresStore.Opened?
      var stream: MirrorStream?
      if version == nil {
        let schema = try Self.schema(mirror)
        opened = try store.open(schema, mode: .create, createPostGIS: createPostGIS)
        let started = MirrorStream(store: store, mirror: mirror, tables: MirrorStream.tables(schema))
        stream = started
        job.sharedScratch = true
        job.batchRows = MirrorStream.batchRows
        // A server error stops the load at the next batch, not after the whole export.
        job.afterBatch = { try started.request() }
      }
      let loaded: [SQLiteLoader.Result]
      var streamed: [String: Int64] = [:]
      do {
        loaded = try job.run(paths: [path], readOptions: readOptions, wrap: wrap)
        streamed = try stream?.finish() ?? [:]
      } catch {
        stream?.cancel()
        if opened != nil { store.rollBack() }
        throw error
      }
      guard !loaded.isEmpty else {
        if opened != nil { store.rollBack() }
        continue
      }
      var mode = PostgresStore.SyncMode.create
      if let version { mode = version < SQLiteSchema.version ? .migrate : .update }
      try store.sync(
        from: mirror, mode: mode, changes: changes, createPostGIS: createPostGIS, opened: opened, streamed: streamed)
      version = SQLiteSchema.version
      results += loaded
    }
    return results
  }

  /// The schema of the mirror at `path`.
  static func schema(_ path: String) throws -> MirrorSchema {
    let db = try SQLiteConnection(path: path, mode: .readOnly)
    defer { try? db.close() }
    return try MirrorSchema(db)
  }

  /// Starts noting what the next load changes in the mirror at `path` (``MirrorChanges``), or
  /// starts over after a load the store has taken.
  static func track(_ path: String, _ changes: inout MirrorChanges?) throws {
    let db = try SQLiteConnection(path: path, mode: .readWrite)
    defer { try? db.close() }
    if changes == nil {
      changes = try MirrorChanges.track(db, MirrorSchema(db))
    } else {
      try changes?.restart(db)
    }
  }

  /// A new private folder in `TMPDIR` (or `/tmp`).
  static func scratchFolder() throws -> String {
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array((base + "/healthport-postgres-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else {
      throw HealthPortError(
        .failure, file: base, message: "cannot create a temporary folder: \(String(cString: strerror(errno)))")
    }
    return String(cString: made)
  }

  /// Removes the scratch folder and the files in it.
  static func remove(_ folder: String) {
    if let directory = opendir(folder) {
      while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { unlink(folder + "/" + name) }
      }
      closedir(directory)
    }
    rmdir(folder)
  }
}
