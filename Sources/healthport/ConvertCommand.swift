import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// `healthport convert`: an export (or healthport's own JSON Lines / CSV) to CSV, JSON Lines,
/// JSON or the export XML format, streamed.
enum ConvertCommand: Command {
  static let name = "convert"
  static let summary = "Convert an export to CSV, JSON Lines, JSON or export XML, streaming."
  static let formats = ["csv", "jsonl", "json", "xml", "sqlite"]

  static let options =
    [
      OptionSpec(
        name: "--to", short: nil, valueName: "format|date",
        help:
          "Output format (required, any case): csv, jsonl, json, xml or sqlite. Also the date filter's end (see below).",
        repeatable: true)
    ] + [
      OptionSpec(
        name: "--output", short: "-o", valueName: "PATH",
        help: "Write here (atomically) instead of stdout; a folder with --split."),
      OptionSpec(name: "--split", short: nil, valueName: nil, help: "CSV only: a folder of tables (needs -o DIR)."),
      OptionSpec(name: "--quiet", short: "-q", valueName: nil, help: "No progress bar and no summary line."),
    ] + FilterOptions.specs(excluding: ["--to"])
  static let usage = """
    USAGE: healthport convert [INPUT] --to csv|jsonl|json|xml|sqlite [-o PATH] [--split] [filters] [--quiet]

    ARGUMENTS:
      INPUT                       export.xml, export.zip, an export folder, healthport JSON Lines/JSON,
                                  or - for stdin (default).

    Output goes to stdout unless -o is given. Files are written atomically: nothing appears at PATH
    unless the whole conversion succeeds. A summary line (elements written per kind, time, MB/s)
    goes to stderr at the end. --to sqlite is `healthport load INPUT --db PATH` (needs -o PATH).

    Filters (--type, --source-product, --source, --activity, --from, --to, --tz) work as in
    `healthport info`; the output stays a valid export with its prolog. `--to` names the output
    format when its value is one (csv, jsonl, json, xml, sqlite) and the end of the date range
    otherwise: `--to csv --from 2024-01-01 --to 2024-12-31`. For a CSV from another tool without a
    type column, a single --type names the type of its rows.

    EXAMPLES:
      healthport convert export.zip --to jsonl -o export.jsonl
      healthport convert export.jsonl --to xml -o export.xml
      healthport convert export.zip --to csv --split -o tables/
      healthport convert export.zip --to json | jq '.elements | length'
    """

  static func run(_ arguments: ParsedArguments) throws {
    // `--to` is both the output format and the date filter's end; the value tells them apart.
    // Format names ignore case; a value that does not start with a digit cannot be a date.
    let toValues = arguments.list("--to")
    let formatValues = toValues.map { $0.lowercased() }.filter { formats.contains($0) }
    let dateValues = toValues.filter { !formats.contains($0.lowercased()) }
    if let unknown = dateValues.first(where: { !($0.first?.isNumber ?? false) }) {
      let hint = NameSuggestion.closest(to: unknown, in: formats).map { "; did you mean '\($0)'?" } ?? ""
      throw HealthPortError(
        .usage,
        "healthport convert: error: unknown format '\(unknown)' for --to (one of \(formats.joined(separator: ", "))\(hint))"
      )
    }
    guard let format = formatValues.first else {
      throw HealthPortError(.usage, "healthport convert: error: missing --to csv|jsonl|json|xml|sqlite")
    }
    guard formatValues.count == 1, dateValues.count <= 1 else {
      throw HealthPortError(
        .usage, "healthport convert: error: give --to once for the format and at most once for a date")
    }
    let filter: ExportFilter
    do {
      filter = try ExportFilter(
        types: arguments.list("--type"), sourceProducts: arguments.list("--source-product"),
        sourceText: arguments.value("--source"), activities: arguments.list("--activity"),
        from: arguments.value("--from"), to: dateValues.first, tz: arguments.value("--tz"))
    } catch let error as HealthPortError where error.kind == .usage {
      throw HealthPortError(.usage, error.message.replacingPrefix("healthport: ", with: "healthport convert: "))
    }
    guard arguments.positionals.count <= 1 else {
      throw HealthPortError(
        .usage, "healthport convert: error: expected one INPUT, got \(arguments.positionals.count)")
    }
    let input = arguments.positionals.first
    let outputPath = arguments.value("--output")
    let split = arguments.flag("--split")
    let quiet = arguments.flag("--quiet")
    if split && format != "csv" {
      throw HealthPortError(.usage, "healthport convert: error: --split works with --to csv only")
    }
    if split && outputPath == nil {
      throw HealthPortError(.usage, "healthport convert: error: --split writes a folder of tables: give it with -o DIR")
    }
    if let outputPath, let input, input != "-", OutputStream.sameFile(outputPath, input) {
      throw HealthPortError(.usage, "\(outputPath): error: the output would overwrite the input; choose another path")
    }

    if format == "sqlite" {
      guard let outputPath else {
        throw HealthPortError(.usage, "healthport convert: error: --to sqlite needs -o PATH (the database)")
      }
      // `--type` is accepted as by `load` (it names the rows of a CSV without a type column);
      // the other filters are not.
      var typesOnly = ExportFilter()
      typesOnly.types = filter.types
      guard
        filter.activities == nil, filter.sourceProducts.isEmpty, filter.sourceText == nil, filter.from == nil,
        filter.to == nil, arguments.value("--tz") == nil
      else {
        throw HealthPortError(
          .usage,
          "healthport convert: error: filters other than --type do not apply to --to sqlite; load everything, then query"
        )
      }
      try LoadCommand.load(
        inputs: [input], database: outputPath, person: "", quiet: quiet,
        skipInvalid: arguments.flag("--skip-invalid"), filter: typesOnly, command: name)
      return
    }
    try FilterOptions.checkInput(input, command: name)

    let started = ProgressBar.now()
    // The pipeline: reader → filter → counter → writer → output.
    var output: OutputStream?
    let writer: ExportSink
    if split, let outputPath {
      writer = try CSVSplitWriter(directory: outputPath, protecting: input)
    } else {
      let stream = try outputPath.map { try OutputStream(path: $0, protecting: input) } ?? OutputStream()
      output = stream
      switch format {
      case "csv": writer = CSVRecordsWriter(output: stream)
      case "json": writer = JSONLinesWriter(output: stream, style: .document)
      case "xml": writer = XMLExportWriter(output: stream)
      default: writer = JSONLinesWriter(output: stream, style: .lines)
      }
    }
    let counter = CountingSink(writer)
    let bar = ProgressBar.make(inputPath: input, quiet: quiet)
    let options = ReadOptions.with(bar, skipInvalid: arguments.flag("--skip-invalid"), filter: filter)
    let filtered = FilterOptions.wrap(counter, in: filter)
    let names = FilterOptions.watchesSources(arguments) ? SourceNamesSink(next: filtered) : nil
    let report: ReadReport
    do {
      report = try ExportReader(path: input, options: options).read(into: names ?? filtered)
      try output?.commit()
    } catch {
      bar?.finish()
      output?.abort()
      throw error
    }
    bar?.finish()
    if !quiet {
      CommandLineTool.writeError(
        summaryLine(counter: counter, report: report, seconds: ProgressBar.now() - started, to: outputPath) + "\n")
    }
    if let names { FilterOptions.warnUnmatchedSources(names, arguments: arguments, command: name) }
    // The skip total is the last warning; it is printed once, below, also with --quiet.
    for warning in report.warnings.dropLast(report.skipped.isEmpty ? 0 : 1) where !quiet {
      CommandLineTool.writeError("healthport convert: warning: \(warning)\n")
    }
    ReadingFlags.reportSkipped(report.skipped.count, command: name)
  }

  /// `converted 1,234 elements (1,100 Record, …) to out.jsonl in 1.2 s (56.0 MB, 46.7 MB/s)`.
  static func summaryLine(counter: CountingSink, report: ReadReport, seconds: Double, to path: String?) -> String {
    let kinds = counter.counts.map { "\(InfoRendering.grouped($0.count)) \($0.name)" }.joined(separator: ", ")
    let megabytes = Double(report.documentBytes) / 1e6
    let rate = seconds > 0 ? megabytes / seconds : 0
    return "healthport convert: wrote \(InfoRendering.grouped(counter.total)) elements"
      + (kinds.isEmpty ? "" : " (\(kinds))") + " to \(path ?? "stdout") in \(fixed(seconds, 2)) s"
      + " (\(fixed(megabytes, 1)) MB read, \(fixed(rate, 1)) MB/s)"
  }

  static func fixed(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int64((value * scale).rounded())
    let whole = scaled / Int64(scale)
    let fraction = String(scaled % Int64(scale))
    return decimals == 0
      ? "\(whole)" : "\(whole).\(String(repeating: "0", count: decimals - fraction.count) + fraction)"
  }
}
