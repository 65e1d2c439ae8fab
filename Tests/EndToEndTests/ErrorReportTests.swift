import HealthPort
import Testing

@testable import healthport

/// ``ErrorReport``: the one place where an error of the library becomes words and an exit status.
/// The expected lines are those healthport printed before its errors carried data (docs/errors.md).
@Suite("errors: from data to words and exit codes")
struct ErrorReportTests {
  struct Case: CustomTestStringConvertible, Sendable {
    let error: HealthPortError
    let command: String?
    let text: String
    let exitCode: Int32
    var testDescription: String { text }
  }

  static let cases: [Case] = [
    Case(
      error: HealthPortError(
        .unknownName(.types, value: "StepCont", suggestions: ["StepCount"], example: "ActiveEnergyBurned")),
      command: "steps",
      text: "healthport steps: error: unknown type 'StepCont' for --type (did you mean 'StepCount'?); give a short "
        + "name such as 'ActiveEnergyBurned' or a full identifier starting with HK", exitCode: 64),
    Case(
      error: HealthPortError(.unknownName(.activities, value: "x", suggestions: [], example: "Running")),
      command: "workouts",
      text: "healthport workouts: error: unknown activity 'x' for --activity; give a short name such as 'Running' "
        + "or a full identifier starting with HK", exitCode: 64),
    Case(
      error: HealthPortError(.unknownTimeZone(value: "Mars/Olympus", suggestions: ["America/Toronto", "Asia/Tokyo"])),
      command: "info",
      text: "healthport info: error: unknown time zone 'Mars/Olympus' for --tz (did you mean 'America/Toronto', "
        + "'Asia/Tokyo'?); give an offset such as +02:00 or an IANA name such as Europe/Berlin", exitCode: 64),
    Case(
      error: HealthPortError(.badDate(.from, value: "2024-13-45")), command: "steps",
      text: "healthport steps: error: '2024-13-45' is not a valid date for --from; use YYYY-MM-DD or "
        + "YYYY-MM-DDTHH:MM[:SS][±HH:MM]", exitCode: 64),
    Case(
      error: HealthPortError(.badValue(.partitionKeys, value: "month", choices: ["type", "year"])),
      command: "convert",
      text: "healthport convert: error: unknown partition key 'month' for --partition-by (one of type, year)",
      exitCode: 64),
    Case(
      error: HealthPortError(.badValue(.compression, value: "lz4", choices: ["zstd", "snappy", "none"])),
      command: "convert",
      text: "healthport convert: error: unknown codec 'lz4' for --compression (one of zstd, snappy, none)",
      exitCode: 64),
    Case(
      error: HealthPortError(.repeatedValue(.partitionKeys, value: "year")), command: "convert",
      text: "healthport convert: error: --partition-by names 'year' twice", exitCode: 64),
    Case(
      error: HealthPortError(.emptyValue(.person)), command: "convert",
      text: "healthport convert: error: --person needs a name", exitCode: 64),
    Case(
      error: HealthPortError(.reservedValue(.person, value: "__HIVE_DEFAULT_PARTITION__")), command: "convert",
      text: "healthport convert: error: --person __HIVE_DEFAULT_PARTITION__ is the folder of a missing value: "
        + "give another name", exitCode: 64),
    Case(
      error: HealthPortError(.needsOutputPath(.format("sqlite"))), command: "convert",
      text: "healthport convert: error: --to sqlite needs -o PATH (the database)", exitCode: 64),
    Case(
      error: HealthPortError(.needsOutputPath(.format("parquet"))), command: "convert",
      text: "healthport convert: error: --to parquet writes a folder of tables: give it with -o DIR", exitCode: 64),
    Case(
      error: HealthPortError(.needsOutputPath(.format("zip"))), command: "convert",
      text: "healthport convert: error: --to zip needs -o PATH (the zip to write)", exitCode: 64),
    Case(
      error: HealthPortError(.needsOutputPath(.split)), command: "convert",
      text: "healthport convert: error: --split writes a folder of tables: give it with -o DIR", exitCode: 64),
    Case(
      error: HealthPortError(.outputIsNotAFolder(writer: .formatFolder("xml")), file: "out"), command: "convert",
      text: "out: error: exists and is not a folder; --to xml -o DIR/ writes a folder", exitCode: 64),
    Case(
      error: HealthPortError(.outputIsNotAFolder(writer: .split), file: "out"), command: "convert",
      text: "out: error: exists and is not a folder; --split writes a folder", exitCode: 64),
    Case(
      error: HealthPortError(.outputIsInput(insideFolder: false, input: "export.xml"), file: "export.xml"),
      command: "convert",
      text: "export.xml: error: the output is a file that this command reads (from export.xml); choose another path",
      exitCode: 64),
    Case(
      error: HealthPortError(.truncatedArchive(detail: "the last 10 bytes are missing"), file: "export.zip"),
      command: "convert",
      text: "export.zip: error: the file is truncated: the last 10 bytes are missing; --skip-invalid reads the "
        + "members before it", exitCode: 65),
    Case(
      error: HealthPortError(.duplicateMember(name: "a.gpx"), file: "export.zip"), command: "convert",
      text: "export.zip: error: the input holds two members named 'a.gpx'; a folder can hold only one: write a zip "
        + "(--to zip) instead", exitCode: 65),
    Case(
      error: HealthPortError(.emptyTypeInCSV, file: "a.csv", line: 3, column: 2), command: "info",
      text: "a.csv:3:2: error: the type is empty (fill it in or pass --type)", exitCode: 65),
    Case(
      error: HealthPortError(.noTypeColumnInCSV, file: "a.csv", line: 1, column: 1), command: "info",
      text: "a.csv:1:1: error: the header has no type column; name the type of every row with --type", exitCode: 65),
    Case(
      error: HealthPortError(
        .nonNumericValue(type: "HeartRate", start: "2024-01-01 10:00:00 +0100", value: "high")),
      command: "stats",
      text: "healthport: error: the HeartRate sample starting 2024-01-01 10:00:00 +0100 has the non-numeric value "
        + "'high'; only --agg count works for it", exitCode: 65),
    Case(
      error: HealthPortError(.notSQLiteDatabase, file: "h.db"), command: "load",
      text: "h.db: error: not a SQLite database; refusing to overwrite it (choose another --db path)", exitCode: 1),
    Case(
      error: HealthPortError(.damagedDatabase(verdict: "row 3 missing"), file: "h.db"), command: "load",
      text: "h.db: error: the database is damaged (SQLite's quick_check: row 3 missing); it was left unchanged. "
        + "Restore it from a backup, or load the exports into a new --db file", exitCode: 1),
    Case(
      error: HealthPortError(.laterSchemaVersion(9, supported: 5), file: "h.db"), command: "load",
      text: "h.db: error: healthport database with schema version 9; this healthport writes version 5 and cannot "
        + "read later ones. It was left unchanged: use a newer healthport or a new --db file.", exitCode: 1),
    Case(
      error: HealthPortError(.foreignSchema(schema: "public", server: "postgresql://h/db"), file: "healthport load"),
      command: "load",
      text: "healthport load: error: schema public of postgresql://h/db holds tables but no healthport meta table: "
        + "it is not a healthport store, and was left unchanged (choose another with --schema)", exitCode: 1),
    Case(
      error: HealthPortError(
        .noPostGIS(why: "the server has no PostGIS", server: "postgresql://h/db", detail: "no extension"),
        file: "healthport load"),
      command: "load",
      text: "healthport load: error: --postgis: the server has no PostGIS on the PostgreSQL server of "
        + "postgresql://h/db (no extension); nothing was changed", exitCode: 1),
    Case(
      error: HealthPortError(.usage, message: "expected one INPUT, got 2"), command: "info",
      text: "healthport info: error: expected one INPUT, got 2", exitCode: 64),
    Case(
      error: HealthPortError(.badRequest, file: "out", message: "is a folder; name a file to write"),
      command: "convert", text: "out: error: is a folder; name a file to write", exitCode: 64),
    Case(
      error: HealthPortError(.failure, message: "cannot read"), command: "info",
      text: "healthport: error: cannot read", exitCode: 1),
    Case(
      error: .malformed("export.xml", line: 12, column: 7, "a message"), command: "info",
      text: "export.xml:12:7: error: a message", exitCode: 65),
  ]

  @Test("each error's line and exit status", arguments: cases)
  func report(_ c: Case) {
    let report = ErrorReport.report(c.error, command: c.command)
    #expect(report.text == c.text)
    #expect(report.exitCode == c.exitCode)
  }

  @Test("a reason's neutral message names no option", arguments: cases)
  func neutral(_ c: Case) {
    let message = c.error.message
    #expect(!message.contains("--"), "\(message)")
    #expect(!message.contains("-o "), "\(message)")
  }

  @Test("every setting has its option")
  func options() {
    let settings: [(HealthPortError.Setting, String)] = [
      (.types, "--type"), (.activities, "--activity"), (.from, "--from"), (.to, "--to"), (.timeZone, "--tz"),
      (.person, "--person"), (.partitionKeys, "--partition-by"), (.compression, "--compression"),
      (.split, "--split"), (.format("zip"), "--to zip"), (.formatFolder("xml"), "--to xml -o DIR/"),
      (.routesPerWorkout, "--per-workout"),
    ]
    for (setting, option) in settings { #expect(ErrorReport.option(setting) == option) }
  }

  @Test("the formats' own options: a key in the library, spelled by the tool")
  func formatOptions() {
    let options = ConvertCommand.registry.outputOptions
    #expect(options.map(\.name) == ["split", "keepPartial", "partitionBy", "person", "compression", "dropIdentifiers"])
    #expect(
      options.map(FormatWords.option) == [
        "--split", "--keep-partial", "--partition-by", "--person", "--compression", "--drop-identifiers",
      ])
    #expect(options.allSatisfy { !$0.help.contains("--") && !$0.help.contains("-o ") })
    #expect(ConvertCommand.registry.outputs.compactMap(FormatWords.note).count == 1)
  }
}
