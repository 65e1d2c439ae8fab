import HealthPort
import HealthPortParquet
import HealthPortSQLite

#if canImport(Glibc)
  import Glibc
#endif

/// `healthport convert`: an export (or healthport's own JSON Lines / CSV) to any of the formats
/// of ``registry``, streamed.
enum ConvertCommand: Command {
  static let name = "convert"
  /// Names every format `--to` takes, from the registry, so that it never falls behind it.
  static var summary: String { "Convert an export (--to \(formatList)), streaming." }

  /// The output formats `--to` names, in the order help lists them: the library's
  /// (``FormatRegistry/standard``), then SQLite's and Parquet's, from their own modules.
  static let registry: FormatRegistry = {
    var registry = FormatRegistry.standard
    registry.register(SQLiteOutput.format)
    registry.register(ParquetOutput.format)
    return registry
  }()

  static var formats: [String] { registry.outputNames }

  /// `csv, jsonl, json, xml or sqlite`.
  private static var formatList: String {
    guard let last = formats.last, formats.count > 1 else { return formats.joined() }
    return formats.dropLast().joined(separator: ", ") + " or " + last
  }

  static let options =
    [
      OptionSpec(
        name: "--to", short: nil, valueName: "format|date",
        help: "Output format (required, any case): \(formatList). Also the date filter's end (see below).",
        repeatable: true, values: formats),
      OptionSpec(
        name: "--output", short: "-o", valueName: "PATH",
        help: "Write here (atomically) instead of stdout; a folder with --split."),
    ]
    + registry.outputOptions.map {
      OptionSpec(name: FormatWords.option($0), short: nil, valueName: $0.valueName, help: FormatWords.help($0))
    }
    + [OptionSpec(name: "--quiet", short: "-q", valueName: nil, help: "No progress bar and no summary line.")]
    + FilterOptions.specs(excluding: ["--to"])

  static var usage: String {
    let formatOptions = registry.outputOptions.map {
      "[\(FormatWords.option($0))\($0.valueName.map { " <\($0)>" } ?? "")] "
    }.joined()
    let notes = registry.outputs.compactMap(FormatWords.note).map { " " + $0 }.joined()
    return """
      USAGE: healthport convert [INPUT] --to \(formats.joined(separator: "|")) [-o PATH] \(formatOptions)[filters] [--quiet]

      ARGUMENTS:
        INPUT                       export.xml, export.zip, an export folder, healthport JSON Lines/JSON,
                                    or - for stdin (default).

      Output goes to stdout unless -o is given. Files are written atomically: nothing appears at PATH
      unless the whole conversion succeeds. A summary line (elements written per kind, time, MB/s)
      goes to stderr at the end.\(notes)

      Filters (--type, --source-product, --source, --activity, --from, --to, --tz) work as in
      `healthport info`; the output stays a valid export with its prolog. `--to` names the output
      format when its value is one (\(formats.joined(separator: ", "))) and the end of the date range
      otherwise: `--to csv --from 2024-01-01 --to 2024-12-31`. For a CSV from another tool without a
      type column, a single --type names the type of its rows.

      EXAMPLES:
        healthport convert export.zip --to jsonl -o export.jsonl
        healthport convert export.jsonl --to xml -o export.xml
        healthport convert export.zip --to csv --split -o tables/
        healthport convert export.zip --to json | jq '.elements | length'
      """
  }

  static func run(_ arguments: ParsedArguments) throws {
    // `--to` is both the output format and the date filter's end; the value tells them apart.
    // Format names ignore case; a value that does not start with a digit cannot be a date.
    let toValues = arguments.list("--to")
    let formatValues = toValues.compactMap { registry.output(named: $0) }
    let dateValues = toValues.filter { registry.output(named: $0) == nil }
    if let unknown = dateValues.first(where: { !($0.first?.isNumber ?? false) }) {
      let hint = NameSuggestion.closest(to: unknown, in: formats).map { "; did you mean '\($0)'?" } ?? ""
      throw HealthPortError(
        .usage, message: "unknown format '\(unknown)' for --to (one of \(formats.joined(separator: ", "))\(hint))")
    }
    guard let format = formatValues.first else {
      throw HealthPortError(.usage, message: "missing --to \(formats.joined(separator: "|"))")
    }
    guard formatValues.count == 1, dateValues.count <= 1 else {
      throw HealthPortError(.usage, message: "give --to once for the format and at most once for a date")
    }
    let filter = try FilterOptions.filter(arguments, to: dateValues.first)
    guard arguments.positionals.count <= 1 else {
      throw HealthPortError(.usage, message: "expected one INPUT, got \(arguments.positionals.count)")
    }
    let input = arguments.positionals.first
    let outputPath = arguments.value("--output")
    let quiet = arguments.flag("--quiet")
    var request = OutputRequest(path: outputPath, input: input)
    request.quiet = quiet
    request.skipInvalid = arguments.flag("--skip-invalid")
    for option in registry.outputOptions {
      let spelled = FormatWords.option(option)
      guard arguments.flag(spelled) || arguments.value(spelled) != nil else { continue }
      guard format.options.contains(option) else {
        let owners = registry.outputs.filter { $0.options.contains(option) }.map { "--to \($0.name)" }
        throw HealthPortError(.usage, message: "\(spelled) works with \(owners.joined(separator: " or ")) only")
      }
      // As given, not split at commas: a value may be a name (`--person "Smith, Anna"`).
      request.options[option.name] = arguments.value(spelled).map { [$0] } ?? []
    }
    for option in format.options where option.needsPath && request.flag(option.name) && outputPath == nil {
      throw HealthPortError(.usage, message: ErrorReport.missingPath(option: FormatWords.option(option)))
    }
    if let outputPath, let conflict = ReadFiles([input]).conflict(withFile: outputPath) { throw conflict }
    if format.needsPath && outputPath == nil {
      throw HealthPortError(.needsOutputPath(.format(format.name)))
    }
    if format.filters == .typesOnly {
      guard
        filter.activities == nil, filter.sourceProducts.isEmpty, filter.sourceText == nil, filter.from == nil,
        filter.to == nil, arguments.value("--tz") == nil
      else {
        throw HealthPortError(
          .usage,
          message:
            "filters other than --type do not apply to --to \(format.name); load everything, then query")
      }
    }
    try FilterOptions.checkInput(input, command: name)

    let started = ProgressBar.now()
    // The pipeline: reader → filter → counter → writer → output.
    let writer = try format.makeWriter(request)
    let counter = CountingSink(writer.sink)
    let writing = FilterOptions.Writing(
      commit: { try writer.commit() },
      abort: { error in
        writer.abort()
        return writer.describing(error)
      },
      finished: { report in
        guard !quiet else { return }
        let seconds = ProgressBar.now() - started
        let line =
          writer.summary(report)
          ?? summaryLine(
            counter: counter, held: writer.heldElements, report: report, seconds: seconds, to: outputPath)
        CommandLineTool.writeError(line.hasSuffix("\n") ? line : line + "\n")
      },
      warnings: { report in
        // The skip total is the last warning; the reader prints it once, also with --quiet.
        let warnings =
          (writer as? SQLiteOutput.Writer)?.loadWarnings.map(LoadCommand.text) ?? writer.warnings(report)
        for warning in warnings where !quiet {
          CommandLineTool.writeError("healthport convert: warning: \(warning)\n")
        }
      })
    try FilterOptions.read(input, into: counter, filter: filter, arguments: arguments, command: name, writing: writing)
  }

  /// `wrote 1,234 elements (1,100 Record, …) to out.jsonl in 1.2 s (56.0 MB read, 46.7 MB/s)`; for
  /// an output that holds only some elements (`held`), `wrote 1,100 Record rows to records.csv in
  /// …; not in this table: 60 Workout, 1 Me (--split keeps every element)`.
  static func summaryLine(
    counter: CountingSink, held: Set<String>?, report: ReadReport, seconds: Double, to path: String?
  ) -> String {
    func list(_ counts: [(name: String, count: Int)]) -> String {
      counts.map { "\(InfoRendering.grouped($0.count)) \($0.name)" }.joined(separator: ", ")
    }
    let megabytes = Double(report.documentBytes) / 1e6
    let rate = seconds > 0 ? megabytes / seconds : 0
    let timing =
      " to \(path ?? "stdout") in \(fixed(seconds, 2)) s (\(fixed(megabytes, 1)) MB read, \(fixed(rate, 1)) MB/s)"
    guard let held else {
      let kinds = list(counter.counts)
      return "healthport convert: wrote \(InfoRendering.grouped(counter.total)) elements"
        + (kinds.isEmpty ? "" : " (\(kinds))") + timing
    }
    let kept = counter.counts.filter { held.contains($0.name) }
    let left = counter.counts.filter { !held.contains($0.name) }
    let rows = kept.isEmpty ? "0 rows" : list(kept) + (kept.reduce(0) { $0 + $1.count } == 1 ? " row" : " rows")
    return "healthport convert: wrote \(rows)" + timing
      + (left.isEmpty ? "" : "; not in this table: \(list(left)) (--split keeps every element)")
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
