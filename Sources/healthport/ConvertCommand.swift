import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// `healthport convert`: an export (or healthport's own JSON Lines / CSV) to CSV, JSON Lines,
/// JSON or the export XML format, streamed.
enum ConvertCommand: Command {
  static let name = "convert"
  static let summary = "Convert an export to CSV, JSON Lines, JSON or export XML, streaming."
  static let options = [
    OptionSpec(name: "--to", short: nil, valueName: "csv|jsonl|json|xml", help: "Output format (required)."),
    OptionSpec(
      name: "--output", short: "-o", valueName: "PATH",
      help: "Write here (atomically) instead of stdout; a folder with --split."),
    OptionSpec(name: "--split", short: nil, valueName: nil, help: "CSV only: a folder of tables (needs -o DIR)."),
    OptionSpec(name: "--quiet", short: "-q", valueName: nil, help: "No progress bar and no summary line."),
  ]
  static let usage = """
    USAGE: healthport convert [INPUT] --to csv|jsonl|json|xml [-o PATH] [--split] [--quiet]

    ARGUMENTS:
      INPUT                       export.xml, export.zip, an export folder, healthport JSON Lines/JSON,
                                  or - for stdin (default).

    Output goes to stdout unless -o is given. Files are written atomically: nothing appears at PATH
    unless the whole conversion succeeds. A summary line (elements written per kind, time, MB/s)
    goes to stderr at the end.

    EXAMPLES:
      healthport convert export.zip --to jsonl -o export.jsonl
      healthport convert export.jsonl --to xml -o export.xml
      healthport convert export.zip --to csv --split -o tables/
      healthport convert export.zip --to json | jq '.elements | length'
    """

  static func run(_ arguments: ParsedArguments) throws {
    guard arguments.value("--to") != nil else {
      throw HealthPortError(.usage, "healthport convert: error: missing --to csv|jsonl|json|xml")
    }
    let format = try arguments.choice("--to", ["csv", "jsonl", "json", "xml"], default: "jsonl", command: name)
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

    let started = ProgressBar.now()
    // The pipeline: reader → (filters, later) → counter → writer → output.
    var output: OutputStream?
    let writer: ExportSink
    if split, let outputPath {
      writer = try CSVSplitWriter(directory: outputPath)
    } else {
      let stream = try outputPath.map { try OutputStream(path: $0, protecting: input) } ?? OutputStream()
      output = stream
      switch format {
      case "csv": writer = try CSVRecordsWriter(output: stream)
      case "json": writer = JSONLinesWriter(output: stream, style: .document)
      case "xml": writer = XMLExportWriter(output: stream)
      default: writer = JSONLinesWriter(output: stream, style: .lines)
      }
    }
    let counter = CountingSink(writer)
    let bar = ProgressBar.make(inputPath: input, quiet: quiet)
    let report: ReadReport
    do {
      report = try ExportReader(path: input, options: .with(bar)).read(into: counter)
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
    for warning in report.warnings where !quiet {
      CommandLineTool.writeError("healthport convert: warning: \(warning)\n")
    }
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
