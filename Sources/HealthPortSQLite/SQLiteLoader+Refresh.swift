import HealthPort
import SQLiteStore

/// The latest export wins: an element already in the database gets this load's date strings,
/// offsets and local days (its `seen` statement sets its own; these set its children's), so that a
/// database loaded export after export holds what a fresh load of the last one holds. Children are
/// found by their parent's id and their position, through the parent's index; nothing is scanned.
extension SQLiteLoader {
  /// The dates of a correlation's records (the correlation's own are set by `seenCorrelation`).
  func refreshDates(of correlation: Correlation, id: Int64) throws {
    for (position, child) in correlation.children.enumerated() {
      guard case .record(let record) = child else { continue }
      var b = try refreshing(
        s.refreshCorrelationRecord, [record.creationDate, record.startDate, record.endDate], id, Int64(position))
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
        var b = try refreshing(s.refreshActivity, [activity.startDate, activity.endDate], id, Int64(position))
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
        var b = try refreshing(
          s.refreshRoute, [route.creationDate, route.startDate, route.endDate], id, Int64(position))
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
    var b = try refreshing(s.refreshEvent, [event.date], workoutID, activityID, Int64(position))
    pending += try b.run()
  }

  private func refreshDates(
    of statistics: WorkoutStatistics, workoutID: Int64, activityID: Int64?, _ position: Int
  ) throws {
    var b = try refreshing(
      s.refreshStatistics, [statistics.startDate, statistics.endDate], workoutID, activityID, Int64(position))
    pending += try b.run()
  }

  /// A binder of `statement` with `dates` bound (three parameters each), then the child's key.
  private func refreshing(_ statement: SQLiteStatement, _ dates: [HealthDate?], _ key: Int64?...) throws -> Binder {
    var b = Binder(statement, text)
    for date in dates { try b.add(date: date) }
    for value in key { try b.add(value) }
    return b
  }

  /// Runs an `UPDATE … RETURNING id`: the id of the row it changed, nil when none.
  func returnedID(_ b: inout Binder) throws -> Int64? {
    defer {
      b.statement.reset()
      text.arena.reset()
    }
    guard try b.statement.step() else { return nil }
    pending += 1
    return b.statement.int64(0)
  }
}
