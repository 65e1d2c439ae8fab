import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// `convert --to sqlite`: the SQLite store as an output format of the ``FormatRegistry``. It
/// loads the input into the database at `-o PATH` exactly as `healthport load INPUT --db PATH`
/// does (only `--type` filters; load everything, then query).
package enum SQLiteOutput {
  package static let format = OutputFormat(
    name: "sqlite", summary: "a healthport SQLite database, as `healthport load` writes it",
    options: [keepPartial], needsPath: true, filters: .typesOnly,
    makeWriter: { try Writer(request: $0) })

  /// A new database is kept after a damaged input, with what was read before the damage.
  package static let keepPartial = OutputFormatOption(
    name: "keepPartial", help: "SQLite only: keep a new database after a damaged input, with what was read before it.")

  /// One conversion's load into a database, as one ``SQLiteLoadJob`` input.
  ///
  /// ``commit()`` finishes the database (a new one, built under a temporary name, is linked into
  /// place). ``abort()`` follows the job's rules: after a damaged input an existing database
  /// keeps every whole element read before the damage, as `load` does, and a new one is not
  /// created (unless `--keep-partial`); after a failure of the store it rolls back and leaves no
  /// new database.
  package final class Writer: FormatWriter {
    /// The database file (`-o PATH`).
    package let database: String
    private let session: SQLiteLoadSession
    private let input: SQLiteInputLoad
    private let keepsPartial: Bool
    private var ended = false

    /// Opens (or begins) the database at `request.path` for the input `request.input`.
    package init(request: OutputRequest) throws {
      guard let path = request.path else {
        throw HealthPortError(.needsOutputPath(.format(SQLiteOutput.format.name)))
      }
      // Checked before the database is created, so that a typo leaves no empty database behind.
      if let input = request.input, input != "-", access(input, R_OK) != 0 {
        throw HealthPortError(.failure, file: input, message: "cannot open: \(String(cString: strerror(errno)))")
      }
      database = path
      keepsPartial = request.flag(SQLiteOutput.keepPartial.name)
      session = try SQLiteLoadSession(
        database: path, busyTimeoutMilliseconds: SQLiteDatabase.defaultBusyTimeoutMilliseconds)
      do {
        input = try session.startInput(
          path: request.input, person: "", batchRows: SQLiteLoader.defaultBatchRows, pipelined: true)
      } catch {
        session.discard()
        throw error
      }
    }

    package var sink: ExportSink { input.sink }

    /// What the load did (valid once the read has ended); its `warnings` are for stderr.
    package var result: SQLiteLoader.Result { input.loader.result }

    package func commit() throws {
      guard !ended else { return }
      ended = true
      input.close()
      session.finished(input)
      try finishDatabase()
    }

    package func abort() {
      guard !ended else { return }
      ended = true
      if session.isNew && !keepsPartial {
        _ = input.abandon(nil)
        input.close()
        session.discard()
        return
      }
      do {
        try input.keepWholeElements(after: nil)
      } catch {
        input.close()
        session.discard()
        return
      }
      input.close()
      try? finishDatabase()
    }

    /// The notes among the load's warnings (a CSV without rows), not the reader's quirk counts;
    /// ``loadWarnings`` has them all, a second person's export included, as data.
    package func warnings(_ report: ReadReport) -> [String] {
      result.warnings.compactMap { if case .text(let text) = $0 { text } else { nil } }
    }

    /// What `load` tells about this input, in order.
    package var loadWarnings: [LoadWarning] { result.warnings }

    /// The lines `load` prints for this input (rows added per table).
    package func summary(_ report: ReadReport) -> String? {
      result.summary(database: database, person: "")
    }

    private func finishDatabase() throws {
      do {
        try session.close()
      } catch {
        session.discard()
        throw error
      }
      do {
        try session.install()
      } catch let meanwhile as SQLiteDatabase.CreatedMeanwhile {
        throw meanwhile.error
      }
    }
  }
}
