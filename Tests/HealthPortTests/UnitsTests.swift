import Testing

@testable import HealthPort

@Suite("Units")
struct UnitsTests {
  @Test(
    "conversions between the units exports use",
    arguments: [
      (1.0, "mi", "km", 1.609344), (1000.0, "m", "km", 1.0), (1760.0, "yd", "mi", 1.0), (5.0, "km", "km", 5.0),
      (4.184, "kJ", "kcal", 1.0), (100.0, "Cal", "kcal", 100.0), (1.0, "kcal", "kJ", 4.184),
      (90.0, "s", "min", 1.5), (1.5, "hr", "min", 90.0), (2.204_622_621_8, "lb", "kg", 1.0),
      (212.0, "degF", "degC", 100.0), (0.0, "degC", "degF", 32.0), (3.6, "km/hr", "m/s", 1.0),
      (1.0, "L", "mL", 1000.0), (1.0, "count/s", "count/min", 60.0), (7.0, "weird", "weird", 7.0),
    ])
  func convert(value: Double, from: String, to: String, expected: Double) throws {
    let converted = try #require(Units.convert(value, from: from, to: to))
    #expect(abs(converted - expected) < 1e-6, "\(value) \(from) -> \(converted) \(to)")
  }

  @Test("units of different dimensions do not convert", arguments: [("kg", "km"), ("count", "kcal"), ("x", "km")])
  func inconvertible(from: String, to: String) {
    #expect(Units.convert(1, from: from, to: to) == nil)
  }
}
