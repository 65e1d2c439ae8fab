import HealthPort

/// `healthport sleep`: one row per night, merged across sources, or averages per week or month.
enum SleepCommand: Command {
  static let name = "sleep"
  static let summary = "Sleep per night (in bed, asleep, stages, bedtime, wake time), merged across sources."
  static let options =
    [
      OptionSpec(
        name: "--by", short: nil, valueName: "night|week|month",
        help: "One row per night (default), or averages per night over each week or month."),
      FilterOptions.priorityOption(
        help: "Source products or names, best first (default: Watch,iPhone, then by appearance)."),
    ] + FilterOptions.answerOptions + [FilterOptions.singleTypeOption("SleepAnalysis")]
    + FilterOptions.specs(excluding: ["--activity", "--type"])
  static let usage = """
    USAGE: healthport sleep [INPUT] [--by night|week|month] [--priority LIST] [--keep-rewrites] [--type SleepAnalysis]
                            [--source-product P] [--source TEXT] [--from D] [--to D] [--tz ZONE]
                            [--format table|csv|json] [-o PATH]

    ARGUMENTS:
      INPUT                       export.xml, export.zip, an export folder, or - for stdin (default).

    The night D holds the samples whose local start is in [D-1 18:00, D 18:00): local time from
    --tz, else the sample's HKTimeZone, else its written offset. Asleep stages are merged by
    source rank (always, no --dedupe needed); in bed is the union of every InBed interval.
    Columns: night,in_bed_min,asleep_min,core_min,deep_min,rem_min,unspecified_min,awake_min,
    bedtime,wake_time,sources; with --by week|month: period,nights, the averages per night, and
    bedtime and wake time averaged as clock times.

    EXAMPLES:
      healthport sleep export.zip --from 2024-01-01
      healthport sleep export.zip --by month --format csv
      healthport sleep export.zip --priority AutoSleep --tz Europe/Paris
    """

  static func run(_ arguments: ParsedArguments) throws {
    let format = try FilterOptions.format(arguments, command: name)
    let input = try FilterOptions.input(arguments, command: name)
    var filter = try FilterOptions.parse(arguments, command: name)
    if let types = filter.types, types != [SleepNights.sleepType] {
      throw HealthPortError(
        .usage,
        message:
          "sleep reads \(SleepNights.sleepType) only; --type SleepAnalysis names the rows of a CSV without a type column"
      )
    }
    let by = try arguments.choice("--by", ["night", "week", "month"], default: "night", command: name)
    var configuration = SleepNights.Configuration()
    configuration.takeDayBounds(from: &filter)
    if arguments.value("--tz") != nil { configuration.zone = filter.zone }
    configuration.priority = arguments.list("--priority")
    configuration.keepRewrites = arguments.flag("--keep-rewrites")
    let sleep = SleepNights(configuration)
    try FilterOptions.read(input, into: sleep, filter: filter, arguments: arguments, command: name)
    if !arguments.flag("--quiet") {
      RewriteNote.report(samples: sleep.rewrites, of: SleepNights.sleepType, sums: false, command: name)
      if sleep.unknownValues > 0 {
        let noun = sleep.unknownValues == 1 ? "sample" : "samples"
        CommandLineTool.writeError(
          "healthport sleep: warning: skipped \(NumberText.grouped(sleep.unknownValues)) SleepAnalysis \(noun) whose value is no sleep state\n"
        )
      }
    }
    if sleep.nights.isEmpty { EmptyAnswer.explain(records: SleepNights.sleepType, input: input, command: name) }

    func minutes(_ value: Double) -> TabularOutput.Cell { .number(value) }
    var output: TabularOutput
    if by == "night" {
      output = TabularOutput(columns: ["night"] + minuteColumns + ["bedtime", "wake_time", "sources"])
      for night in sleep.nights {
        output.rows.append(
          [.text(night.night)]
            + [
              night.inBedMinutes, night.asleepMinutes, night.coreMinutes, night.deepMinutes, night.remMinutes,
              night.unspecifiedMinutes, night.awakeMinutes,
            ].map(minutes)
            + [
              .text(night.bedtime.description), .text(night.wakeTime.description),
              .text(night.sources.joined(separator: "; ")),
            ])
        output.barValues.append(night.asleepMinutes)
      }
    } else {
      let kind: PeriodKind = by == "week" ? .week : .month
      output = TabularOutput(columns: ["period", "nights"] + minuteColumns + ["bedtime", "wake_time"])
      for average in SleepAverage.averages(
        of: sleep.nights, by: kind)
      {
        output.rows.append(
          [.text(average.period), .count(average.nights)]
            + [
              average.inBedMinutes, average.asleepMinutes, average.coreMinutes, average.deepMinutes,
              average.remMinutes, average.unspecifiedMinutes, average.awakeMinutes,
            ].map(minutes)
            + [
              .text(SleepAverage.clock(minutesAfter18: average.bedtimeMinutesAfter18)),
              .text(SleepAverage.clock(minutesAfter18: average.wakeMinutesAfter18)),
            ])
        output.barValues.append(average.asleepMinutes)
      }
    }
    output.barColumn = by == "night" ? 2 : 3
    try FilterOptions.emit(output.render(format), to: arguments.value("--output"), input: input)
  }

  static let minuteColumns = [
    "in_bed_min", "asleep_min", "core_min", "deep_min", "rem_min", "unspecified_min", "awake_min",
  ]
}
