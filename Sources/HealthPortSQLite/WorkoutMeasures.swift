import HealthPort

/// A workout's duration in minutes, distance in km and energy in kcal, by the rules of
/// `healthport workouts`: the Workout's own `totalDistance`/`totalEnergyBurned` when present,
/// otherwise the `sum` of its direct `WorkoutStatistics` (Distance… types for distance,
/// ActiveEnergyBurned for energy), units converted with ``Units``. nil when unknown; unlike the
/// command, a unit that cannot be converted gives nil rather than stopping the load.
struct WorkoutMeasures {
  var durationMinutes: Double?
  var distanceKilometres: Double?
  var energyKilocalories: Double?

  init(_ workout: Workout) {
    durationMinutes = Self.convert(workout.duration, workout.durationUnit ?? "min", to: "min")
    if workout.totalDistance != nil {
      distanceKilometres = Self.convert(workout.totalDistance, workout.totalDistanceUnit ?? "km", to: "km")
    }
    if workout.totalEnergyBurned != nil {
      energyKilocalories = Self.convert(workout.totalEnergyBurned, workout.totalEnergyBurnedUnit ?? "kcal", to: "kcal")
    }
    guard workout.totalDistance == nil || workout.totalEnergyBurned == nil else { return }
    var distance: Double?
    var energy: Double?
    for statistics in workout.statistics {
      if workout.totalDistance == nil, statistics.type.hasPrefix("HKQuantityTypeIdentifierDistance"),
        let value = Self.convert(statistics.sum, statistics.unit ?? "km", to: "km")
      {
        distance = (distance ?? 0) + value
      } else if workout.totalEnergyBurned == nil, statistics.type == "HKQuantityTypeIdentifierActiveEnergyBurned",
        let value = Self.convert(statistics.sum, statistics.unit ?? "kcal", to: "kcal")
      {
        energy = (energy ?? 0) + value
      }
    }
    if workout.totalDistance == nil { distanceKilometres = distance }
    if workout.totalEnergyBurned == nil { energyKilocalories = energy }
  }

  static func convert(_ text: String?, _ unit: String, to target: String) -> Double? {
    guard let text, let value = Double(text) else { return nil }
    return Units.convert(value, from: unit, to: target)
  }
}
