import HealthPort

/// `healthport chart`: steps, sleep, heart rate or weight per period as an SVG, or an HTML page with the
/// chart and its data table, with the numbers of the matching command.
enum ChartCommand: Command {
  static let name = "chart"
  static let summary = "Draw steps, sleep, heart rate or weight per period as an SVG chart or an HTML page."
  static let kinds = ["steps", "sleep", "heart-rate", "weight"]
  static var firstArgumentChoices: [String] { kinds }
  static let options =
    [
      OptionSpec(
        name: "--by", short: nil, valueName: "day|week|month",
        help: "Period of each bar or point (default: day; for sleep the night, a week or month its average night)."),
      OptionSpec(
        name: "--dedupe", short: nil, valueName: nil,
        help:
          "As for steps and stats: merge overlapping sources the way the Health app does (see docs). Not for sleep, which merges sources already (it refuses --dedupe; --priority works alone)."
      ),
      FilterOptions.priorityOption(
        help: "With --dedupe (sleep: always): source products or names, best first (default: Watch,iPhone, …)."),
      OptionSpec(
        name: "--output", short: "-o", valueName: "path",
        help: "The chart file: FILE.svg (the chart) or FILE.html (the chart and a data table). Required."),
      RewriteNote.option, FilterOptions.quietOption,
    ] + FilterOptions.specs(excluding: ["--activity", "--type"])
  static let usage = """
    USAGE: healthport chart CHART [INPUT] -o FILE.svg|FILE.html [--by day|week|month]
                            [--dedupe [--priority LIST]] [--keep-rewrites] [--source-product P] [--source TEXT]
                            [--from D] [--to D] [--tz ZONE]

    ARGUMENTS:
      CHART                       What to draw, with the numbers of the matching command:
                                    steps       bars of the totals of `healthport steps --by …`
                                    sleep       bars of `healthport sleep` per night (or its --by week|month
                                                averages), stacked by stage: deep, core, REM, unspecified, awake
                                    heart-rate  the average of `stats --type HeartRate --agg avg` as a line,
                                                over a band from its --agg min to its --agg max
                                    weight      the latest weight, `stats --type BodyMass --agg latest`
      INPUT                       export.xml, export.zip, an export folder, or - for stdin (default).

    The SVG is self-contained (no scripts, fonts or links); every bar and point carries its period and
    values in data-period, data-value, … attributes. The HTML page holds the same SVG and a table.

    EXAMPLES:
      healthport chart steps export.zip --by week --from 2024-01-01 -o steps.svg
      healthport chart steps export.zip --dedupe --by month -o steps.html
      healthport chart sleep export.zip --from 2024-06-01 --to 2024-06-30 -o june.html
      healthport chart heart-rate export.zip --source-product Watch --by week -o heart.html
    """

  static func run(_ arguments: ParsedArguments) throws {
    guard let kind = arguments.positionals.first else {
      throw HealthPortError(
        .usage,
        message:
          "say what to chart: \(kinds.joined(separator: ", ")) (e.g. healthport chart steps export.zip -o steps.svg)")
    }
    guard kinds.contains(kind) else {
      let hint = NameSuggestion.closest(to: kind, in: kinds).map { " (did you mean '\($0)'?)" } ?? ""
      throw HealthPortError(
        .usage, message: "unknown chart '\(kind)'; choose one of \(kinds.joined(separator: ", "))\(hint)")
    }
    guard arguments.positionals.count <= 2 else {
      throw HealthPortError(.usage, message: "expected one INPUT, got \(arguments.positionals.count - 1)")
    }
    let input = arguments.positionals.count == 2 ? arguments.positionals[1] : nil
    guard let output = arguments.value("--output") else {
      throw HealthPortError(.usage, message: "give the chart file with -o FILE.svg or -o FILE.html")
    }
    guard let fileKind = ChartFile.kind(of: output) else {
      throw HealthPortError(
        .usage, message: "-o '\(output)': the chart file must end in .svg (the chart) or .html (the chart and a table)")
    }
    let periods = kind == "sleep" ? ["day", "night", "week", "month"] : ["day", "week", "month"]
    let byText = try arguments.choice("--by", periods, default: "day", command: name)
    let by = PeriodKind(rawValue: byText) ?? .day
    let filter = try FilterOptions.parse(arguments, command: name)
    let dedupe = arguments.flag("--dedupe")
    if kind == "sleep" && dedupe {
      throw HealthPortError(
        .usage,
        message:
          "chart sleep always merges overlapping sources and collapses rewrites already (as healthport sleep does), "
          + "so --dedupe has nothing to add; drop it (--priority works alone)")
    }
    // `chart sleep` ranks sources with --priority alone.
    let priority = kind == "sleep" ? arguments.list("--priority") : try FilterOptions.dedupe(arguments).priority
    let keepRewrites = arguments.flag("--keep-rewrites")

    func periodic<Settings: PeriodSettings>(_ settings: Settings) -> Settings {
      var settings = settings
      settings.set(by: by, zone: filter.zone, dedupe: dedupe, keepRewrites: keepRewrites, priority: priority)
      return settings
    }
    func stats(_ type: String, _ aggregate: Aggregate) -> Stats {
      Stats(periodic(Stats.Configuration(type: type, aggregate: aggregate)))
    }

    let chart: ChartData
    let chartType: String
    switch kind {
    case "steps":
      let totals = StepTotals(periodic(StepTotals.Configuration()))
      try RewriteNote.read(
        input, into: totals, filter: filter, arguments: arguments, command: name,
        rewrites: totals.rewrites, of: StepTotals.stepType, sums: true)
      chartType = StepTotals.stepType
      chart = .steps(totals.result, by: by)
    case "sleep":
      var configuration = SleepNights.Configuration()
      var filter = filter
      configuration.takeDayBounds(from: &filter)  // --from/--to days select whole nights, as in `sleep`
      if arguments.value("--tz") != nil { configuration.zone = filter.zone }
      configuration.priority = priority
      configuration.keepRewrites = keepRewrites
      let sleep = SleepNights(configuration)
      try RewriteNote.read(
        input, into: sleep, filter: filter, arguments: arguments, command: name,
        rewrites: sleep.rewrites, of: SleepNights.sleepType, sums: false)
      chartType = SleepNights.sleepType
      chart = by == .day ? .sleep(sleep.nights) : .sleep(SleepAverage.averages(of: sleep.nights, by: by), by: by)
    case "heart-rate":
      let type = "HKQuantityTypeIdentifierHeartRate"
      let (average, minimum, maximum) = (stats(type, .avg), stats(type, .min), stats(type, .max))
      let group = SinkGroup([average, minimum, maximum])
      try RewriteNote.read(
        input, into: group, filter: filter, arguments: arguments, command: name,
        rewrites: average.rewrites, of: type, sums: false)
      chartType = type
      chart = .heartRate(
        average: average.rows, minimum: minimum.rows, maximum: maximum.rows, unit: average.unit, by: by)
    default:
      let type = "HKQuantityTypeIdentifierBodyMass"
      let latest = stats(type, .latest)
      try RewriteNote.read(
        input, into: latest, filter: filter, arguments: arguments, command: name,
        rewrites: latest.rewrites, of: type, sums: false)
      chartType = type
      chart = .weight(latest.rows, unit: latest.unit, by: by)
    }
    guard !chart.points.isEmpty else {
      EmptyAnswer.explain(records: chartType, input: input, command: name)
      throw HealthPortError(
        .malformed, file: input == "-" ? nil : input,
        message:
          "no \(KnownNames.shortTypeName(chartType)) samples to chart (the input has none, or the filters kept none); no file was written"
      )
    }
    try ChartFile.write(chart, as: fileKind, to: output, protecting: input)
  }
}
