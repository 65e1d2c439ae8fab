import HealthPort
import SQLiteStore

/// Workouts and what they hold: activities, events, statistics, routes and legacy route points.
extension SQLiteLoader {
  func insert(_ workout: Workout) throws {
    let sourceID = try self.sourceID(
      workout.sourceName, workout.sourceVersion, workout.deviceString, workout.sourceProduct)
    var b = Binder(s.insertWorkout, text)
    try b.add(person)
    try b.add(workout.workoutActivityType)
    try b.add(workout.duration)
    try b.add(workout.durationUnit)
    try b.add(workout.totalDistance)
    try b.add(workout.totalDistanceUnit)
    try b.add(workout.totalEnergyBurned)
    try b.add(workout.totalEnergyBurnedUnit)
    try addSourceAndDates(to: &b, workout, sourceID: sourceID)
    let totals = WorkoutMeasures(workout)
    try b.add(totals.durationMinutes)
    try b.add(totals.distanceKilometres)
    try b.add(totals.energyKilocalories)
    try b.add(result.exportID)
    guard try b.run() == 1 else {
      var seen = try seen(s.seenWorkout, workout, type: workout.workoutActivityType, sourceID: sourceID, hash: nil)
      try seen.run()
      let id = try noteExistingWorkout(workout, sourceID: sourceID)
      try refreshDates(of: workout, id: id)
      return
    }
    let id = rowAdded(to: .workouts)
    noteInsertedWorkout(id)
    try insertExtras(workout.extraAttributes, text: workout.text, owner: "workout", id)
    try insertChildren(workout.children, of: StoredParent(kind: .workout, id: id, workoutID: id))
  }

  func insert(_ activity: WorkoutActivity, workoutID: Int64, _ position: Int) throws {
    var b = try inserting(s.insertActivity, workoutID, Int64(position))
    try b.add(activity.uuid)
    try b.add(date: activity.startDate)
    try b.add(date: activity.endDate)
    try b.add(activity.duration)
    try b.add(activity.durationUnit)
    let id = try insertRow(&b, into: .workoutActivities)
    noteInsertedActivity(id, activity)
    try insertExtras(activity.extraAttributes, owner: "workout_activity", id)
    try insertChildren(
      activity.children, of: StoredParent(kind: .activity, id: id, workoutID: workoutID, activityID: id))
  }

  func insert(_ event: WorkoutEvent, workoutID: Int64, activityID: Int64?, _ position: Int) throws {
    var b = try inserting(s.insertEvent, workoutID, activityID, Int64(position))
    try b.add(event.type)
    try b.add(date: event.date)
    try b.add(event.duration)
    try b.add(event.durationUnit)
    let id = try insertRow(&b, into: .workoutEvents)
    try insertExtras(event.extraAttributes, owner: "workout_event", id)
    try insertChildren(event.children, of: StoredParent(kind: .event, id: id))
  }

  func insert(_ statistics: WorkoutStatistics, workoutID: Int64, activityID: Int64?, _ position: Int)
    throws
  {
    var b = try inserting(s.insertStatistics, workoutID, activityID, Int64(position))
    try b.add(statistics.type)
    try b.add(date: statistics.startDate)
    try b.add(date: statistics.endDate)
    try b.add(statistics.average)
    try b.add(statistics.minimum)
    try b.add(statistics.maximum)
    try b.add(statistics.sum)
    try b.add(statistics.unit)
    let id = try insertRow(&b, into: .workoutStatistics)
    try insertExtras(statistics.extraAttributes, children: statistics.extraChildren, owner: "workout_statistics", id)
  }

  func insert(_ route: WorkoutRoute, workoutID: Int64, _ position: Int) throws {
    let sourceID = try self.sourceID(route.sourceName, route.sourceVersion, route.deviceString, route.sourceProduct)
    var filePath: String?
    var firstFileReference = -1
    for (n, child) in route.children.enumerated() {
      if case .fileReference(let reference) = child {
        filePath = reference.path
        firstFileReference = n
        break
      }
    }
    var b = try inserting(s.insertRoute, workoutID, Int64(position))
    try b.add(sourceID)
    try b.add(date: route.creationDate)
    try b.add(date: route.startDate)
    try b.add(date: route.endDate)
    try b.add(filePath)
    let id = try insertRow(&b, into: .workoutRoutes)
    noteInsertedRoute(id)
    try insertExtras(route.extraAttributes, owner: "workout_route", id)
    try insertChildren(
      route.children, of: StoredParent(kind: .route, id: id, firstFileReference: firstFileReference))
    try insertInlinePoints(route, routeID: id)
  }

  /// A binder of a child's `statement` with the person and the child's key bound (its parents'
  /// ids, then its position), as the child tables order them.
  private func inserting(_ statement: SQLiteStatement, _ key: Int64?...) throws -> Binder {
    var b = Binder(statement, text)
    try b.add(person)
    for value in key { try b.add(value) }
    return b
  }

  static let locationColumns = [
    "latitude", "longitude", "altitude", "horizontalAccuracy", "verticalAccuracy", "course", "speed",
  ]
  static let locationAttributes = Set(["date"] + locationColumns)

  func insertLocation(_ node: ElementNode, routeID: Int64, _ position: Int) throws {
    var b = try inserting(s.insertLocation, routeID, Int64(position))
    let date = node[attribute: "date"]
    try b.add(date)
    let parsed = date.flatMap(HealthDate.init)
    try b.add(parsed?.secondsSince1970)
    try b.add(parsed.map { Int64($0.offsetSeconds / 60) })
    for name in Self.locationColumns { try b.add(node[attribute: name]) }
    try insertUnknown(
      of: node, besides: Self.locationAttributes, owner: "route_location", insertRow(&b, into: .routeLocations))
  }
}
