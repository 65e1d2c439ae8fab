/// The ticks of a chart's date axis: the finest of day, week, month, quarter, year (then 2, 5, 10,
/// 20… years) whose labels fit side by side without overlapping, so that a week and ten years both
/// read well.
///
/// Label widths are estimated from the character count (``ChartMetrics/characterWidth``, generous
/// for the usual sans-serif faces); a tick whose label would stick out past the room beside the
/// plot is left out.
package struct DateAxis: Sendable {
  package enum Step: Sendable, Equatable, CustomStringConvertible {
    case day, week, month, quarter
    /// Every `n` years, on years divisible by `n`.
    case years(Int)

    package var description: String {
      switch self {
      case .day: "day"
      case .week: "week"
      case .month: "month"
      case .quarter: "quarter"
      case .years(let n): n == 1 ? "year" : "\(n) years"
      }
    }

    /// Finest first.
    static let candidates: [Step] = [.day, .week, .month, .quarter, .years(1), .years(2), .years(5), .years(10)]
  }

  package struct Tick: Sendable, Equatable {
    /// Where the tick sits, in days since 1970-01-01 (fractional: a day's middle is `day + 0.5`).
    package var position: Double
    /// `Mar 5`, `Mar`, `2024`.
    package var label: String
    /// The year under the label where it starts or changes (day, week, month and quarter steps).
    package var yearLabel: String?
  }

  package let step: Step
  package let ticks: [Tick]
  /// The days shown, `start..<end`.
  package let days: Range<Int>
  package let width: Double

  /// Ticks for `days` drawn `width` pixels wide, with `overhang` pixels free on each side of the
  /// plot for a label to stick out. With `centeredOnDays`, a tick names the day it sits in the
  /// middle of (a chart by day); otherwise it sits on the boundary where its period starts.
  /// Steps finer than `finest` are not tried (a chart by month gets no weekly ticks).
  package init(
    days: Range<Int>, width: Double, overhang: (left: Double, right: Double), centeredOnDays: Bool,
    finest: Step = .day
  ) {
    self.days = days
    self.width = width
    let offset = centeredOnDays ? 0.5 : 0
    var chosen: (Step, [Tick])?
    var fallback: (Step, [Tick])?
    let first = Step.candidates.firstIndex(of: finest) ?? 0
    for step in Step.candidates[first...] {
      let ticks = Self.ticks(step, days: days, offset: offset).filter {
        let x = Self.x($0.position, days: days, width: width)
        let half = Self.labelWidth($0) / 2
        return x - half >= -overhang.left && x + half <= width + overhang.right
      }
      guard !ticks.isEmpty else { continue }
      if fallback == nil || ticks.count >= 2 { fallback = (step, ticks) }
      if Self.fits(ticks, days: days, width: width) {
        chosen = (step, ticks)
        break
      }
    }
    (step, ticks) = chosen ?? fallback ?? (.day, [])
  }

  /// The pixel offset of a position from the plot's left edge.
  package func x(_ position: Double) -> Double { Self.x(position, days: days, width: width) }

  static func x(_ position: Double, days: Range<Int>, width: Double) -> Double {
    let span = Double(max(1, days.count))
    return (position - Double(days.lowerBound)) / span * width
  }

  /// The estimated width of a tick's widest line.
  package static func labelWidth(_ tick: Tick) -> Double {
    Double(max(tick.label.count, tick.yearLabel?.count ?? 0)) * ChartMetrics.characterWidth
  }

  /// True when neighbouring labels keep ``ChartMetrics/labelGap`` between them.
  static func fits(_ ticks: [Tick], days: Range<Int>, width: Double) -> Bool {
    for (left, right) in zip(ticks, ticks.dropFirst()) {
      let distance = x(right.position, days: days, width: width) - x(left.position, days: days, width: width)
      if distance < (labelWidth(left) + labelWidth(right)) / 2 + ChartMetrics.labelGap { return false }
    }
    return true
  }

  static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

  /// Every tick of `step` in `days` (its end included: a boundary may close the axis).
  static func ticks(_ step: Step, days: Range<Int>, offset: Double) -> [Tick] {
    var starts: [Int] = []
    switch step {
    case .day:
      starts = Array(days)
    case .week:
      let weekday = ((days.lowerBound + 3) % 7 + 7) % 7  // Monday = 0
      var day = days.lowerBound + (7 - weekday) % 7
      while day <= days.upperBound {
        starts.append(day)
        day += 7
      }
    case .month, .quarter:
      let every = step == .month ? 1 : 3
      var (year, month, first) = HealthDate.civil(fromDays: days.lowerBound)
      if first != 1 { month += 1 }
      while (month - 1) % every != 0 { month += 1 }
      while true {
        if month > 12 {
          year += (month - 1) / 12
          month = (month - 1) % 12 + 1
        }
        let day = HealthDate.daysSince1970(year: year, month: month, day: 1)
        if day > days.upperBound { break }
        starts.append(day)
        month += every
      }
    case .years(let n):
      let (firstYear, month, day) = HealthDate.civil(fromDays: days.lowerBound)
      var year = month == 1 && day == 1 ? firstYear : firstYear + 1
      while year % n != 0 { year += 1 }
      while true {
        let start = HealthDate.daysSince1970(year: year, month: 1, day: 1)
        if start > days.upperBound { break }
        starts.append(start)
        year += n
      }
    }
    var ticks: [Tick] = []
    var previousYear: Int?
    for start in starts {
      let position = Double(start) + offset
      // A centred tick past the last day would name a day that is not shown.
      if position > Double(days.upperBound) { continue }
      let (year, month, day) = HealthDate.civil(fromDays: start)
      var tick: Tick
      switch step {
      case .day, .week: tick = Tick(position: position, label: "\(monthNames[month - 1]) \(day)")
      case .month, .quarter: tick = Tick(position: position, label: monthNames[month - 1])
      case .years: tick = Tick(position: position, label: String(year))
      }
      if case .years = step {
      } else if previousYear != year {
        tick.yearLabel = String(year)
      }
      previousYear = year
      ticks.append(tick)
    }
    return ticks
  }
}

/// Sizes shared by the axes and the renderer.
package enum ChartMetrics {
  /// The font size of tick labels, in pixels.
  package static let fontSize = 12.0
  /// An upper estimate of one character's advance at ``fontSize`` in a sans-serif face
  /// (DejaVu Sans digits are 0.64 em, capitals up to 0.77 em).
  package static let characterWidth = fontSize * 0.7
  /// The least space between two tick labels.
  package static let labelGap = 10.0
}
