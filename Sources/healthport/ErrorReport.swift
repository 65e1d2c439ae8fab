import HealthPort

/// The one place where an error becomes what a person reads and the exit status (docs/errors.md):
/// the library's errors carry data (``HealthPortError/Reason``), and only here are options named.
enum ErrorReport {
  /// The exit status of a kind (`sysexits.h`: 64 `EX_USAGE`, 65 `EX_DATAERR`).
  static func exitCode(_ kind: HealthPortError.Kind) -> Int32 {
    switch kind {
    case .usage, .badRequest: 64
    case .failure: 1
    case .malformed: 65
    }
  }

  /// The line printed for `error` (without its newline) and the exit status, for a run of
  /// `command` (nil before the subcommand is known).
  static func report(_ error: HealthPortError, command: String?) -> (text: String, exitCode: Int32) {
    (text(of: error, command: command), exitCode(error.kind))
  }

  /// An error as printed: located errors as `path:line:col: error: …`, the others after the
  /// program's name, with the subcommand's for a bad command line (`healthport convert: error: …`;
  /// a malformed sample: `healthport: error: …`).
  static func text(of error: HealthPortError, command: String?) -> String {
    let located = error.located(message(of: error))
    guard error.file == nil else { return located }
    let namesCommand = error.kind == .usage || error.kind == .badRequest
    let program = (namesCommand ? command : nil).map { "healthport \($0)" } ?? "healthport"
    return "\(program): \(located)"
  }

  /// The words of `error`, without its location.
  static func message(of error: HealthPortError) -> String {
    guard let reason = error.reason else { return error.message }
    return message(of: reason)
  }

  /// The option that sets `setting`.
  static func option(_ setting: HealthPortError.Setting) -> String {
    switch setting {
    case .types: "--type"
    case .activities: "--activity"
    case .from: "--from"
    case .to: "--to"
    case .timeZone: "--tz"
    case .person: "--person"
    case .partitionKeys: "--partition-by"
    case .compression: "--compression"
    case .split: "--split"
    case .format(let name): "--to \(name)"
    case .formatFolder(let name): "--to \(name) -o DIR/"
    case .routesPerWorkout: "--per-workout"
    }
  }

  static func message(of reason: HealthPortError.Reason) -> String {
    switch reason {
    case .unknownName(let setting, let value, let suggestions, let example):
      let what = setting == .activities ? "activity" : "type"
      return "unknown \(what) '\(value)' for \(option(setting))\(didYouMean(suggestions)); give a short name such "
        + "as '\(example)' or a full identifier starting with HK"
    case .unknownTimeZone(let value, let suggestions):
      return "unknown time zone '\(value)' for --tz\(didYouMean(suggestions)); give an offset such as +02:00 or "
        + "an IANA name such as Europe/Berlin"
    case .badDate(let setting, let value):
      return "'\(value)' is not a valid date for \(option(setting)); use YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][±HH:MM]"
    case .badValue(let setting, let value, let choices):
      let what =
        switch setting {
        case .partitionKeys: "partition key"
        case .compression: "codec"
        default: "value"
        }
      return "unknown \(what) '\(value)' for \(option(setting)) (one of \(choices.joined(separator: ", ")))"
    case .repeatedValue(let setting, let value):
      return "\(option(setting)) names '\(value)' twice"
    case .emptyValue(let setting):
      return "\(option(setting)) needs a name"
    case .reservedValue(let setting, let value):
      return "\(option(setting)) \(value) is the folder of a missing value: give another name"
    case .needsOutputPath(let setting):
      return missingPath(setting)
    case .outputIsNotAFolder(let writer):
      return "exists and is not a folder; \(option(writer)) writes a folder"
    case .outputIsInput(let insideFolder, let input):
      let what = insideFolder ? "is inside a folder" : "is a file"
      return "the output \(what) that this command reads (from \(input)); choose another path"
    case .truncatedArchive(let detail):
      return "the file is truncated: \(detail); --skip-invalid reads the members before it"
    case .duplicateMember(let name):
      return "the input holds two members named '\(name)'; a folder can hold only one: write a zip (--to zip) instead"
    case .memberUnfitForFolder(let number, let name, let why):
      return "member \(number) ('\(name)') \(why); write a zip (--to zip) instead"
    case .emptyTypeInCSV:
      return "the type is empty (fill it in or pass --type)"
    case .noTypeColumnInCSV:
      return "the header has no type column; name the type of every row with --type"
    case .nonNumericValue(let type, let start, let value):
      return "the \(type) sample starting \(start) has the non-numeric value '\(value)'; only --agg count works for it"
    case .notSQLiteDatabase:
      return "not a SQLite database; refusing to overwrite it (choose another --db path)"
    case .damagedDatabase(let verdict):
      return "the database is damaged (SQLite's quick_check: \(verdict)); it was left unchanged. Restore it from a "
        + "backup, or load the exports into a new --db file"
    case .laterSchemaVersion(let version, let supported):
      return "healthport database with schema version \(version); this healthport writes version \(supported) and "
        + "cannot read later ones. It was left unchanged: use a newer healthport or a new --db file."
    case .foreignSchema(let schema, let server):
      return "schema \(schema) of \(server) holds tables but no healthport meta table: it is not a healthport store, "
        + "and was left unchanged (choose another with --schema)"
    case .noPostGIS(let why, let server, let detail):
      return "--postgis: \(why) on the PostgreSQL server of \(server) (\(detail)); nothing was changed"
    }
  }

  /// What an output written to a path says when it is given none.
  static func missingPath(_ setting: HealthPortError.Setting) -> String { missingPath(option: option(setting)) }

  /// What `option` (`--split`, `--to sqlite`) says when it is given no `-o PATH`.
  static func missingPath(option: String) -> String {
    switch option {
    case "--to sqlite": "--to sqlite needs -o PATH (the database)"
    case "--to zip": "--to zip needs -o PATH (the zip to write)"
    case "--to parquet", "--split": "\(option) writes a folder of tables: give it with -o DIR"
    default: "\(option) needs -o PATH"
    }
  }

  /// ` (did you mean 'a', 'b'?)`, or nothing without suggestions.
  static func didYouMean(_ suggestions: [String]) -> String {
    suggestions.isEmpty ? "" : " (did you mean \(suggestions.map { "'\($0)'" }.joined(separator: ", "))?)"
  }
}
