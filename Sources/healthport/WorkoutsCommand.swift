import HealthPort

/// `healthport workouts`: one row per workout, or a summary per activity.
enum WorkoutsCommand: Command {
  static let name = "workouts"
  static let summary = "List workouts with duration, distance and energy, or summarize them per activity."
  static let options =
    [
      OptionSpec(name: "--summary", short: nil, valueName: nil, help: "One row per activity instead of per workout."),
      OptionSpec(name: "--unit", short: nil, valueName: "km|mi", help: "Distance unit (default: km)."),
      OptionSpec(name: "--energy-unit", short: nil, valueName: "kcal|kJ", help: "Energy unit (default: kcal)."),
      FilterOptions.formatOption, FilterOptions.outputOption, FilterOptions.quietOption,
    ] + FilterOptions.specs
  static let usage = """
    USAGE: healthport workouts [INPUT] [--summary] [--unit km|mi] [--energy-unit kcal|kJ]
                               [--activity A] [--source-product P] [--source TEXT] [--from D] [--to D]
                               [--tz ZONE] [--type T] [--format table|csv|json] [-o PATH]

    ARGUMENTS:
      INPUT                       export.xml, export.zip, an export folder, or - for stdin (default).

    Columns: start,end,activity,duration_min,distance,energy,source,product; with --summary:
    activity,count,duration_min,distance,energy. Distance and energy come from the workout's
    totals, or (iOS 16+ exports) from its WorkoutStatistics.

    EXAMPLES:
      healthport workouts export.zip --activity running --from 2024-01-01 --unit mi
      healthport workouts export.zip --summary --format csv
    """

  static func run(_ arguments: ParsedArguments) throws {
    let format = try FilterOptions.format(arguments, command: name)
    let input = try FilterOptions.input(arguments, command: name)
    let filter = try FilterOptions.parse(arguments, command: name)
    var configuration = WorkoutTotals.Configuration()
    configuration.distanceUnit = try arguments.choice("--unit", ["km", "mi"], default: "km", command: name)
    configuration.energyUnit = try arguments.choice(
      "--energy-unit", ["kcal", "kJ"], default: "kcal", command: name)
    let summaryOnly = arguments.flag("--summary")
    let totals = WorkoutTotals(configuration)
    totals.keepsRows = !summaryOnly
    try FilterOptions.read(input, into: totals, filter: filter, arguments: arguments, command: name)

    func number(_ value: Double?) -> TabularOutput.Cell {
      value.map { .number(NumberText.format($0)) } ?? .empty
    }
    var output: TabularOutput
    if summaryOnly {
      output = TabularOutput(columns: ["activity", "count", "duration_min", "distance", "energy"])
      for row in totals.summary {
        output.rows.append([
          .text(row.activity), .number(String(row.count)), number(row.durationMinutes), number(row.distance),
          number(row.energy),
        ])
        output.barValues.append(Double(row.count))
      }
      output.barColumn = 1
      if format == "table" {
        let distances = totals.summary.compactMap(\.distance)
        let energies = totals.summary.compactMap(\.energy)
        output.totalRow = [
          .text("total"), .number(String(totals.summary.reduce(0) { $0 + $1.count })),
          number(totals.summary.reduce(0) { $0 + $1.durationMinutes }),
          distances.isEmpty ? .empty : number(distances.reduce(0, +)),
          energies.isEmpty ? .empty : number(energies.reduce(0, +)),
        ]
        output.columns[3] = "distance_\(configuration.distanceUnit)"
        output.columns[4] = "energy_\(configuration.energyUnit)"
      }
    } else {
      output = TabularOutput(
        columns: ["start", "end", "activity", "duration_min", "distance", "energy", "source", "product"])
      for row in totals.rows {
        output.rows.append([
          .text(row.start.description), .text(row.end.description), .text(row.activity), number(row.durationMinutes),
          number(row.distance), number(row.energy), .text(row.source), row.product.map { .text($0) } ?? .empty,
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
          .text(""), .text(""),
        ]
      }
    }
    try FilterOptions.emit(output.render(format), to: arguments.value("--output"), input: input)
  }
}
