/// A value axis with "nice" ticks (1, 2, 2.5 or 5 times a power of ten), covering the values and,
/// for bars, zero.
package struct ValueAxis: Sendable {
  package let lower: Double
  package let upper: Double
  package let step: Double
  package let ticks: [Double]
  /// Decimals every tick label needs (0 for a step of 1 or more).
  package let decimals: Int

  /// Whether values are minutes labelled as hours (`7 h`, `7 h 30`).
  package let inHours: Bool

  /// An axis over `low...high`, aiming at about `tickCount` intervals; `fromZero` extends it to 0.
  /// With `minutesAsHours`, steps are whole quarters, halves or multiples of an hour.
  package init(low: Double, high: Double, fromZero: Bool, tickCount: Int = 5, minutesAsHours: Bool = false) {
    var low = low.isFinite ? low : 0
    var high = high.isFinite ? high : 0
    if fromZero {
      low = Swift.min(low, 0)
      high = Swift.max(high, 0)
    }
    if high - low <= 0 {
      // One value: room around it (or above zero).
      let pad = Swift.max(abs(high) * 0.05, 1)
      if fromZero && high == 0 {
        high = 1
      } else {
        low -= fromZero && low >= 0 ? 0 : pad
        high += pad
      }
    }
    let raw = (high - low) / Double(Swift.max(1, tickCount))
    let hourSteps: [Double] = [15, 30, 60, 120, 180, 240, 360, 480, 720, 1440]
    let step = minutesAsHours ? hourSteps.first { $0 >= raw } ?? Self.niceStep(raw) : Self.niceStep(raw)
    inHours = minutesAsHours
    let lower = (low / step).rounded(.down) * step
    let upper = (high / step).rounded(.up) * step
    var ticks: [Double] = []
    var index = 0.0
    while lower + index * step <= upper + step * 1e-9 {
      ticks.append(lower + index * step)
      index += 1
    }
    self.lower = lower
    self.upper = upper
    self.step = step
    self.ticks = ticks
    var decimals = 0
    while decimals < 6, abs((step * Self.power(decimals)).rounded() - step * Self.power(decimals)) > 1e-6 {
      decimals += 1
    }
    self.decimals = decimals
  }

  /// The smallest of 1, 2, 2.5, 5, 10 times a power of ten that is at least `raw`.
  static func niceStep(_ raw: Double) -> Double {
    guard raw > 0, raw.isFinite else { return 1 }
    var magnitude = 1.0
    while magnitude * 10 <= raw { magnitude *= 10 }
    while magnitude > raw { magnitude /= 10 }
    for factor in [1.0, 2, 2.5, 5, 10] where factor * magnitude >= raw * (1 - 1e-12) {
      return factor * magnitude
    }
    return 10 * magnitude
  }

  static func power(_ decimals: Int) -> Double {
    var value = 1.0
    for _ in 0..<decimals { value *= 10 }
    return value
  }

  /// A tick's label: thousands grouped, ``decimals`` decimals (`12,500`, `72.5`).
  package func label(_ value: Double) -> String {
    if inHours {
      let minutes = Int(value.rounded())
      let hours = NumberText.grouped(minutes / 60)
      return minutes % 60 == 0 ? "\(hours) h" : "\(hours) h \(minutes % 60 < 10 ? "0" : "")\(minutes % 60)"
    }
    return ChartNumber.grouped(value, decimals: decimals)
  }

  /// Where `value` lies between ``lower`` (0) and ``upper`` (1).
  package func fraction(_ value: Double) -> Double { (value - lower) / (upper - lower) }
}

/// Number texts for people, in the chart and its table.
package enum ChartNumber {
  /// `value` with exactly `decimals` decimals and thousands separators: `12,345.50`.
  package static func grouped(_ value: Double, decimals: Int) -> String {
    let scale = ValueAxis.power(decimals)
    let scaled = (abs(value) * scale).rounded()
    let negative = value < 0 && scaled > 0
    let whole = Int64(scaled / scale)
    var text = NumberText.grouped(Int(whole))
    if decimals > 0 {
      let fraction = String(Int64(scaled) - whole * Int64(scale))
      text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
    return negative ? "-" + text : text
  }

  /// `value` as the commands write it (at most 3 decimals), with thousands separators.
  package static func shown(_ value: Double) -> String { NumberText.grouped(NumberText.format(value)) }
}
