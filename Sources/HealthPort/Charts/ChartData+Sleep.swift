/// The sleep chart, from the rows of `healthport sleep` (``SleepNights``, ``SleepAverage``): a bar
/// per night (or average night of a week or month) stacked from deep, core, REM and unspecified
/// sleep, with awake time on top. `data-value` is the asleep minutes; every other column of the
/// command is a `data-…` attribute named after it (`in_bed_min` → `data-in-bed-min`). The table
/// shows the asleep minutes once, as the command's column.
extension ChartData {
  static let sleepParts = [
    ChartColumn(name: "deep", heading: "Deep"), ChartColumn(name: "core", heading: "Core"),
    ChartColumn(name: "rem", heading: "REM"), ChartColumn(name: "unspecified", heading: "Unspecified"),
    ChartColumn(name: "awake", heading: "Awake"),
  ]

  static let sleepMinuteColumns = [
    ChartColumn(name: "value", heading: "Asleep (min)", tabulated: false),
    ChartColumn(name: "in-bed-min", heading: "In bed (min)"),
    ChartColumn(name: "asleep-min", heading: "Asleep (min)"), ChartColumn(name: "core-min", heading: "Core (min)"),
    ChartColumn(name: "deep-min", heading: "Deep (min)"), ChartColumn(name: "rem-min", heading: "REM (min)"),
    ChartColumn(name: "unspecified-min", heading: "Unspecified (min)"),
    ChartColumn(name: "awake-min", heading: "Awake (min)"),
  ]

  /// One bar per night (`healthport sleep`).
  package static func sleep(_ nights: [SleepNight]) -> ChartData {
    let columns =
      sleepMinuteColumns + [
        ChartColumn(name: "bedtime", heading: "Bedtime"), ChartColumn(name: "wake-time", heading: "Wake time"),
        ChartColumn(name: "sources", heading: "Sources"),
      ]
    var chart = ChartData(
      title: "Sleep per night", quantity: "Sleep", unit: "min", by: .day, style: .stackedBars, columns: columns,
      points: nights.map { night in
        let minutes = [
          night.inBedMinutes, night.asleepMinutes, night.coreMinutes, night.deepMinutes, night.remMinutes,
          night.unspecifiedMinutes, night.awakeMinutes,
        ]
        return sleepPoint(
          key: night.day, period: night.night, minutes: minutes,
          extra: [night.bedtime.description, night.wakeTime.description, night.sources.joined(separator: "; ")])
      })
    chart.parts = sleepParts
    chart.valueLabel = "asleep"
    chart.minutesAsHours = true
    chart.markerLabel = "In bed"
    chart.periodTitle = "Night (the evening before the date, to 18:00 on it)"
    return chart
  }

  /// One bar per week or month: the averages per night (`healthport sleep --by week|month`).
  package static func sleep(_ averages: [SleepAverage], by: PeriodKind) -> ChartData {
    let columns =
      [ChartColumn(name: "nights", heading: "Nights")] + sleepMinuteColumns + [
        ChartColumn(name: "bedtime", heading: "Bedtime (average)"),
        ChartColumn(name: "wake-time", heading: "Wake time (average)"),
      ]
    var chart = ChartData(
      title: "Sleep per night, averaged per \(by.noun)", quantity: "Sleep", unit: "min", by: by, style: .stackedBars,
      columns: columns,
      points: averages.map { average in
        let minutes = [
          average.inBedMinutes, average.asleepMinutes, average.coreMinutes, average.deepMinutes,
          average.remMinutes, average.unspecifiedMinutes, average.awakeMinutes,
        ]
        var point = sleepPoint(
          key: average.key, period: average.period, minutes: minutes,
          extra: [
            SleepAverage.clock(minutesAfter18: average.bedtimeMinutesAfter18),
            SleepAverage.clock(minutesAfter18: average.wakeMinutesAfter18),
          ])
        point.cells.insert(String(average.nights), at: 0)
        return point
      })
    chart.parts = sleepParts
    chart.valueLabel = "asleep"
    chart.minutesAsHours = true
    chart.markerLabel = "In bed"
    return chart
  }

  /// `minutes`: in bed, asleep, core, deep, REM, unspecified, awake (the command's order).
  static func sleepPoint(key: Int, period: String, minutes: [Double], extra: [String]) -> ChartPoint {
    let asleep = minutes[1]
    var point = ChartPoint(
      key: key, period: period, value: asleep,
      cells: [NumberText.format(asleep)] + minutes.map { NumberText.format($0) } + extra)
    point.parts = [minutes[3], minutes[2], minutes[4], minutes[5], minutes[6]]
    point.marker = minutes[0]
    point.high = max(point.parts.reduce(0, +), minutes[0])
    return point
  }
}
