import HealthPort

/// `healthport steps`: step totals per day, week, month or year.
enum StepsCommand: Command {
  static let name = "steps"
  static let summary = "Total steps per day, week, month or year (optionally de-duplicated across sources)."
  static let options =
    [FilterOptions.byOption]
    + FilterOptions.dedupeOptions(help: "Merge overlapping sources the way the Health app does (see docs).")
    + FilterOptions.answerOptions + [FilterOptions.singleTypeOption("StepCount")]
    + FilterOptions.specs(excluding: ["--activity", "--type"])
  static let usage = """
    USAGE: healthport steps [INPUT] [--by day|week|month|year] [--dedupe [--priority LIST]] [--keep-rewrites]
                            [--type StepCount] [--source-product P] [--source TEXT] [--from D] [--to D] [--tz ZONE]
                            [--format table|csv|json] [-o PATH]

    ARGUMENTS:
      INPUT                       export.xml, export.zip, an export folder, or - for stdin (default).

    Sums HKQuantityTypeIdentifierStepCount per period of each sample's start date (local day in
    the offset written on the sample, or in --tz). A sample rewritten by its source (same source,
    instants and value) counts once; --keep-rewrites sums every copy as written. CSV columns:
    period,steps,samples. Without --format, -o picks it from the extension (.csv, .json), else the
    table. --type StepCount names the rows of a CSV without a type column.

    EXAMPLES:
      healthport steps export.zip --source-product Watch --from 2023-01-01 --to 2023-12-31
      healthport steps export.zip --dedupe --by month --format csv
      healthport steps export.zip --dedupe --priority "Watch,Pedometer++" --tz Europe/Berlin
    """

  static let stepCount = "HKQuantityTypeIdentifierStepCount"

  static func run(_ arguments: ParsedArguments) throws {
    let format = try FilterOptions.format(arguments, command: name)
    let input = try FilterOptions.input(arguments, command: name)
    let filter = try FilterOptions.parse(arguments, command: name)
    if let types = filter.types, types != [stepCount] {
      throw HealthPortError(
        .usage,
        message:
          "steps counts \(stepCount) only; --type StepCount names the rows of a CSV without a type column (for other types: healthport stats --type T)"
      )
    }
    var configuration = StepTotals.Configuration()
    try configuration.take(arguments, filter: filter, command: name)
    let totals = StepTotals(configuration)
    try RewriteNote.read(
      input, into: totals, filter: filter, arguments: arguments, command: name,
      rewrites: totals.rewrites, of: StepTotals.stepType, sums: true)
    if totals.result.isEmpty { EmptyAnswer.explain(records: configuration.type, input: input, command: name) }

    // Tables show whole steps (the Health app shows no fractions), the total rounded from the exact
    // total; CSV and JSON the exact (de-duplicated totals are fractional) values.
    var output = TabularOutput(columns: ["period", "steps", "samples"])
    for row in totals.result {
      output.rows.append([.text(row.period), .number(row.value, decimals: 0), .count(row.samples)])
      output.barValues.append(row.value)
    }
    output.barColumn = 1
    output.groupsThousands = true
    let total = totals.result.reduce(0) { $0 + $1.value }
    let samples = totals.result.reduce(0) { $0 + $1.samples }
    output.totalRow = [.text("total"), .number(total, decimals: 0), .count(samples)]
    try FilterOptions.emit(output.render(format), to: arguments.value("--output"), input: input)
  }
}
