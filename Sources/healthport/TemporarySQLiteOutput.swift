import HealthPort

// TEMPORARY (issue 12 merge). `convert --to sqlite` runs `healthport load` until HealthPortSQLite's
// `SQLiteOutput.format` is merged. Then `ConvertCommand.registry` registers that format instead
// (`registry.register(SQLiteOutput.format)`), `ConvertCommand.run` drops its one call to
// `TemporarySQLiteOutput.convert`, and this file goes.

/// `--to sqlite` as a registry entry (its name, options, usage errors and help), converted by `load`.
enum TemporarySQLiteOutput {
  static let format = OutputFormat(
    name: "sqlite", summary: "a SQLite database, as `healthport load` writes it", needsPath: true,
    filters: .typesOnly, missingPathMessage: "--to sqlite needs -o PATH (the database)",
    helpNote: "--to sqlite is `healthport load INPUT --db PATH` (needs -o PATH).",
    makeWriter: { _ in throw HealthPortError(.failure, message: "--to sqlite is converted by `healthport load`") })

  /// Loads the input into the database `-o` names when `format` is this one, and returns true;
  /// false for any other format. `filter` holds `--type` at most (``OutputFormat/FilterSupport/typesOnly``).
  static func convert(_ format: OutputFormat, request: OutputRequest, filter: ExportFilter, command: String) throws
    -> Bool
  {
    guard format.name == Self.format.name, let database = request.path else { return false }
    var typesOnly = ExportFilter()
    typesOnly.types = filter.types
    try LoadCommand.load(
      inputs: [request.input], database: database, person: "", quiet: request.quiet,
      skipInvalid: request.skipInvalid, filter: typesOnly, command: command)
    return true
  }
}
