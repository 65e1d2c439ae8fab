/// One workout as `healthport workouts` lists it.
package struct WorkoutRow: Hashable, Sendable {
  /// `startDate` and `endDate` as written in the export.
  package var start: HealthDate
  package var end: HealthDate
  /// The activity without its `HKWorkoutActivityType` prefix (`Running`).
  package var activity: String
  /// Minutes, from `duration` and `durationUnit`; nil when absent.
  package var durationMinutes: Double?
  /// In the chosen distance unit; nil when unknown.
  package var distance: Double?
  /// In the chosen energy unit; nil when unknown.
  package var energy: Double?
  package var source: String
  package var product: String?
  /// Beats per minute, from the workout's `WorkoutStatistics`, else (after ``WorkoutTotals/apply(_:)``)
  /// from its HeartRate records; nil when unknown.
  package var averageHeartRate: Double?
  package var maximumHeartRate: Double?
  /// Minutes per distance unit, for distance activities with a known distance; nil otherwise.
  package var pace: Double?
  /// `HKElevationAscended` in the chosen elevation unit; nil when absent.
  package var elevationGain: Double?
  /// `HKIndoorWorkout`: true indoor, false outdoor, nil when absent.
  package var indoor: Bool?
  /// Document order, to keep equal start dates stable.
  var sequence: Int
}

/// One activity in `healthport workouts --summary`.
package struct ActivitySummaryRow: Hashable, Sendable {
  package var activity: String
  package var count: Int
  package var durationMinutes: Double
  /// Sum of the known distances; nil when no workout of the activity has one.
  package var distance: Double?
  package var energy: Double?
  /// The mean of the workouts' average heart rates, weighted by their durations; nil when none has one.
  package var averageHeartRate: Double? {
    heartRateWeight > 0 ? heartRateWeighted / heartRateWeight : nil
  }
  package var maximumHeartRate: Double?
  /// Total minutes over total distance of the workouts with a pace; nil when none has one.
  package var pace: Double? { paceDistance > 0 ? paceMinutes / paceDistance : nil }
  /// The sum of the known elevation gains; nil when none is known.
  package var elevationGain: Double?

  var heartRateWeighted = 0.0
  var heartRateWeight = 0.0
  var paceMinutes = 0.0
  var paceDistance = 0.0

  package init(activity: String, count: Int, durationMinutes: Double, distance: Double? = nil, energy: Double? = nil) {
    self.activity = activity
    self.count = count
    self.durationMinutes = durationMinutes
    self.distance = distance
    self.energy = energy
  }

  /// Adds one workout's heart rates (weighted by its duration, or 1 without one).
  mutating func addHeartRate(average: Double?, maximum: Double?, minutes: Double?) {
    if let average {
      let weight = (minutes ?? 0) > 0 ? minutes ?? 1 : 1
      heartRateWeighted += average * weight
      heartRateWeight += weight
    }
    if let maximum { maximumHeartRate = max(maximumHeartRate ?? maximum, maximum) }
  }
}

/// Collects workouts with their duration, distance and energy.
///
/// Distance and energy come from the Workout's `totalDistance`/`totalEnergyBurned` attributes
/// when present; otherwise from the `sum` of its direct `WorkoutStatistics` children (those inside
/// a `WorkoutActivity` are parts of the same totals and are not added again): every
/// `HKQuantityTypeIdentifierDistance…` type for distance (multisport workouts have several),
/// `HKQuantityTypeIdentifierActiveEnergyBurned` for energy. Units are converted to the chosen
/// ones; a unit that cannot be converted is an error naming it.
package final class WorkoutTotals: ExportSink {
  package struct Configuration {
    /// `km` or `mi` (any length unit ``Units`` knows).
    package var distanceUnit = "km"
    /// `kcal` or `kJ` (any energy unit ``Units`` knows).
    package var energyUnit = "kcal"
    /// `m` or `ft`, for the elevation gain.
    package var elevationUnit = "m"
    /// `--keep-rewrites`: count duplicated workouts as written.
    package var keepRewrites = false
    /// `--dedupe`: one workout recorded by several sources counted once (`WorkoutMerge`).
    package var dedupe = false
    /// `--priority` entries for `dedupe` (see ``SourceRanking``).
    package var priority: [String] = []
    package init() {}
  }

  package let configuration: Configuration
  package internal(set) var rows: [WorkoutRow] = []
  private var sequence = 0
  private var summaryIndex: [String: Int] = [:]
  package internal(set) var summary: [ActivitySummaryRow] = []
  /// When false, rows are not kept (only the summary), so memory grows with activities only.
  package var keepsRows = true

  /// Workouts without heart-rate statistics, for a pass over their HeartRate records.
  package private(set) var heartRateWindows: [HeartRateWindow] = []

  /// The workouts seen, to count a duplicated one once (unless `keepRewrites`).
  private var seen: Set<WorkoutIdentity> = []
  /// The source name of each duplicated workout left out.
  private var duplicateSources: [String] = []
  /// The duplicated workouts left out, per source name in order of first appearance. Set by
  /// ``end(_:)``.
  package private(set) var duplicates: [StepTotals.RewriteCount] = []
  /// The workouts of other sources that `dedupe` merged into a better-ranked one's, per source name.
  package private(set) var merged: [StepTotals.RewriteCount] = []
  /// With `dedupe`: every workout kept so far, until ``end(_:)`` merges them.
  private var pending: [(row: WorkoutRow, window: HeartRateWindow?, rank: Int)] = []
  private var ranking: SourceRanking

  package init(_ configuration: Configuration) {
    self.configuration = configuration
    ranking = SourceRanking(priority: configuration.priority)
  }

  package var interest: ElementInterest { .workoutsOnly }

  package func begin(_ header: ExportHeader) throws {}

  package func consume(_ element: ExportElement) throws {
    guard case .workout(let workout) = element else { return }
    try add(workout)
  }

  package func add(_ workout: Workout) throws {
    let row = try Self.row(for: workout, configuration: configuration, sequence: sequence)
    sequence += 1
    if !configuration.keepRewrites, !seen.insert(WorkoutIdentity(workout)).inserted {
      duplicateSources.append(workout.sourceName)
      return
    }
    var window: HeartRateWindow?
    if row.averageHeartRate == nil && row.maximumHeartRate == nil {
      window = HeartRateWindow(
        sourceName: workout.sourceName, deviceName: workout.deviceString.flatMap(HeartRateWindow.deviceName),
        start: workout.startDate.secondsSince1970, end: workout.endDate.secondsSince1970, sequence: row.sequence,
        activity: row.activity, durationMinutes: row.durationMinutes)
    }
    if configuration.dedupe {
      pending.append((row, window, ranking.rank(name: workout.sourceName, product: workout.sourceProduct)))
    } else {
      include(row, window: window)
    }
  }

  /// Counts one workout in the rows and the summary.
  private func include(_ row: WorkoutRow, window: HeartRateWindow?) {
    if keepsRows { rows.append(row) }
    let index: Int
    if let found = summaryIndex[row.activity] {
      index = found
    } else {
      index = summary.count
      summaryIndex[row.activity] = index
      summary.append(ActivitySummaryRow(activity: row.activity, count: 0, durationMinutes: 0))
    }
    summary[index].count += 1
    summary[index].durationMinutes += row.durationMinutes ?? 0
    summary[index].addHeartRate(
      average: row.averageHeartRate, maximum: row.maximumHeartRate, minutes: row.durationMinutes)
    if let pace = row.pace, let distance = row.distance {
      summary[index].paceMinutes += pace * distance
      summary[index].paceDistance += distance
    }
    if let gain = row.elevationGain { summary[index].elevationGain = (summary[index].elevationGain ?? 0) + gain }
    if let window { heartRateWindows.append(window) }
    if let distance = row.distance { summary[index].distance = (summary[index].distance ?? 0) + distance }
    if let energy = row.energy { summary[index].energy = (summary[index].energy ?? 0) + energy }
  }

  /// One count per source name, in order of first appearance.
  private static func perSource(_ names: [String]) -> [StepTotals.RewriteCount] {
    StepTotals.RewriteCount.perSource([Int](repeating: 1, count: names.count)) { names[$0] }
  }

  package func end(_ report: ReadReport) throws {
    duplicates = Self.perSource(duplicateSources)
    seen = []
    if configuration.dedupe {
      let candidates = pending.map {
        WorkoutMerge.Candidate(
          activity: $0.row.activity, start: $0.row.start.secondsSince1970, end: $0.row.end.secondsSince1970,
          rank: $0.rank)
      }
      let kept = WorkoutMerge.kept(candidates)
      let keptSet = Set(kept)
      merged = Self.perSource(pending.indices.filter { !keptSet.contains($0) }.map { pending[$0].row.source })
      for index in kept { include(pending[index].row, window: pending[index].window) }
      pending = []
    }
    rows.sort { ($0.start.secondsSince1970, $0.sequence) < ($1.start.secondsSince1970, $1.sequence) }
    summary.sort { ($0.count, $1.activity) > ($1.count, $0.activity) }
  }

  static func row(for workout: Workout, configuration: Configuration, sequence: Int) throws -> WorkoutRow {
    func number(_ text: String?, _ what: String) throws -> Double? {
      guard let text else { return nil }
      guard let value = Double(text) else {
        throw HealthPortError(
          .malformed, message: "the workout starting \(workout.startDate) has a non-numeric \(what) '\(text)'"
        )
      }
      return value
    }
    func convert(_ value: Double, _ unit: String?, to target: String, _ what: String) throws -> Double {
      let unit = unit ?? target
      guard let converted = Units.convert(value, from: unit, to: target) else {
        throw HealthPortError(
          .malformed,
          message:
            "the workout starting \(workout.startDate) has a \(what) in '\(unit)', which cannot be converted to \(target)"
        )
      }
      return converted
    }

    var duration: Double?
    if let value = try number(workout.duration, "duration") {
      duration = try convert(value, workout.durationUnit ?? "min", to: "min", "duration")
    }

    var distance: Double?
    if let value = try number(workout.totalDistance, "totalDistance") {
      distance = try convert(value, workout.totalDistanceUnit, to: configuration.distanceUnit, "totalDistance")
    }
    var energy: Double?
    if let value = try number(workout.totalEnergyBurned, "totalEnergyBurned") {
      energy = try convert(value, workout.totalEnergyBurnedUnit, to: configuration.energyUnit, "totalEnergyBurned")
    }
    if distance == nil || energy == nil {
      var statDistance: Double?
      var statEnergy: Double?
      for statistic in workout.statistics {
        guard let sum = try number(statistic.sum, "\(statistic.type) sum") else { continue }
        if statistic.type.hasPrefix("HKQuantityTypeIdentifierDistance") {
          statDistance =
            (statDistance ?? 0)
            + (try convert(sum, statistic.unit, to: configuration.distanceUnit, "\(statistic.type) sum"))
        } else if statistic.type == "HKQuantityTypeIdentifierActiveEnergyBurned" {
          statEnergy =
            (statEnergy ?? 0)
            + (try convert(sum, statistic.unit, to: configuration.energyUnit, "\(statistic.type) sum"))
        }
      }
      if distance == nil { distance = statDistance }
      if energy == nil { energy = statEnergy }
    }
    let activity = KnownNames.shortActivityName(workout.workoutActivityType)
    let heartRate = try heartRateStatistics(workout)
    var pace: Double?
    if let distance, distance > 0, let duration, distanceActivities.contains(activity) { pace = duration / distance }
    return WorkoutRow(
      start: workout.startDate, end: workout.endDate, activity: activity, durationMinutes: duration,
      distance: distance, energy: energy, source: workout.sourceName, product: workout.sourceProduct,
      averageHeartRate: heartRate.average, maximumHeartRate: heartRate.maximum, pace: pace,
      elevationGain: try elevationGain(workout, in: configuration.elevationUnit), indoor: indoor(workout),
      sequence: sequence)
  }
}
