import HealthPort
import HealthPortSQLite

#if canImport(Glibc)
  import Glibc
#endif

/// The filter options shared by `info`, `steps`, `workouts`, `stats` (and `convert`):
/// `--type --source-product --source --activity --from --to --tz`.
enum FilterOptions {
  static let specs: [OptionSpec] = [
    OptionSpec(
      name: "--type", short: nil, valueName: "type",
      help:
        "Only these record types (repeatable or comma-separated): StepCount, HKQuantityTypeIdentifierHeartRate…; a single one names the rows of a CSV without a type column.",
      repeatable: true),
    OptionSpec(
      name: "--source-product", short: nil, valueName: "product",
      help: "Only samples from this product (Watch, iPhone, iPad, … or a source name), ignoring case.",
      repeatable: true),
    OptionSpec(
      name: "--source", short: nil, valueName: "text", help: "Only samples whose source name contains this text."),
    OptionSpec(
      name: "--activity", short: nil, valueName: "activity",
      help: "Only workouts of these activities (repeatable or comma-separated): running, Cycling…", repeatable: true),
    OptionSpec(
      name: "--from", short: nil, valueName: "date",
      help: "Only elements starting at or after: YYYY-MM-DD (local day) or YYYY-MM-DDTHH:MM[:SS][±HH:MM]."),
    OptionSpec(
      name: "--to", short: nil, valueName: "date",
      help: "Only elements starting at or before (inclusive; a day means the whole day)."),
    OptionSpec(
      name: "--tz", short: nil, valueName: "zone",
      help: "Local days in this zone: +02:00 or an IANA name (Europe/Berlin). Default: each date's written offset."),
    ReadingFlags.skipInvalidOption,
  ]

  /// `--type` of a command that reads one type only (`steps`, `sleep`): it names the rows of a
  /// CSV without a type column.
  static func singleTypeOption(_ shortName: String) -> OptionSpec {
    OptionSpec(
      name: "--type", short: nil, valueName: shortName,
      help: "\(shortName), the only type this command reads: names the rows of a CSV without a type column.",
      repeatable: true)
  }

  /// The options minus those a command defines itself.
  static func specs(excluding names: [String]) -> [OptionSpec] { specs.filter { !names.contains($0.name) } }

  /// Builds the filter from the parsed options; usage errors name the command.
  static func parse(_ arguments: ParsedArguments, command: String) throws -> ExportFilter {
    do {
      return try filter(arguments, to: arguments.value("--to"))
    } catch let error as HealthPortError where error.kind == .badRequest {
      // `--to json` is `convert`'s output format; here --to ends the date range.
      guard let to = arguments.value("--to"), formatNames.contains(to.lowercased()) else { throw error }
      throw HealthPortError(
        .usage, message: ErrorReport.message(of: error) + " (for the output format, use --format \(to.lowercased()))")
    }
  }

  /// The filter the options name, `to` being the end of the date range (`convert` and `routes`
  /// tell it from an output format); the values are checked in the order the options are listed.
  static func filter(_ arguments: ParsedArguments, to: String?) throws -> ExportFilter {
    let types = arguments.list("--type")
    let activities = arguments.list("--activity")
    return ExportFilter(
      types: types.isEmpty ? nil : Set(try types.map(KnownNames.resolveType)),
      activities: activities.isEmpty ? nil : Set(try activities.map(KnownNames.resolveActivity)),
      sourceProducts: arguments.list("--source-product"), sourceText: arguments.value("--source"),
      from: try arguments.value("--from").map { try DateBound.parse($0, for: .from) },
      to: try to.map { try DateBound.parse($0, for: .to) },
      zone: try arguments.value("--tz").map(ZoneRule.parse) ?? .written)
  }

  /// `sink`, behind a ``FilteringSink`` unless the filter keeps everything.
  static func wrap(_ sink: ExportSink, in filter: ExportFilter) -> ExportSink {
    filter.isEmpty ? sink : FilteringSink(filter: filter, next: sink)
  }

  /// `--by day|week|month|year`.
  static let byOption = OptionSpec(
    name: "--by", short: nil, valueName: "day|week|month|year", help: "Period to total over (default: day).")

  static func period(_ arguments: ParsedArguments, command: String) throws -> PeriodKind {
    let text = try arguments.choice("--by", PeriodKind.allCases.map(\.rawValue), default: "day", command: command)
    return PeriodKind(rawValue: text) ?? .day
  }

  /// `--priority LIST`: with `--dedupe` for `steps`, `stats` and `workouts`; `sleep` and `chart`
  /// word how they use it in their own `help`.
  static func priorityOption(
    help: String = "With --dedupe: source products or names, best first (default: Watch,iPhone, then by appearance)."
  ) -> OptionSpec {
    OptionSpec(name: "--priority", short: nil, valueName: "list", help: help, repeatable: true)
  }

  /// `--dedupe` (worded by the command) and its `--priority LIST`, as ``dedupe(_:)`` reads them:
  /// `steps`, `stats` and `workouts`.
  static func dedupeOptions(help: String) -> [OptionSpec] {
    [OptionSpec(name: "--dedupe", short: nil, valueName: nil, help: help), priorityOption()]
  }

  /// What every command with a table answer takes after its own options: `--keep-rewrites`,
  /// `--format`, `-o` and `--quiet`.
  static var answerOptions: [OptionSpec] { [RewriteNote.option, formatOption, outputOption, quietOption] }

  /// `--dedupe` and its `--priority LIST`: the ranking only decides which source a de-duplication
  /// keeps (docs/steps.md), so `--priority` without `--dedupe` is a usage error.
  static func dedupe(_ arguments: ParsedArguments) throws -> (dedupe: Bool, priority: [String]) {
    let dedupe = arguments.flag("--dedupe")
    let priority = arguments.list("--priority")
    if !priority.isEmpty && !dedupe {
      throw HealthPortError(.usage, message: "--priority only applies with --dedupe")
    }
    return (dedupe, priority)
  }

  /// What `--format` takes.
  static let formatChoices = ["table", "csv", "json"]

  /// The `--to` values that name a format rather than a date: `--format`'s choices and the
  /// formats `convert --to` writes to stdout.
  static var formatNames: Set<String> {
    Set(formatChoices + ConvertCommand.registry.outputs.filter { !$0.needsPath }.map(\.name))
  }

  static let formatOption = OptionSpec(
    name: "--format", short: nil, valueName: formatChoices.joined(separator: "|"),
    help: "Output format (default: from -o's extension, .csv or .json, else table).")

  /// `--format`, or without it the format `-o PATH`'s extension names (`.csv`, `.json`, any case),
  /// else the table.
  static func format(_ arguments: ParsedArguments, command: String) throws -> String {
    if arguments.value("--format") != nil {
      return try arguments.choice("--format", formatChoices, default: "table", command: command)
    }
    let path = (arguments.value("--output") ?? "").lowercased()
    if path.hasSuffix(".csv") { return "csv" }
    if path.hasSuffix(".json") { return "json" }
    return "table"
  }
  static let outputOption = OptionSpec(
    name: "--output", short: "-o", valueName: "path", help: "Write to this file instead of stdout.")
  static let quietOption = OptionSpec(name: "--quiet", short: "-q", valueName: nil, help: "No progress bar.")

  static func input(_ arguments: ParsedArguments, command: String) throws -> String? {
    guard arguments.positionals.count <= 1 else {
      throw HealthPortError(
        .usage, message: "expected one INPUT, got \(arguments.positionals.count)")
    }
    return arguments.positionals.first
  }

  /// What a command that writes an output (`convert`) adds to a read: the commit after a whole
  /// read, the abort after a failed one, and its own lines on stderr.
  struct Writing {
    /// After a whole read, before the progress bar ends: makes the output appear.
    var commit: () throws -> Void
    /// After a failed read or commit: removes what was written; gives the error to report.
    var abort: (Error) -> Error
    /// After the progress bar ends, before the source warnings: the summary line.
    var finished: (ReadReport) -> Void
    /// After the source warnings, before the skip total: the output's warnings (with the reader's
    /// notes, which are then not printed apart).
    var warnings: (ReadReport) -> Void
  }

  /// Reads `input` into `sink` through the filter, with a progress bar when it fits, and prints
  /// the source warnings, the total of `--skip-invalid` skips and the reader's notes. With
  /// `writing`, the input was checked before the output was made (``checkInput(_:command:)``).
  @discardableResult
  static func read(
    _ input: String?, into sink: ExportSink, filter: ExportFilter, arguments: ParsedArguments, command: String,
    answersFromExport: Bool = false, writing: Writing? = nil
  ) throws -> ReadReport {
    if writing == nil { try checkInput(input, command: command) }
    let quiet = arguments.flag("--quiet")
    let bar = ProgressBar.make(inputPath: input, quiet: quiet)
    var options = ReadOptions.with(bar, skipInvalid: arguments.flag("--skip-invalid"), filter: filter)
    options.answersFromExport = answersFromExport
    let names = watchesSources(arguments) ? SourceNamesSink(next: wrap(sink, in: filter)) : nil
    let report: ReadReport
    do {
      report = try ExportReader(path: input, options: options).read(into: names ?? wrap(sink, in: filter))
      try writing?.commit()
    } catch {
      bar?.finish()
      throw writing.map { $0.abort(error) } ?? error
    }
    bar?.finish()
    writing?.finished(report)
    if let names { warnUnmatchedSources(names, arguments: arguments, command: command) }
    writing?.warnings(report)
    ReadingFlags.reportSkipped(report.skipped.count, command: command)
    if writing == nil { printNotes(report, command: command) }
    return report
  }

  /// The reader's notes (a CSV input with a header but no rows, …) on stderr.
  static func printNotes(_ report: ReadReport, command: String?) {
    let prefix = command.map { "healthport \($0)" } ?? "healthport"
    for note in report.notes { CommandLineTool.writeError("\(prefix): warning: \(note)\n") }
  }

  /// Whether a source option was given whose names should be checked against the input.
  static func watchesSources(_ arguments: ParsedArguments) -> Bool {
    !arguments.list("--source-product").isEmpty || arguments.value("--source") != nil
      || !arguments.list("--priority").isEmpty
  }

  /// A warning on stderr for each source option that matched no source in the input.
  static func warnUnmatchedSources(_ names: SourceNamesSink, arguments: ParsedArguments, command: String) {
    var warnings = names.unmatchedProducts(arguments.list("--source-product")).map {
      "--source-product '\($0.value)' matches no source in the input" + $0.hint
    }
    if let text = arguments.value("--source"), !text.isEmpty, let hint = names.unmatchedSourceText(text) {
      warnings.append("--source '\(text)' is in no source name in the input" + hint)
    }
    warnings += names.unmatchedPriorities(arguments.list("--priority")).map {
      "--priority '\($0.value)' matches no source in the input" + $0.hint
    }
    for warning in warnings { CommandLineTool.writeError("healthport \(command): warning: \(warning)\n") }
  }

  /// Checks `input` before it is read: no INPUT while stdin is a terminal is a usage error (rather
  /// than a silent wait for an export typed in), `-` on a terminal says it waits for stdin, and a
  /// SQLite database is refused with a message that says what it is.
  static func checkInput(_ input: String?, command: String) throws {
    if input == nil || input == "-", isatty(0) == 1 {
      guard input != nil else {
        throw HealthPortError(
          .usage,
          message:
            "no INPUT, and stdin is a terminal: give an export (healthport \(command) export.zip) or pipe one in (healthport \(command) < export.xml)\nSee 'healthport \(command) --help'."
        )
      }
      CommandLineTool.writeError(
        "healthport \(command): reading an export from stdin (the terminal); end it with Ctrl-D\n")
    }
    try refuseDatabase(input)
    try refuseParquetDataset(input)
  }

  /// Refuses a Parquet dataset folder (what `convert --to parquet` writes) with the query that
  /// reads it: a folder whose manifest lists Parquet files, or whose `export/` or `records/` holds
  /// Parquet files or Hive folders.
  static func refuseParquetDataset(_ input: String?) throws {
    guard let input, input != "-" else { return }
    var status = stat()
    guard stat(input, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else { return }
    var folder = input
    while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
    guard isParquetDataset(folder) else { return }
    let quoted = folder.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''")
    throw HealthPortError(
      .malformed, file: folder,
      message:
        "a healthport Parquet dataset, not an export; query it: SELECT … FROM read_parquet('\(quoted)/records/**/*.parquet', hive_partitioning = true)"
    )
  }

  /// Whether the manifest at `path` lists a `.parquet` file.
  private static func manifestNamesParquet(_ path: String) -> Bool {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return false }
    defer { Glibc.close(descriptor) }
    let needle = Array(".parquet\"".utf8)
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    var carry: [UInt8] = []
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { return false }
      let window = carry + buffer[..<count]
      if window.indices.dropLast(needle.count - 1).contains(where: {
        window[$0..<$0 + needle.count].elementsEqual(needle)
      }) {
        return true
      }
      carry = Array(window.suffix(needle.count - 1))
    }
  }

  private static func isParquetDataset(_ folder: String) -> Bool {
    if manifestNamesParquet(folder + "/" + FolderOutput.manifestName) { return true }
    for table in ["export", "records"] {
      guard let directory = opendir(folder + "/" + table) else { continue }
      defer { closedir(directory) }
      while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name.hasSuffix(".parquet") || name.hasPrefix("person=") || name.hasPrefix("type=")
          || name.hasPrefix("year=")
        {
          return true
        }
      }
    }
    return false
  }

  /// Refuses a SQLite database (what `healthport load` writes) with a message that says what it is,
  /// told by its header (``SQLiteHeader``). Stdin is not looked at.
  static func refuseDatabase(_ input: String?) throws {
    guard let input, input != "-", SQLiteHeader.startsDatabase(atPath: input) else { return }
    throw HealthPortError(
      .malformed,
      file: input,
      message:
        "this is a SQLite database (as `healthport load` writes them), not an export; query it with sqlite3, or give the export it was loaded from"
    )
  }

  /// Writes `bytes` to `-o PATH` (atomically) or stdout.
  static func emit(_ bytes: [UInt8], to path: String?, input: String?) throws {
    let out = try path.map { try OutputStream(path: $0, protecting: input) } ?? OutputStream()
    try out.committing { try out.write(bytes) }
  }
}
