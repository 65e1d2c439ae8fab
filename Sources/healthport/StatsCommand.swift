import HealthPort

/// `healthport stats`: any record type per period with the aggregate that fits it.
enum StatsCommand: Command {
  static let name = "stats"
  static let summary = "Aggregate one record type per period (sum, min, max, avg, count, latest)."
  static let options =
    [
      FilterOptions.byOption,
      OptionSpec(
        name: "--agg", short: nil, valueName: "sum|min|max|avg|count|latest",
        help: "Aggregate (default: sum for cumulative types, avg for others, count for categories)."),
    ]
    + FilterOptions.dedupeOptions(
      help: "Merge overlapping sources for a cumulative type summed, the way the Health app does (see docs).")
    + FilterOptions.answerOptions + FilterOptions.specs(excluding: ["--activity"])
  static let usage = """
    USAGE: healthport stats [INPUT] --type T [--by day|week|month|year] [--agg sum|min|max|avg|count|latest]
                            [--dedupe [--priority LIST]] [--keep-rewrites] [--source-product P] [--source TEXT]
                            [--from D] [--to D] [--tz ZONE]
                            [--format table|csv|json] [-o PATH]

    ARGUMENTS:
      INPUT                       export.xml, export.zip, an export folder, or - for stdin (default).

    Columns: period,value,samples,unit. Values are converted to the type's most frequent unit.

    EXAMPLES:
      healthport stats export.zip --type BodyMass --by month --agg latest
      healthport stats export.zip --type HeartRate --by week --agg max --format csv
      healthport stats export.zip --type DistanceWalkingRunning --dedupe --by month
    """

  static func run(_ arguments: ParsedArguments) throws {
    let format = try FilterOptions.format(arguments, command: name)
    let input = try FilterOptions.input(arguments, command: name)
    let filter = try FilterOptions.parse(arguments, command: name)
    guard let types = filter.types, types.count == 1, let type = types.first else {
      throw HealthPortError(
        .usage, message: "give exactly one record type with --type (e.g. --type StepCount)")
    }
    var aggregate: Aggregate?
    if arguments.value("--agg") != nil {
      let text = try arguments.choice("--agg", Aggregate.allCases.map(\.rawValue), default: "sum", command: name)
      aggregate = Aggregate(rawValue: text)
    }
    if type.hasPrefix("HKCategoryTypeIdentifier"), let aggregate, aggregate != .count {
      throw HealthPortError(
        .usage,
        message:
          "\(KnownNames.shortTypeName(type)) is a category type (its values are names); only --agg count works for it"
      )
    }
    var configuration = Stats.Configuration(type: type, aggregate: aggregate)
    try configuration.take(arguments, filter: filter, command: name)
    let stats = Stats(configuration)
    try RewriteNote.read(
      input, into: stats, filter: filter, arguments: arguments, command: name,
      rewrites: stats.rewrites, of: type, sums: configuration.aggregate == .sum)
    if stats.rows.isEmpty { EmptyAnswer.explain(records: type, input: input, command: name) }

    var output = TabularOutput(columns: ["period", "value", "samples", "unit"])
    for row in stats.rows {
      // Apple writes `%` quantities as fractions (0.165 = 16.5 %): tables show the percentage, data
      // outputs the fraction, exact. A count is a count, whatever the samples' unit.
      let isCount = configuration.aggregate == .count
      let percent = format == "table" && row.unit == "%" && !isCount
      let shown = percent ? row.value * 100 : row.value
      output.rows.append([
        .text(row.period), .number(shown), .count(row.samples), .text(isCount ? "count" : row.unit),
      ])
      output.barValues.append(row.value)
    }
    output.barColumn = 1
    try FilterOptions.emit(output.render(format), to: arguments.value("--output"), input: input)
  }
}
