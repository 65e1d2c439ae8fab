/// What makes two workouts the same (docs/steps.md, "Rewrites and duplicated workouts"): the activity
/// type, the start and end instants, the duration, the source name, and the totals:
/// `totalDistance` and `totalEnergyBurned` (value and unit, as written), or, when the workout has
/// neither (iOS 16 on), the `sum` and unit of each direct `WorkoutStatistics` by type. Metadata,
/// events, routes, the device and `creationDate` are not compared: an app that syncs a workout
/// again writes a copy that differs only there. The store's views apply the same rule.
struct WorkoutIdentity: Hashable {
  let activity: String
  let start: Int64
  let end: Int64
  let duration: String?
  let durationUnit: String?
  let sourceName: String
  let totals: [String?]

  init(_ workout: Workout) {
    activity = workout.workoutActivityType
    start = workout.startDate.secondsSince1970
    end = workout.endDate.secondsSince1970
    duration = workout.duration
    durationUnit = workout.durationUnit
    sourceName = workout.sourceName
    var totals = [
      workout.totalDistance, workout.totalDistanceUnit, workout.totalEnergyBurned, workout.totalEnergyBurnedUnit,
    ]
    if workout.totalDistance == nil && workout.totalEnergyBurned == nil {
      for statistics in workout.statistics.sorted(by: { ($0.type, $0.unit ?? "") < ($1.type, $1.unit ?? "") }) {
        totals += [statistics.type, statistics.sum, statistics.unit]
      }
    }
    self.totals = totals
  }
}

/// `workouts --dedupe`: one workout recorded by several sources counted once. Workouts are taken
/// by source rank (``SourceRanking``, `--priority` first), best first; one is dropped when an
/// already kept workout of a better rank and the same activity overlaps it by more than half of
/// the shorter of the two. Equal ranks never drop each other; a kept row is unchanged.
enum WorkoutMerge {
  struct Candidate {
    var activity: String
    var start: Int64
    var end: Int64
    var rank: Int
  }

  /// The indexes of `candidates` that stay, ascending.
  static func kept(_ candidates: [Candidate]) -> [Int] {
    let order = candidates.indices.sorted { (candidates[$0].rank, $0) < (candidates[$1].rank, $1) }
    var keptByActivity: [String: [Int]] = [:]
    var kept: [Int] = []
    for index in order {
      let candidate = candidates[index]
      let covered = keptByActivity[candidate.activity, default: []].contains { other in
        let better = candidates[other]
        guard better.rank < candidate.rank else { return false }
        let overlap = min(better.end, candidate.end) - max(better.start, candidate.start)
        let shorter = min(better.end - better.start, candidate.end - candidate.start)
        return overlap > 0 && 2 * overlap > shorter
      }
      guard !covered else { continue }
      keptByActivity[candidate.activity, default: []].append(index)
      kept.append(index)
    }
    return kept.sorted()
  }
}
