/// What joins the rows of the side-file tables (`route_points`) to the export's rows: the ids a
/// writer gave each Workout, its `WorkoutRoute`s and its own `WorkoutActivity`s, in document order
/// (a few integers per workout). One book for `--split`, Parquet and SQLite; `ID` is the writer's
/// id type.
package struct SideFileJoins<ID: Sendable>: Sendable {
  /// The ids written on a route point's row.
  package typealias RowIDs = (workout: ID?, activity: ID?, route: ID?)
  package typealias Activity = (id: ID, start: Int64, end: Int64?)

  private struct Workout: Sendable {
    var workout: ID
    var routes: [ID]
    var activities: [Activity]
  }

  private var workouts: [Workout] = []

  package init() {}

  /// A workout, with the routes and activities it already has (a database's rows), or none yet.
  package mutating func noteWorkout(_ id: ID, routes: [ID] = [], activities: [Activity] = []) {
    workouts.append(Workout(workout: id, routes: routes, activities: activities))
  }

  /// A route of the last workout noted.
  package mutating func noteRoute(_ id: ID) {
    if !workouts.isEmpty { workouts[workouts.count - 1].routes.append(id) }
  }

  /// A `WorkoutActivity` of the last workout noted.
  package mutating func noteActivity(_ id: ID, _ activity: WorkoutActivity) {
    guard !workouts.isEmpty else { return }
    workouts[workouts.count - 1].activities.append(
      (id, activity.startDate.secondsSince1970, activity.endDate?.secondsSince1970))
  }

  /// The ids of a GPX file's rows, from the join the bundle reader made (all nil when unreferenced).
  package func ids(of file: RouteFile) -> RowIDs {
    guard let join = file.join, join.workoutIndex >= 0, join.workoutIndex < workouts.count else {
      return (nil, nil, nil)
    }
    let workout = workouts[join.workoutIndex]
    let activity = join.activityIndex.flatMap { $0 < workout.activities.count ? workout.activities[$0].id : nil }
    return (workout.workout, activity, join.routeIndex < workout.routes.count ? workout.routes[join.routeIndex] : nil)
  }

  /// The ids of a legacy route's inline `Location` rows (route `routeID` of the last workout): the
  /// activity is the one whose time range holds the first point. Nil before any workout.
  package func inlineIDs(routeID: ID, firstPoint: HealthDate?) -> RowIDs? {
    guard let workout = workouts.last else { return nil }
    let seconds = firstPoint?.secondsSince1970
    let activity = seconds.flatMap { time in workout.activities.first { time >= $0.start && time <= ($0.end ?? .max) } }
    return (workout.workout, activity?.id, routeID)
  }
}
