/// What ``FilteringSink`` keeps of the side files: a route when its workout was kept (its join
/// renumbered among the kept workouts), an unreferenced route or an ECG recording only when
/// neither `--type` nor `--activity` is given; a recording also within `--from`/`--to` by its
/// `Recorded Date`.
struct SideFileFilter {
  /// For each top-level Workout seen (document order), its index among the kept ones, or -1.
  private var keptIndex: [Int32] = []
  private var keptCount: Int32 = 0
  private var dropping = false

  mutating func noteWorkout(kept: Bool) {
    keptIndex.append(kept ? keptCount : -1)
    if kept { keptCount += 1 }
  }

  /// The event to hand on, or nil to drop it.
  mutating func pass(_ event: SideFileEvent, _ filter: ExportFilter) -> SideFileEvent? {
    switch event {
    case .routeBegin(var file):
      if let join = file.join {
        let index = join.workoutIndex < keptIndex.count ? Int(keptIndex[join.workoutIndex]) : -1
        dropping = index < 0
        file.join?.workoutIndex = index
      } else {
        dropping = filter.types != nil || filter.activities != nil
      }
      return dropping ? nil : .routeBegin(file)
    case .ecgBegin(let recording):
      let date = recording.recordedDate.flatMap { HealthDate($0) ?? HealthDate.flexible($0) }
      dropping = filter.types != nil || filter.activities != nil || !(date.map(filter.inRange) ?? true)
      return dropping ? nil : event
    case .routePoints, .ecgSamples: return dropping ? nil : event
    case .routeEnd, .ecgEnd:
      defer { dropping = false }
      return dropping ? nil : event
    }
  }
}
