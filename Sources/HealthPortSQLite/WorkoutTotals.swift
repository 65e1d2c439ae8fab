import HealthPort

/// A workout's duration in minutes, distance in km and energy in kcal, by the rules of
/// `healthport workouts`: the Workout's own `totalDistance`/`totalEnergyBurned` when present,
/// otherwise the `sum` of its direct `WorkoutStatistics` (Distance… types for distance,
/// ActiveEnergyBurned for energy), units converted. nil when unknown.
struct WorkoutTotals {
  var durationMinutes: Double?
  var distanceKilometres: Double?
  var energyKilocalories: Double?

  init(_ workout: Workout) {
    durationMinutes = Self.convert(workout.duration, workout.durationUnit ?? "min", Self.minutes)
    if workout.totalDistance != nil {
      distanceKilometres = Self.convert(workout.totalDistance, workout.totalDistanceUnit ?? "km", Self.kilometres)
    }
    if workout.totalEnergyBurned != nil {
      energyKilocalories = Self.convert(
        workout.totalEnergyBurned, workout.totalEnergyBurnedUnit ?? "kcal", Self.kilocalories)
    }
    guard distanceKilometres == nil || energyKilocalories == nil else { return }
    var distance: Double?
    var energy: Double?
    for statistics in workout.statistics {
      guard let unit = statistics.unit else { continue }
      if workout.totalDistance == nil, statistics.type.hasPrefix("HKQuantityTypeIdentifierDistance"),
        let value = Self.convert(statistics.sum, unit, Self.kilometres)
      {
        distance = (distance ?? 0) + value
      } else if workout.totalEnergyBurned == nil, statistics.type == "HKQuantityTypeIdentifierActiveEnergyBurned",
        let value = Self.convert(statistics.sum, unit, Self.kilocalories)
      {
        energy = (energy ?? 0) + value
      }
    }
    if workout.totalDistance == nil { distanceKilometres = distance }
    if workout.totalEnergyBurned == nil { energyKilocalories = energy }
  }

  static let minutes: [String: Double] = ["min": 1, "s": 1.0 / 60, "ms": 1.0 / 60_000, "hr": 60, "h": 60]
  static let kilometres: [String: Double] = [
    "km": 1, "m": 0.001, "mi": 1.609_344, "yd": 0.000_914_4, "ft": 0.000_304_8, "cm": 0.000_01,
  ]
  static let kilocalories: [String: Double] = ["kcal": 1, "Cal": 1, "kJ": 1 / 4.184, "cal": 0.001, "J": 1 / 4184]

  static func convert(_ text: String?, _ unit: String, _ factors: [String: Double]) -> Double? {
    guard let text, let value = Double(text), let factor = factors[unit] else { return nil }
    return value * factor
  }
}
