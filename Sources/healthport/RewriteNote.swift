import HealthPort

/// `--keep-rewrites`, and the stderr line that says what collapsing rewrites and duplicated
/// workouts changed (docs/steps.md, "Rewrites and duplicated workouts"): every answer command collapses
/// them by default, and says so when there were any.
enum RewriteNote {
  static let option = OptionSpec(
    name: "--keep-rewrites", short: nil, valueName: nil,
    help: "Count rewritten samples and duplicated workouts as written (default: each once; see docs).")

  /// `healthport steps: collapsed 992 rewritten StepCount samples (Mi Fit: 992); --keep-rewrites
  /// sums them as written`, when there were any. `what` names them (`rewritten StepCount samples`,
  /// `duplicated workouts`), `effect` says what `--keep-rewrites` does with them.
  static func report(
    _ counts: [StepTotals.RewriteCount], _ what: (singular: String, plural: String), effect: String,
    command: String
  ) {
    let total = counts.reduce(0) { $0 + $1.count }
    guard total > 0 else { return }
    let sources = counts.map { "\($0.sourceName): \(NumberText.grouped($0.count))" }.joined(separator: ", ")
    CommandLineTool.writeError(
      "healthport \(command): collapsed \(NumberText.grouped(total)) \(total == 1 ? what.singular : what.plural) "
        + "(\(sources)); --keep-rewrites \(effect)\n")
  }

  /// Reads `input` into an aggregation (``FilterOptions/read(_:into:filter:arguments:command:answersFromExport:writing:)``),
  /// then, unless `--quiet`, the line for its rewritten samples of `type`; `rewrites` is asked once
  /// the reading is done.
  static func read(
    _ input: String?, into sink: ExportSink, filter: ExportFilter, arguments: ParsedArguments, command: String,
    rewrites: @autoclosure () -> [StepTotals.RewriteCount], of type: String, sums: Bool
  ) throws {
    try FilterOptions.read(input, into: sink, filter: filter, arguments: arguments, command: command)
    if !arguments.flag("--quiet") { report(samples: rewrites(), of: type, sums: sums, command: command) }
  }

  /// The line for rewritten samples of `type`.
  static func report(samples counts: [StepTotals.RewriteCount], of type: String, sums: Bool, command: String) {
    let name = KnownNames.shortTypeName(type)
    report(
      counts, ("rewritten \(name) sample", "rewritten \(name) samples"),
      effect: sums ? "sums them as written" : "counts them as written", command: command)
  }
}
