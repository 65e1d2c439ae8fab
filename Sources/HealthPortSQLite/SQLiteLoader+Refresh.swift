import HealthPort
import SQLiteStore

/// The latest export wins: an element already in the database gets this load's date strings,
/// offsets and local days (its `seen` statement sets its own; these set its children's), so that a
/// database loaded export after export holds what a fresh load of the last one holds. Children are
/// found by their parent's id and their position, through the parent's index; nothing is scanned.
extension SQLiteLoader {
  /// The dates of a correlation's records (the correlation's own are set by `seenCorrelation`).
  func refreshDates(of correlation: Correlation, hash: Int64, sourceID: Int64) throws {
    var find = Binder(s.findCorrelation, text)
    try find.add(person)
    try find.add(correlation.type)
    try find.add(correlation.startDate.secondsSince1970)
    try find.add(correlation.endDate.secondsSince1970)
    try find.add(sourceID)
    try find.add(Self.creationKey(correlation.creationDate))
    try find.add(hash)
    let id: Int64? = try s.findCorrelation.step() ? s.findCorrelation.int64(0) : nil
    s.findCorrelation.reset()
    text.arena.reset()
    guard let id else { return }
    for (position, child) in correlation.children.enumerated() {
      guard case .record(let record) = child else { continue }
      var b = Binder(s.refreshCorrelationRecord, text)
      try b.add(date: record.creationDate)
      try b.add(date: record.startDate)
      try b.add(date: record.endDate)
      try b.add(id)
      try b.add(position)
      pending += try b.run()
    }
  }

  /// The dates of a workout's activities, events, statistics, routes and inline route points (the
  /// workout's own are set by `seenWorkout`).
  func refreshDates(of workout: Workout, id: Int64) throws {
    for (position, child) in workout.children.enumerated() {
      switch child {
      case .event(let event): try refreshDates(of: event, workoutID: id, activityID: nil, position)
      case .statistics(let statistics): try refreshDates(of: statistics, workoutID: id, activityID: nil, position)
      case .activity(let activity):
        var b = Binder(s.refreshActivity, text)
        try b.add(date: activity.startDate)
        try b.add(date: activity.endDate)
        try b.add(id)
        try b.add(position)
        guard let activityID = try returnedID(&b) else { continue }
        for (n, grandchild) in activity.children.enumerated() {
          switch grandchild {
          case .event(let event): try refreshDates(of: event, workoutID: id, activityID: activityID, n)
          case .statistics(let statistics):
            try refreshDates(of: statistics, workoutID: id, activityID: activityID, n)
          case .metadata, .other: continue
          }
        }
      case .route(let route):
        var b = Binder(s.refreshRoute, text)
        try b.add(date: route.creationDate)
        try b.add(date: route.startDate)
        try b.add(date: route.endDate)
        try b.add(id)
        try b.add(position)
        guard let routeID = try returnedID(&b) else { continue }
        for (n, grandchild) in route.children.enumerated() {
          guard case .location(let node) = grandchild else { continue }
          let date = node[attribute: "date"]
          let parsed = date.flatMap(HealthDate.init)
          var location = Binder(s.refreshLocation, text)
          try location.add(date)
          try location.add(parsed?.secondsSince1970)
          try location.add(parsed.map { Int64($0.offsetSeconds / 60) })
          try location.add(routeID)
          try location.add(n)
          pending += try location.run()
        }
      case .metadata, .other: continue
      }
    }
  }

  private func refreshDates(of event: WorkoutEvent, workoutID: Int64, activityID: Int64?, _ position: Int) throws {
    var b = Binder(s.refreshEvent, text)
    try b.add(date: event.date)
    try b.add(workoutID)
    try b.add(activityID)
    try b.add(position)
    pending += try b.run()
  }

  private func refreshDates(
    of statistics: WorkoutStatistics, workoutID: Int64, activityID: Int64?, _ position: Int
  ) throws {
    var b = Binder(s.refreshStatistics, text)
    try b.add(date: statistics.startDate)
    try b.add(date: statistics.endDate)
    try b.add(workoutID)
    try b.add(activityID)
    try b.add(position)
    pending += try b.run()
  }

  /// Runs an `UPDATE … RETURNING id`: the id of the row it changed, nil when none.
  private func returnedID(_ b: inout Binder) throws -> Int64? {
    defer {
      b.statement.reset()
      text.arena.reset()
    }
    guard try b.statement.step() else { return nil }
    pending += 1
    return b.statement.int64(0)
  }
}
