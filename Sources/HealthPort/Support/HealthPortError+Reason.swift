extension HealthPortError {
  /// A choice the caller made, by what it sets; the command-line tool names each as its option.
  package enum Setting: Sendable, Hashable {
    /// The record types to keep.
    case types
    /// The workout activities to keep.
    case activities
    /// The start of the date range.
    case from
    /// The end of the date range.
    case to
    /// The zone of local days and wall-clock times.
    case timeZone
    /// The person a load or a dataset's rows belong to.
    case person
    /// The keys a Parquet dataset is partitioned by.
    case partitionKeys
    /// The Parquet compression codec.
    case compression
    /// The CSV output as a folder of tables.
    case split
    /// An output format, by its name (`sqlite`).
    case format(String)
    /// An output format written as a folder (`xml` unzipped into a folder).
    case formatFolder(String)
    /// Workout routes written as a folder of files, one per workout.
    case routesPerWorkout
  }

  /// What is wrong, as data: the values involved, never the words of a command line.
  package enum Reason: Sendable, Equatable {
    /// A name (a record type, an activity) that is not known, with the closest known short names
    /// and one example of a short name.
    case unknownName(Setting, value: String, suggestions: [String], example: String)
    /// A time zone that is neither an offset nor a known IANA name, with the closest names.
    case unknownTimeZone(value: String, suggestions: [String])
    /// A date bound that does not parse.
    case badDate(Setting, value: String)
    /// A value outside a fixed set of choices.
    case badValue(Setting, value: String, choices: [String])
    /// A value given twice in one list.
    case repeatedValue(Setting, value: String)
    /// An empty value where a name is needed.
    case emptyValue(Setting)
    /// A value the output keeps for itself (the partition folder of a missing value).
    case reservedValue(Setting, value: String)
    /// An output that must be written to a path and was given none.
    case needsOutputPath(Setting)
    /// An output path that exists and is not a folder, where `writer` writes a folder.
    case outputIsNotAFolder(writer: Setting)
    /// An output path (``HealthPortError/file``) that is, or is inside, what the command reads.
    case outputIsInput(insideFolder: Bool, input: String)
    /// A zip cut off before its end (the file), with what is missing.
    case truncatedArchive(detail: String)
    /// A bundle with two members of one name, which one folder cannot hold.
    case duplicateMember(name: String)
    /// A member (1-based `number`) that a folder cannot hold as the zip names it, and why.
    case memberUnfitForFolder(number: Int, name: String, why: String)
    /// A CSV row whose type is empty, in a table without a type named by the caller.
    case emptyTypeInCSV
    /// A CSV header without a type column, and no type named by the caller.
    case noTypeColumnInCSV
    /// A sample whose value is not a number, where an aggregation other than a count needs one.
    case nonNumericValue(type: String, start: String, value: String)
    /// A file (``HealthPortError/file``) that is not a SQLite database, left unchanged.
    case notSQLiteDatabase
    /// A healthport database that SQLite's quick_check finds damaged, left unchanged.
    case damagedDatabase(verdict: String)
    /// A healthport database of a later schema version than this healthport writes.
    case laterSchemaVersion(Int64, supported: Int64)
    /// A PostgreSQL schema that holds tables but is not a healthport store.
    case foreignSchema(schema: String, server: String)
    /// PostGIS cannot be enabled on a server: why (in neutral words), and the server's message.
    case noPostGIS(why: String, server: String, detail: String)

    /// The kind of problem this reason is.
    package var kind: Kind {
      switch self {
      case .unknownName, .unknownTimeZone, .badDate, .badValue, .repeatedValue, .emptyValue, .reservedValue,
        .needsOutputPath, .outputIsNotAFolder, .outputIsInput:
        .badRequest
      case .truncatedArchive, .duplicateMember, .memberUnfitForFolder, .emptyTypeInCSV, .noTypeColumnInCSV,
        .nonNumericValue:
        .malformed
      case .notSQLiteDatabase, .damagedDatabase, .laterSchemaVersion, .foreignSchema, .noPostGIS:
        .failure
      }
    }

    /// The reason in neutral words, for a program that uses the library.
    package var neutralMessage: String {
      switch self {
      case .unknownName(_, let value, _, _): "unknown name '\(value)'"
      case .unknownTimeZone(let value, _): "unknown time zone '\(value)'"
      case .badDate(_, let value): "'\(value)' is not a valid date"
      case .badValue(_, let value, let choices): "unknown value '\(value)' (one of \(choices.joined(separator: ", ")))"
      case .repeatedValue(_, let value): "'\(value)' is given twice"
      case .emptyValue: "a name is needed"
      case .reservedValue(_, let value): "'\(value)' is the folder of a missing value: give another name"
      case .needsOutputPath: "this output needs a path"
      case .outputIsNotAFolder: "exists and is not a folder"
      case .outputIsInput(let inside, let input):
        "the output \(inside ? "is inside a folder" : "is a file") that this command reads (from \(input))"
      case .truncatedArchive(let detail): "the file is truncated: \(detail)"
      case .duplicateMember(let name): "the input holds two members named '\(name)'; a folder can hold only one"
      case .memberUnfitForFolder(let number, let name, let why): "member \(number) ('\(name)') \(why)"
      case .emptyTypeInCSV: "the type is empty"
      case .noTypeColumnInCSV: "the header has no type column"
      case .nonNumericValue(let type, let start, let value):
        "the \(type) sample starting \(start) has the non-numeric value '\(value)'"
      case .notSQLiteDatabase: "not a SQLite database; refusing to overwrite it"
      case .damagedDatabase(let verdict):
        "the database is damaged (SQLite's quick_check: \(verdict)); it was left unchanged"
      case .laterSchemaVersion(let version, let supported):
        "healthport database with schema version \(version); this healthport writes version \(supported) and "
          + "cannot read later ones. It was left unchanged"
      case .foreignSchema(let schema, let server):
        "schema \(schema) of \(server) holds tables but no healthport meta table: it is not a healthport store, "
          + "and was left unchanged"
      case .noPostGIS(let why, let server, let detail):
        "\(why) on the PostgreSQL server of \(server) (\(detail)); nothing was changed"
      }
    }
  }
}
