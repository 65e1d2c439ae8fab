import HealthPort

/// `healthport workouts`: one row per workout, or a summary per activity.
enum WorkoutsCommand: Command {
  static let name = "workouts"
  static let summary = "List workouts with duration, distance and energy, or summarize them per activity."
  static let options =
    [
      OptionSpec(name: "--summary", short: nil, valueName: nil, help: "One row per activity instead of per workout."),
      OptionSpec(name: "--unit", short: nil, valueName: "km|mi", help: "Distance and pace unit (default: km)."),
      ProfileCommand.unitsOption,
      OptionSpec(name: "--energy-unit", short: nil, valueName: "kcal|kJ", help: "Energy unit (default: kcal)."),
    ]
    + FilterOptions.dedupeOptions(
      help: "Count one workout recorded by several sources once, the best-ranked source's (see docs).")
    + FilterOptions.answerOptions + FilterOptions.specs
  static let usage = """
    USAGE: healthport workouts [INPUT] [--summary] [--unit km|mi] [--units metric|imperial] [--energy-unit kcal|kJ]
                               [--dedupe [--priority LIST]] [--keep-rewrites]
                               [--activity A] [--source-product P] [--source TEXT] [--from D] [--to D]
                               [--tz ZONE] [--type T] [--format table|csv|json] [-o PATH]

    ARGUMENTS:
      INPUT                       export.xml, export.zip, an export folder, or - for stdin (default).

    Columns: start,end,activity,duration_min,distance,energy,source,product,avg_heart_rate,
    max_heart_rate,pace,elevation_gain,indoor; with --summary: activity,count,duration_min,distance,
    energy,avg_heart_rate,max_heart_rate,pace,elevation_gain. Distance and energy come from the
    workout's totals, or (iOS 16+ exports) from its WorkoutStatistics; heart rate from its
    statistics, else (a file, not stdin) from its HeartRate records, read in a second pass. Pace is
    m:ss per km (per mile with --unit mi); elevation in m (ft with --unit mi). A workout written
    again by its source (same activity, instants, duration, source and totals) counts once, and so
    does a rewritten HeartRate sample; --keep-rewrites counts them as written.

    EXAMPLES:
      healthport workouts export.zip --activity running --from 2024-01-01 --unit mi
      healthport workouts export.zip --summary --format csv
    """

  static func run(_ arguments: ParsedArguments) throws {
    let format = try FilterOptions.format(arguments, command: name)
    let input = try FilterOptions.input(arguments, command: name)
    let filter = try FilterOptions.parse(arguments, command: name)
    var configuration = WorkoutTotals.Configuration()
    configuration.distanceUnit = try distanceUnit(arguments)
    configuration.elevationUnit = configuration.distanceUnit == "mi" ? "ft" : "m"
    configuration.energyUnit = try arguments.choice(
      "--energy-unit", ["kcal", "kJ"], default: "kcal", command: name)
    configuration.keepRewrites = arguments.flag("--keep-rewrites")
    (configuration.dedupe, configuration.priority) = try FilterOptions.dedupe(arguments)
    let quiet = arguments.flag("--quiet")
    let summaryOnly = arguments.flag("--summary")
    let totals = WorkoutTotals(configuration)
    totals.keepsRows = !summaryOnly
    try FilterOptions.read(input, into: totals, filter: filter, arguments: arguments, command: name)
    if !quiet {
      RewriteNote.report(
        totals.duplicates, ("duplicated workout", "duplicated workouts"), effect: "counts them as written",
        command: name)
      let merged = totals.merged.reduce(0) { $0 + $1.count }
      if merged > 0 {
        let sources = totals.merged.map { "\($0.sourceName): \(NumberText.grouped($0.count))" }.joined(separator: ", ")
        CommandLineTool.writeError(
          "healthport workouts: --dedupe merged \(NumberText.grouped(merged)) \(merged == 1 ? "workout" : "workouts") "
            + "into a better-ranked source's (\(sources))\n")
      }
    }
    do {
      // Records come before workouts in the file: the heart rates of workouts without statistics
      // come from a second pass over a file (none on stdin).
      let bar = ProgressBar.make(inputPath: input, quiet: quiet)
      defer { bar?.finish() }
      let options = ReadOptions.with(bar, skipInvalid: arguments.flag("--skip-invalid"), filter: filter)
      if let rewrites = try totals.readHeartRates(from: input, options: options), !quiet {
        RewriteNote.report(samples: rewrites, of: WorkoutTotals.heartRateType, sums: false, command: name)
      }
    }

    if totals.summary.isEmpty { EmptyAnswer.explain(workouts: filter.activities, input: input, command: name) }

    func number(_ value: Double?) -> TabularOutput.Cell {
      value.map { .number($0) } ?? .empty
    }
    func pace(_ value: Double?) -> TabularOutput.Cell { value.map { .text(paceText($0)) } ?? .empty }
    var output: TabularOutput
    if summaryOnly {
      output = TabularOutput(
        columns: [
          "activity", "count", "duration_min", "distance", "energy", "avg_heart_rate", "max_heart_rate", "pace",
          "elevation_gain",
        ])
      for row in totals.summary {
        output.rows.append([
          .text(row.activity), .count(row.count), number(row.durationMinutes), number(row.distance),
          number(row.energy), number(row.averageHeartRate), number(row.maximumHeartRate), pace(row.pace),
          number(row.elevationGain),
        ])
        output.barValues.append(Double(row.count))
      }
      output.barColumn = 1
      if format == "table" {
        let distances = totals.summary.compactMap(\.distance)
        let energies = totals.summary.compactMap(\.energy)
        output.totalRow = [
          .text("total"), .count(totals.summary.reduce(0) { $0 + $1.count }),
          number(totals.summary.reduce(0) { $0 + $1.durationMinutes }),
          distances.isEmpty ? .empty : number(distances.reduce(0, +)),
          energies.isEmpty ? .empty : number(energies.reduce(0, +)), .text(""), .text(""), .text(""), .text(""),
        ]
        output.columns[3] = "distance_\(configuration.distanceUnit)"
        output.columns[4] = "energy_\(configuration.energyUnit)"
        output.columns[7] = "pace_per_\(configuration.distanceUnit)"
        output.columns[8] = "elevation_gain_\(configuration.elevationUnit)"
      }
    } else {
      output = TabularOutput(
        columns: [
          "start", "end", "activity", "duration_min", "distance", "energy", "source", "product", "avg_heart_rate",
          "max_heart_rate", "pace", "elevation_gain", "indoor",
        ])
      for row in totals.rows {
        output.rows.append([
          .text(row.start.description), .text(row.end.description), .text(row.activity), number(row.durationMinutes),
          number(row.distance), number(row.energy), .text(row.source), row.product.map { .text($0) } ?? .empty,
          number(row.averageHeartRate), number(row.maximumHeartRate), pace(row.pace), number(row.elevationGain),
          row.indoor.map { .text($0 ? "indoor" : "outdoor") } ?? .empty,
        ])
      }
      if format == "table" {
        output.columns[4] = "distance_\(configuration.distanceUnit)"
        output.columns[5] = "energy_\(configuration.energyUnit)"
        output.totalRow = [
          .text("total"), .text(totals.rows.count == 1 ? "1 workout" : "\(totals.rows.count) workouts"), .text(""),
          number(totals.rows.reduce(0) { $0 + ($1.durationMinutes ?? 0) }),
          totals.rows.contains { $0.distance != nil }
            ? number(totals.rows.reduce(0) { $0 + ($1.distance ?? 0) }) : .empty,
          totals.rows.contains { $0.energy != nil } ? number(totals.rows.reduce(0) { $0 + ($1.energy ?? 0) }) : .empty,
          .text(""), .text(""), .text(""), .text(""), .text(""), .text(""), .text(""),
        ]
        output.columns[10] = "pace_per_\(configuration.distanceUnit)"
        output.columns[11] = "elevation_gain_\(configuration.elevationUnit)"
      }
    }
    try FilterOptions.emit(output.render(format), to: arguments.value("--output"), input: input)
  }

  /// `--unit km|mi`, or its shorthand `--units metric|imperial`; both given must agree.
  static func distanceUnit(_ arguments: ParsedArguments) throws -> String {
    let unit = try arguments.choice("--unit", ["km", "mi"], default: "km", command: name)
    guard arguments.value("--units") != nil else { return unit }
    let units = try arguments.choice("--units", ["metric", "imperial"], default: "metric", command: name)
    let implied = units == "imperial" ? "mi" : "km"
    if arguments.value("--unit") != nil, unit != implied {
      throw HealthPortError(.usage, message: "--unit \(unit) contradicts --units \(units)")
    }
    return implied
  }

  /// Minutes as `m:ss`, rounded to the second.
  static func paceText(_ minutes: Double) -> String {
    let seconds = Int((minutes * 60).rounded())
    let rest = seconds % 60
    return "\(seconds / 60):\(rest < 10 ? "0" : "")\(rest)"
  }
}
