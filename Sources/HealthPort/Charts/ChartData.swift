/// What one chart shows: the periods of one aggregate, exactly as the matching command computed
/// them (``StepTotals``, ``Stats``), ready to be drawn and tabulated.
package struct ChartData: Sendable {
  /// How the values are drawn.
  package enum Style: Sendable, Equatable {
    /// One bar per period from zero (totals: steps).
    case bars
    /// One bar per period made of ``ChartData/parts`` stacked from zero (minutes per sleep state).
    case stackedBars
    /// The value as a line with points, over a band from each period's low to its high
    /// (average heart rate within its minimum–maximum range).
    case bandLine
    /// The value as a line with points (the latest weight of each period).
    case line
  }

  /// The visible title and the SVG's `<title>`: "Steps per day".
  package var title: String
  /// What the values are, for the value axis and the description: "Steps", "Heart rate".
  package var quantity: String
  /// The values' unit as written by the command: "steps", "count/min", "kg", "min".
  package var unit: String
  package var by: PeriodKind
  package var style: Style
  /// The columns after the period: `data-…` attributes on each mark and, when
  /// ``ChartColumn/tabulated``, in the data table and tooltips.
  package var columns: [ChartColumn]
  /// The stacked parts of ``Style/stackedBars``, bottom first.
  package var parts: [ChartColumn] = []
  /// What the band of ``Style/bandLine`` spans, for the legend: "minimum–maximum".
  package var bandLabel = ""
  /// What each stacked bar's ``ChartPoint/marker`` line shows, for the legend: "In bed".
  package var markerLabel = ""
  /// What the line or bars show, for the legend: "average".
  package var valueLabel = ""
  /// The date axis's title when the periods are not plain days, weeks or months (nights).
  package var periodTitle: String? = nil
  /// Minutes shown on the value axis as hours (sleep); the marks keep minutes.
  package var minutesAsHours = false
  /// Ascending by period.
  package var points: [ChartPoint]

  package init(
    title: String, quantity: String, unit: String, by: PeriodKind, style: Style, columns: [ChartColumn],
    points: [ChartPoint]
  ) {
    self.title = title
    self.quantity = quantity
    self.unit = unit
    self.by = by
    self.style = style
    self.columns = columns
    self.points = points
  }
}

extension ChartData {
  /// The columns the data table and the tooltips show.
  var tabulatedColumns: [ChartColumn] { columns.filter(\.tabulated) }

  /// The cells of `point` under ``tabulatedColumns``, with their columns.
  func tabulatedCells(_ point: ChartPoint) -> [(column: ChartColumn, cell: String)] {
    zip(columns, point.cells).filter { $0.0.tabulated }.map { (column: $0, cell: $1) }
  }
}

/// One column of the data table, also written as the attribute `data-NAME` on each mark.
package struct ChartColumn: Sendable, Equatable {
  /// The attribute's name after `data-` (lowercase letters, digits and `-`): `value`, `min`.
  package var name: String
  /// The table's heading: "Steps", "Minimum (count/min)".
  package var heading: String
  /// Whether the data table and the marks' tooltips show the column; false for an attribute that
  /// repeats another column under its own name (sleep's `data-value`, the `data-asleep-min`).
  package var tabulated: Bool

  package init(name: String, heading: String, tabulated: Bool = true) {
    self.name = name
    self.heading = heading
    self.tabulated = tabulated
  }
}

/// One period of a chart.
package struct ChartPoint: Sendable {
  /// The period's key (``PeriodKind/key(forDay:)``), which places it on the date axis.
  package var key: Int
  /// The period as the command prints it: `2024-03-05`, `2024-W10`, `2024-03`.
  package var period: String
  /// The drawn value: the bar's height (for stacked bars, the sum of ``parts``) or the line's point.
  package var value: Double
  /// The band's ends (``ChartData/Style/bandLine``).
  package var low: Double? = nil
  package var high: Double? = nil
  /// A level marked across a stacked bar (the minutes in bed).
  package var marker: Double? = nil
  /// The stacked values, aligned with ``ChartData/parts``.
  package var parts: [Double] = []
  /// The texts of ``ChartData/columns``, as the matching command writes them.
  package var cells: [String]

  package init(key: Int, period: String, value: Double, cells: [String]) {
    self.key = key
    self.period = period
    self.value = value
    self.cells = cells
  }
}

extension PeriodKind {
  /// The local days a period covers, `start..<end` in days since 1970-01-01.
  package func dayRange(forKey key: Int) -> Range<Int> {
    switch self {
    case .day:
      return key..<(key + 1)
    case .week:
      return key..<(key + 7)
    case .month:
      let year = key >= 0 ? key / 12 : (key - 11) / 12
      let month = key - year * 12 + 1
      let start = HealthDate.daysSince1970(year: year, month: month, day: 1)
      return start..<(start + HealthDate.daysInMonth(year, month))
    case .year:
      let start = HealthDate.daysSince1970(year: key, month: 1, day: 1)
      return start..<HealthDate.daysSince1970(year: key + 1, month: 1, day: 1)
    }
  }

  /// "day", "week", "month", "year": for titles ("Steps per week").
  package var noun: String { rawValue }
}
