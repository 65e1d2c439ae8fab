/// Unit conversions for the unit strings exports use (HealthKit's `HKUnit` strings).
///
/// A unit is `base × factor + offset` in its dimension's base unit (metres, kilograms,
/// kilocalories, seconds, litres, kelvin, metres per second, counts per minute, pascals…).
package enum Units {
  struct Conversion {
    let dimension: String
    let factor: Double
    let offset: Double
  }

  static let table: [String: Conversion] = {
    var table: [String: Conversion] = [:]
    func add(_ dimension: String, _ pairs: [(String, Double)]) {
      for (unit, factor) in pairs { table[unit] = Conversion(dimension: dimension, factor: factor, offset: 0) }
    }
    add(
      "length",
      [
        ("m", 1), ("km", 1000), ("cm", 0.01), ("mm", 0.001), ("mi", 1609.344), ("yd", 0.9144), ("ft", 0.3048),
        ("in", 0.0254),
      ])
    add(
      "mass",
      [
        ("kg", 1), ("g", 0.001), ("mg", 1e-6), ("mcg", 1e-9), ("lb", 0.453_592_37), ("oz", 0.028_349_523_125),
        ("st", 6.350_293_18),
      ])
    add("energy", [("kcal", 1), ("Cal", 1), ("cal", 0.001), ("kJ", 1 / 4.184), ("J", 1 / 4184)])
    add("time", [("s", 1), ("ms", 0.001), ("min", 60), ("hr", 3600), ("d", 86_400)])
    add(
      "volume",
      [
        ("L", 1), ("mL", 0.001), ("dL", 0.1), ("fl_oz_us", 0.029_573_529_562_5), ("fl_oz_imp", 0.028_413_062_5),
        ("cup_us", 0.236_588_236_5), ("cup_imp", 0.284_130_625), ("pt_us", 0.473_176_473), ("pt_imp", 0.568_261_25),
      ])
    add("speed", [("m/s", 1), ("km/hr", 1000.0 / 3600), ("mi/hr", 1609.344 / 3600), ("m/hr", 1.0 / 3600)])
    add("frequency", [("count/min", 1), ("count/s", 60), ("Hz", 60)])
    add("pressure", [("mmHg", 133.322_387_415), ("cmAq", 98.0665), ("Pa", 1), ("kPa", 1000)])
    add("count", [("count", 1)])
    table["degC"] = Conversion(dimension: "temperature", factor: 1, offset: 273.15)
    table["degF"] = Conversion(dimension: "temperature", factor: 5.0 / 9, offset: 273.15 - 32 * 5.0 / 9)
    table["K"] = Conversion(dimension: "temperature", factor: 1, offset: 0)
    return table
  }()

  /// `value × scale + shift` converts from `from` to `to`; nil when the units are not convertible.
  /// Identical unit strings always convert (scale 1).
  package static func linear(from: String, to: String) -> (scale: Double, shift: Double)? {
    if from == to { return (1, 0) }
    guard let source = table[from], let target = table[to], source.dimension == target.dimension else { return nil }
    // base = v × sf + so; target value = (base − to) / tf
    return (source.factor / target.factor, (source.offset - target.offset) / target.factor)
  }

  /// Converts one value; nil when not convertible.
  package static func convert(_ value: Double, from: String, to: String) -> Double? {
    linear(from: from, to: to).map { value * $0.scale + $0.shift }
  }
}
