import HealthPort
import SQLiteStore

/// Loads exports into one healthport database, one after the other: what `healthport load` and
/// `convert --to sqlite` run.
///
/// Each input is read with ``ExportReader`` into a ``SQLiteLoader`` (parsing on the caller's
/// thread, SQLite on another). A new database is built under a temporary name and put in place
/// at the end; an existing one is loaded in place through its WAL. A reader's error (a truncated
/// or malformed input) stops the job, then is rethrown: an existing database keeps every whole
/// element read before it (`completed = 0`); a new one is not created, unless ``keepPartial``.
/// A store error rolls back the batch in flight and leaves no new database.
package struct SQLiteLoadJob: ExportLoadJob, Sendable {
  /// The database file to create or add to.
  package var database: String
  /// Whose exports these are (`""` when not given).
  package var person: String
  /// Rows (inserted or updated) per transaction.
  package var batchRows = SQLiteLoader.defaultBatchRows
  /// Runs SQLite on a thread of its own (about twice as fast on two cores).
  package var pipelined = true
  /// How long to wait for another connection's write lock before giving up.
  package var busyTimeoutMilliseconds = SQLiteDatabase.defaultBusyTimeoutMilliseconds
  /// A new database whose input failed is kept with what was read before the damage
  /// (`--keep-partial`), instead of not being created.
  package var keepPartial = false
  /// A private copy that is thrown away after a failure (the PostgreSQL store's mirror): no
  /// journal and no fsync, an existing file opened exclusively without a checkpointer or an
  /// integrity check, a new one put in place without waiting for the disk.
  package var scratch = false
  /// With ``scratch``: the file stays in WAL mode and unlocked between batches, so that another
  /// connection may read each committed batch while the load goes on.
  package var sharedScratch = false
  /// Called on the loader's thread after each full batch's commit (not the last one); an error
  /// it throws stops the load as a store error does (the next batch is not begun).
  package var afterBatch: (@Sendable () throws -> Void)?

  /// The parallel reader's ranges while SQLite loads on its own thread: SQLite is the slower
  /// side, so the reader's window of parsed ranges is always full, and half of the default
  /// range keeps it at the same memory however the elements are shaped (a window of
  /// heart-rate-variability Records holds twice the memory of plain ones).
  static let rangeBytes = 256 << 10

  package init(database: String, person: String = "") {
    self.database = database
    self.person = person
  }

  /// One `exports` row per result.
  package func run(
    paths: [String?], readOptions: (String?) -> ReadOptions, wrap: (ExportSink) -> ExportSink
  ) throws -> [SQLiteLoader.Result] {
    do {
      return try runOnce(paths: paths, readOptions: readOptions, wrap: wrap)
    } catch let meanwhile as SQLiteDatabase.CreatedMeanwhile {
      // Two loads began a new database at once and the other one finished first: load into
      // that database now (waiting for its lock as for any other load), which adds only what is
      // new. Stdin cannot be read twice.
      guard !paths.contains(where: { $0 == nil || $0 == "-" }) else { throw meanwhile.error }
      do {
        return try runOnce(paths: paths, readOptions: readOptions, wrap: wrap)
      } catch let again as SQLiteDatabase.CreatedMeanwhile {
        throw again.error
      }
    }
  }

  private func runOnce(
    paths: [String?], readOptions: (String?) -> ReadOptions, wrap: (ExportSink) -> ExportSink
  ) throws -> [SQLiteLoader.Result] {
    let session = try SQLiteLoadSession(
      database: database, busyTimeoutMilliseconds: busyTimeoutMilliseconds, scratch: scratch,
      shared: sharedScratch)
    var readerError: Error?
    do {
      for path in paths {
        let input = try session.startInput(path: path, person: person, batchRows: batchRows, pipelined: pipelined)
        input.loader.afterBatch = afterBatch
        defer { input.close() }
        do {
          var options = readOptions(path)
          if pipelined { options.rangeSize = min(options.rangeSize, Self.rangeBytes) }
          try ExportReader(path: path, options: options).read(into: wrap(input.sink))
        } catch {
          try input.keepWholeElements(after: error)
          readerError = error
          break
        }
        session.finished(input)
      }
      // A new database is not created from a damaged input (the catch below discards it).
      if let readerError, session.isNew, !keepPartial { throw readerError }
      try session.close()
    } catch {
      session.discard()
      throw error
    }
    try session.install()
    if let readerError { throw readerError }
    return session.results
  }
}

/// A load of exports into a store, one after the other: ``SQLiteLoadJob``, and the PostgreSQL
/// store's job, which loads each export through one.
package protocol ExportLoadJob {
  /// Loads each export in `paths` (nil or `-` for stdin); one result per input that held at least
  /// one element. `readOptions` gives each input's reader options (progress bars); `wrap` puts
  /// stages (a filter) between the reader and the loader.
  func run(
    paths: [String?], readOptions: (String?) -> ReadOptions, wrap: (ExportSink) -> ExportSink
  ) throws -> [SQLiteLoader.Result]
}

extension ExportLoadJob {
  /// Loads each export in `paths` with the default reader options and no stages between.
  @discardableResult
  package func run(paths: [String?]) throws -> [SQLiteLoader.Result] {
    try run(paths: paths, readOptions: { _ in ReadOptions() }, wrap: { $0 })
  }
}

extension SQLiteLoader {
  /// Loads each export in `paths` into the database at `database` (see ``SQLiteLoadJob``).
  @available(*, deprecated, message: "use SQLiteLoadJob(database:person:).run(paths:readOptions:wrap:)")
  @discardableResult
  package static func load(
    paths: [String?], database: String, person: String = "",
    readOptions: (String?) -> ReadOptions = { _ in ReadOptions() },
    wrap: (ExportSink) -> ExportSink = { $0 },
    batchRows: Int = defaultBatchRows, pipelined: Bool = true,
    busyTimeoutMilliseconds: Int32 = defaultBusyTimeoutMilliseconds
  ) throws -> [Result] {
    var job = SQLiteLoadJob(database: database, person: person)
    job.batchRows = batchRows
    job.pipelined = pipelined
    job.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    return try job.run(paths: paths, readOptions: readOptions, wrap: wrap)
  }
}

/// One database for the length of a job: opened (or begun under a temporary name) at the start,
/// then ``close()``d and ``install()``ed, or ``discard()``ed after an error.
final class SQLiteLoadSession {
  let database: String
  private let new: SQLiteDatabase.NewDatabase?
  private let db: SQLiteConnection
  private let checkpointer: Checkpointer?
  private let scratch: Bool
  /// One per input that held at least one element, in input order.
  private(set) var results: [SQLiteLoader.Result] = []

  init(database: String, busyTimeoutMilliseconds: Int32, scratch: Bool = false, shared: Bool = false) throws {
    self.database = database
    self.scratch = scratch
    let new = try SQLiteDatabase.newDatabase(path: database)
    let db: SQLiteConnection
    do {
      if let new {
        db = try new.open(busyTimeoutMilliseconds: busyTimeoutMilliseconds)
      } else if scratch {
        db = try SQLiteDatabase.openScratch(path: database, shared: shared)
      } else {
        db = try SQLiteDatabase.open(path: database, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
      }
    } catch {
      new?.discard()
      throw Self.storeError(error, database: database)
    }
    do {
      checkpointer = try new == nil && !scratch ? SQLiteDatabase.startCheckpointer(db) : nil
    } catch {
      try? db.close()
      new?.discard()
      throw Self.storeError(error, database: database)
    }
    self.new = new
    self.db = db
  }

  /// A SQLite error as the user reads it (naming the database); other errors unchanged.
  static func storeError(_ error: Error, database: String) -> Error {
    guard let error = error as? SQLiteError else { return error }
    return SQLiteDatabase.databaseError(error, path: database)
  }

  /// The loader for the next input (`path` nil or `-` for stdin).
  func startInput(path: String?, person: String, batchRows: Int, pipelined: Bool) throws -> SQLiteInputLoad {
    let loader = try SQLiteLoader(database: db, person: person, inputPath: path ?? "-", batchRows: batchRows)
    loader.checkpointer = checkpointer
    let database = database
    let pipeline =
      pipelined ? LoaderPipeline(sink: loader, storeError: { Self.storeError($0, database: database) }) : nil
    return SQLiteInputLoad(loader: loader, pipeline: pipeline, session: self)
  }

  /// True when the database is being created by this job (under its temporary name).
  var isNew: Bool { new != nil }

  /// Keeps the result of an input read to its end.
  func finished(_ input: SQLiteInputLoad) { results.append(input.loader.result) }

  /// Ends the checkpointer and closes the connection; a new database leaves in WAL mode, as every
  /// later load leaves it (which then needs no exclusive lock to switch).
  func close() throws {
    do {
      try checkpointer?.finish()
      if new != nil, !results.isEmpty, !scratch { _ = try db.scalarText("PRAGMA journal_mode = WAL") }
      try db.close()
    } catch {
      try? checkpointer?.finish()
      try? db.close()
      throw Self.storeError(error, database: database)
    }
  }

  /// Puts a new database in place after ``close()``; an input found empty before its first
  /// element creates nothing.
  func install() throws {
    guard let new else { return }
    if results.isEmpty { new.discard() } else { try new.install(durable: !scratch) }
  }

  /// After an error: closes what is open and removes a new database.
  func discard() {
    try? checkpointer?.finish()
    try? db.close()
    new?.discard()
  }
}

/// One input's load inside a ``SQLiteLoadSession``: its loader, fed through ``sink``.
final class SQLiteInputLoad {
  let loader: SQLiteLoader
  private let pipeline: LoaderPipeline?
  private unowned let session: SQLiteLoadSession

  init(loader: SQLiteLoader, pipeline: LoaderPipeline?, session: SQLiteLoadSession) {
    self.loader = loader
    self.pipeline = pipeline
    self.session = session
  }

  /// Where the reader's elements go.
  var sink: ExportSink { pipeline ?? loader }

  /// True when the read ended because the store failed rather than the input (`error` is the
  /// error that ended it, nil when unknown).
  func storeFailed(_ error: Error?) -> Bool { pipeline?.sinkFailed ?? (error is SQLiteError) }

  /// After the read ended with `error`: when the input is damaged, commits every whole element
  /// read before it and keeps the input's result (when it began); when the store failed, rolls
  /// the batch back and throws the store's error.
  func keepWholeElements(after error: Error?) throws {
    if storeFailed(error) { throw abandon(error) }
    do {
      if let pipeline { try pipeline.finishAfterReadError() } else { try loader.commitPartial() }
    } catch {
      throw abandon(error)
    }
    if loader.began { session.finished(self) }
  }

  /// Stops the loader and rolls back its open batch; returns `error` as the user reads it.
  func abandon(_ error: Error?) -> Error {
    pipeline?.cancel()
    loader.abort()
    return SQLiteLoadSession.storeError(error ?? CancellationError(), database: session.database)
  }

  /// Finalizes the loader's statements.
  func close() { loader.close() }
}
