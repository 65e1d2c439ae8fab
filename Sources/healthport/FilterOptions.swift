import HealthPort

/// The filter options shared by `info`, `steps`, `workouts`, `stats` (and `convert`):
/// `--type --source-product --source --activity --from --to --tz`.
enum FilterOptions {
  static let specs: [OptionSpec] = [
    OptionSpec(
      name: "--type", short: nil, valueName: "type",
      help: "Only these record types (repeatable or comma-separated): StepCount, HKQuantityTypeIdentifierHeartRate…",
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

  /// The options minus those a command defines itself.
  static func specs(excluding names: [String]) -> [OptionSpec] { specs.filter { !names.contains($0.name) } }

  /// Builds the filter from the parsed options; usage errors name the command.
  static func parse(_ arguments: ParsedArguments, command: String) throws -> ExportFilter {
    do {
      return try ExportFilter(
        types: arguments.list("--type"), sourceProducts: arguments.list("--source-product"),
        sourceText: arguments.value("--source"), activities: arguments.list("--activity"),
        from: arguments.value("--from"), to: arguments.value("--to"), tz: arguments.value("--tz"))
    } catch let error as HealthPortError where error.kind == .usage {
      throw HealthPortError(
        .usage, error.message.replacingPrefix("healthport: ", with: "healthport \(command): "))
    }
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

  static let formatOption = OptionSpec(
    name: "--format", short: nil, valueName: "table|csv|json", help: "Output format (default: table).")
  static let outputOption = OptionSpec(
    name: "--output", short: "-o", valueName: "path", help: "Write to this file instead of stdout.")
  static let quietOption = OptionSpec(name: "--quiet", short: "-q", valueName: nil, help: "No progress bar.")

  static func input(_ arguments: ParsedArguments, command: String) throws -> String? {
    guard arguments.positionals.count <= 1 else {
      throw HealthPortError(
        .usage, "healthport \(command): error: expected one INPUT, got \(arguments.positionals.count)")
    }
    return arguments.positionals.first
  }

  /// Reads `input` into `sink` through the filter, with a progress bar when it fits.
  static func read(_ input: String?, into sink: ExportSink, filter: ExportFilter, arguments: ParsedArguments) throws {
    let quiet = arguments.flag("--quiet")
    let bar = ProgressBar.make(inputPath: input, quiet: quiet)
    let options = ReadOptions.with(bar, skipInvalid: arguments.flag("--skip-invalid"))
    let report = try ExportReader(path: input, options: options).read(into: wrap(sink, in: filter))
    bar?.finish()
    printNotes(report, command: nil)
  }

  /// The reader's notes (a CSV input with a header but no rows, …) on stderr.
  static func printNotes(_ report: ReadReport, command: String?) {
    let prefix = command.map { "healthport \($0)" } ?? "healthport"
    for note in report.notes { CommandLineTool.writeError("\(prefix): warning: \(note)\n") }
  }

  /// Writes `bytes` to `-o PATH` (atomically) or stdout.
  static func emit(_ bytes: [UInt8], to path: String?, input: String?) throws {
    let out = try path.map { try OutputStream(path: $0, protecting: input) } ?? OutputStream()
    do {
      try out.write(bytes)
      try out.commit()
    } catch {
      out.abort()
      throw error
    }
  }
}

extension String {
  func replacingPrefix(_ prefix: String, with replacement: String) -> String {
    hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
  }
}
