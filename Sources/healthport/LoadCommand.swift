import HealthPort
import HealthPortPostgres
import HealthPortSQLite

#if canImport(Glibc)
  import Glibc
#endif

/// `healthport load`: bulk-loads exports into a SQLite database, idempotently.
enum LoadCommand: Command {
  static let name = "load"
  static let summary = "Load exports into a SQLite database (normalized schema; re-loading adds only what is new)."
  static let options = [
    OptionSpec(
      name: "--db", short: nil, valueName: "path",
      help: "The SQLite database to create or add to, or a PostgreSQL database (postgresql://…)."),
    OptionSpec(
      name: "--schema", short: nil, valueName: "name",
      help: "The PostgreSQL schema of the store (default healthport)."),
    OptionSpec(
      name: "--postgis", short: nil, valueName: nil,
      help: "Create PostgreSQL's postgis extension when missing (routes go into PostGIS whenever it is there)."),
    OptionSpec(
      name: "--person", short: nil, valueName: "name",
      help: "Whose export this is; keeps several people apart in one database."),
    OptionSpec(name: "--quiet", short: "-q", valueName: nil, help: "No progress bar and no summary."),
    OptionSpec(
      name: "--type", short: nil, valueName: "type",
      help:
        "Only these record types (repeatable or comma-separated); a single one names the rows of a CSV without a type column.",
      repeatable: true),
    ReadingFlags.skipInvalidOption,
    OptionSpec(
      name: "--keep-partial", short: nil, valueName: nil,
      help: "Keep a new database after a damaged input, with what was read before the damage."),
  ]
  static let usage = """
    USAGE: healthport load [INPUT ...] --db <path> [--person <name>] [--type <type>] [--keep-partial] [--quiet]

    ARGUMENTS:
      INPUT                       export.xml, export.zip, an export folder, or - for stdin (default).
                                  Several inputs are loaded one after the other.

    The database is created when missing (built under a temporary name, renamed when complete).
    A database that healthport did not create, or of a later schema version, is refused and left
    unchanged; an older healthport database is migrated. Loading an export again adds nothing;
    loading a newer export adds only what is new. An interrupted load leaves the database
    consistent: run the command again. A truncated export loaded into an existing database keeps
    every whole element before the damage (its load marked incomplete); a new database is then
    not created, unless --keep-partial. --db is a file path (`file:` has no meaning). The schema
    and views are in docs/sqlite.md.

    --db postgresql://user@host/dbname (or postgres://, with libpq's parameters) loads into a
    PostgreSQL database instead, in schema --schema (default healthport): the same tables and
    views, one transaction per export (docs/postgresql.md).

    EXAMPLES:
      healthport load export.zip --db health.db
      healthport load alice/export.zip --db family.db --person alice
      healthport load export.zip --db postgresql://me@localhost/health
      sqlite3 health.db 'SELECT * FROM daily_steps ORDER BY period DESC LIMIT 7'
    """

  static func run(_ arguments: ParsedArguments) throws {
    guard let database = arguments.value("--db") else {
      throw HealthPortError(.usage, message: "missing --db <path> (the database to load into)")
    }
    let quiet = arguments.flag("--quiet")
    let inputs: [String?] = arguments.positionals.isEmpty ? [nil] : arguments.positionals.map { $0 }
    if inputs.filter({ $0 == nil || $0 == "-" }).count > 1 {
      throw HealthPortError(.usage, message: "stdin (-) can be read only once")
    }
    let schema = arguments.value("--schema")
    if PostgresTarget.isURI(database) {
      let filter = try FilterOptions.parse(arguments, command: name)
      try loadPostgres(
        inputs: inputs, uri: database, schema: schema ?? "healthport", person: arguments.value("--person") ?? "",
        quiet: quiet, skipInvalid: arguments.flag("--skip-invalid"), postgis: arguments.flag("--postgis"),
        filter: filter)
      return
    }
    if arguments.flag("--postgis") {
      throw HealthPortError(.usage, message: "--postgis is for PostgreSQL: --db must be postgresql://…")
    }
    if schema != nil {
      throw HealthPortError(.usage, message: "--schema names a PostgreSQL schema: --db must be postgresql://…")
    }
    if let conflict = ReadFiles(inputs).conflict(withFile: database) { throw conflict }
    // `--type` means what it means in every reading command: a single one names the rows of a
    // CSV without a type column; otherwise (and for the rows of any other input) it filters.
    let filter = try FilterOptions.parse(arguments, command: name)
    // Batches of elements and SQLite's buffers come and go all run long: each large one its own
    // mapping, not holes in the heap.
    LargeAllocations.mapAbove()
    try load(
      inputs: inputs, database: database, person: arguments.value("--person") ?? "", quiet: quiet,
      skipInvalid: arguments.flag("--skip-invalid"), keepPartial: arguments.flag("--keep-partial"), filter: filter)
  }

  /// Checks the inputs, runs the ``SQLiteLoadJob`` with progress bars and prints what it did.
  /// `filter` holds `--type` only.
  static func load(
    inputs: [String?], database: String, person: String, quiet: Bool, skipInvalid: Bool, keepPartial: Bool = false,
    filter: ExportFilter = ExportFilter()
  ) throws {
    var job = SQLiteLoadJob(database: database, person: person)
    job.keepPartial = keepPartial
    try runLoad(
      job, inputs: inputs, shownAs: database, person: person, quiet: quiet, skipInvalid: skipInvalid, filter: filter)
  }

  /// Loads into PostgreSQL (``PostgresLoadJob``), with progress bars, as ``load(inputs:database:person:quiet:skipInvalid:keepPartial:filter:)``.
  static func loadPostgres(
    inputs: [String?], uri: String, schema: String, person: String, quiet: Bool, skipInvalid: Bool,
    postgis: Bool, filter: ExportFilter
  ) throws {
    var job = PostgresLoadJob(uri: uri, schema: schema, person: person)
    job.createPostGIS = postgis
    let shown = PostgresTarget.redacted(uri) + " (schema \(schema))"
    try runLoad(
      job, inputs: inputs, shownAs: shown, person: person, quiet: quiet, skipInvalid: skipInvalid, filter: filter)
  }

  /// What both stores' loads share: the inputs checked before the store is touched (so a typo leaves
  /// no empty database behind), a progress bar per input, then the skipped count, the warnings and
  /// (unless quiet) a summary per export naming the store as `shownAs`.
  private static func runLoad(
    _ job: some ExportLoadJob, inputs: [String?], shownAs: String, person: String, quiet: Bool, skipInvalid: Bool,
    filter: ExportFilter
  ) throws {
    for case let input? in inputs where input != "-" && access(input, R_OK) != 0 {
      throw HealthPortError(.failure, file: input, message: "cannot open: \(String(cString: strerror(errno)))")
    }
    // Like every reading command: no silent wait on a terminal, and a database given as INPUT is named.
    for input in inputs { try FilterOptions.checkInput(input, command: name) }
    var bars: [ProgressBar] = []
    let results = try job.run(
      paths: inputs,
      readOptions: { path in
        let bar = ProgressBar.make(inputPath: path, quiet: quiet)
        if let bar { bars.append(bar) }
        return .with(bar, skipInvalid: skipInvalid, filter: filter)
      },
      wrap: { FilterOptions.wrap($0, in: filter) })
    for bar in bars { bar.finish() }
    ReadingFlags.reportSkipped(results.reduce(0) { $0 + $1.skipped }, command: "load")
    for result in results {
      for warning in result.warnings {
        CommandLineTool.writeError("healthport load: warning: \(text(of: warning))\n")
      }
    }
    guard !quiet else { return }
    for result in results { CommandLineTool.writeError(result.summary(database: shownAs, person: person)) }
  }

  /// A warning of a load in words.
  static func text(of warning: LoadWarning) -> String {
    switch warning {
    case .text(let text):
      return text
    case .anotherPersonsMe(let path, let person):
      let who = person.isEmpty ? "without --person" : "as person '\(person)'"
      return "\(path): the database already holds an export with another date of birth or biological sex "
        + "(the Me element) for the same person: this looks like someone else's export, loaded \(who). Load "
        + "each person's export with --person NAME to keep them apart."
    case .anotherPersonsRecords(
      let path, let person, let heldFirstDay, let heldLastDay, let firstDay, let lastDay,
      let reasons):
      let who = person.isEmpty ? "'' (no --person)" : "'\(person)'"
      return "\(path): this looks like another person's export: the database holds records of person \(who) from "
        + "\(heldFirstDay) to \(heldLastDay), and this export's records run from \(firstDay) to \(lastDay); "
        + reasons.joined(separator: ", and ")
        + ". Its rows were added to the same person: load each person's export with --person NAME to keep them apart."
    }
  }
}
