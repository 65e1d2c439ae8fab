/// The charts of the aggregating commands, built from their aggregators' rows, so that every
/// number is the one the command computes, with at most 3 decimals (`NumberText.format`; the
/// command's CSV writes it exactly).
extension ChartData {
  /// `healthport steps --by …`: a bar per period.
  package static func steps(_ rows: [PeriodTotal], by: PeriodKind) -> ChartData {
    var chart = ChartData(
      title: "Steps per \(by.noun)", quantity: "Steps", unit: "steps", by: by, style: .bars,
      columns: [ChartColumn(name: "value", heading: "Steps"), ChartColumn(name: "samples", heading: "Samples")],
      points: rows.map {
        ChartPoint(
          key: $0.key, period: $0.period, value: $0.value,
          cells: [NumberText.format($0.value), String($0.samples)])
      })
    chart.valueLabel = "steps"
    return chart
  }

  /// `healthport stats --type HeartRate --agg avg|min|max`: the average as a line over the
  /// minimum–maximum band. The three come from the same samples, so they share their periods.
  package static func heartRate(
    average: [StatsRow], minimum: [StatsRow], maximum: [StatsRow], unit: String, by: PeriodKind
  ) -> ChartData {
    let lows = Dictionary(minimum.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    let highs = Dictionary(maximum.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    let suffix = unit.isEmpty ? "" : " (\(unit))"
    var chart = ChartData(
      title: "Heart rate per \(by.noun)", quantity: "Heart rate", unit: unit, by: by, style: .bandLine,
      columns: [
        ChartColumn(name: "value", heading: "Average\(suffix)"), ChartColumn(name: "min", heading: "Minimum\(suffix)"),
        ChartColumn(name: "max", heading: "Maximum\(suffix)"), ChartColumn(name: "samples", heading: "Samples"),
      ],
      points: average.map { row in
        let low = lows[row.key] ?? row.value
        let high = highs[row.key] ?? row.value
        var point = ChartPoint(
          key: row.key, period: row.period, value: row.value,
          cells: [NumberText.format(row.value), NumberText.format(low), NumberText.format(high), String(row.samples)])
        point.low = low
        point.high = high
        return point
      })
    chart.valueLabel = "average"
    chart.bandLabel = "minimum to the maximum"
    return chart
  }

  /// `healthport stats --type BodyMass --agg latest`: the latest weight of each period as a line.
  package static func weight(_ rows: [StatsRow], unit: String, by: PeriodKind) -> ChartData {
    let suffix = unit.isEmpty ? "" : " (\(unit))"
    var chart = ChartData(
      title: "Weight per \(by.noun)", quantity: "Body mass", unit: unit, by: by, style: .line,
      columns: [
        ChartColumn(name: "value", heading: "Latest\(suffix)"), ChartColumn(name: "samples", heading: "Samples"),
      ],
      points: rows.map {
        ChartPoint(
          key: $0.key, period: $0.period, value: $0.value, cells: [NumberText.format($0.value), String($0.samples)])
      })
    chart.valueLabel = "latest"
    return chart
  }
}
