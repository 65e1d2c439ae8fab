/// One point of a workout route: a GPX `trkpt`, or a legacy inline `Location`. Every value is
/// the text as written (GPX reals have six decimals), so that outputs keep it exactly; the
/// numeric accessors parse it.
public struct RoutePoint: Hashable, Sendable {
  package var latitude: String
  package var longitude: String
  /// Metres above sea level (`ele`, or a Location's `altitude`).
  package var elevation: String?
  /// As written: `2019-09-24T10:22:37Z` in GPX (UTC), the export's date form for a Location.
  package var time: String?
  /// m/s.
  package var speed: String?
  /// Degrees from north; -1 means invalid in old Location data.
  package var course: String?
  /// Metres (`hAcc`, `vAcc`).
  package var horizontalAccuracy: String?
  package var verticalAccuracy: String?

  package init(
    latitude: String, longitude: String, elevation: String? = nil, time: String? = nil, speed: String? = nil,
    course: String? = nil, horizontalAccuracy: String? = nil, verticalAccuracy: String? = nil
  ) {
    self.latitude = latitude
    self.longitude = longitude
    self.elevation = elevation
    self.time = time
    self.speed = speed
    self.course = course
    self.horizontalAccuracy = horizontalAccuracy
    self.verticalAccuracy = verticalAccuracy
  }

  /// The latitude in degrees; nil when the text is not a number.
  public var latitudeDegrees: Double? { Double(latitude) }
  /// The longitude in degrees; nil when the text is not a number.
  public var longitudeDegrees: Double? { Double(longitude) }
  /// The elevation in metres; nil when absent or not a number.
  public var elevationMetres: Double? { elevation.flatMap { Double($0) } }
  /// The time as an instant, for GPX (`…Z`) and export-form times alike.
  public var instant: HealthDate? { time.flatMap { HealthDate.flexible($0) } }
}

/// Where a route's points were stored.
package enum RouteOrigin: String, Sendable {
  /// A GPX file under `workout-routes/`.
  case gpx
  /// `Location` elements inside the `WorkoutRoute` (iOS 12 and older).
  case inline
}

/// How a route file is joined to export.xml: the `Workout` whose `WorkoutRoute` has a
/// `FileReference` naming the file.
package struct RouteJoin: Hashable, Sendable {
  /// The workout's position among the export's top-level Workouts (0-based, document order; a
  /// ``FilteringSink`` renumbers it among the workouts it keeps).
  package var workoutIndex: Int
  /// The `WorkoutRoute`'s position among that workout's routes (0-based).
  package var routeIndex: Int
  /// The `WorkoutActivity` (0-based, among the workout's activities) whose time range holds the
  /// route's first point; nil when the workout has none or none holds it.
  package var activityIndex: Int?

  package init(workoutIndex: Int, routeIndex: Int, activityIndex: Int? = nil) {
    self.workoutIndex = workoutIndex
    self.routeIndex = routeIndex
    self.activityIndex = activityIndex
  }
}

/// A GPX route file of the export, as its reading begins.
public struct RouteFile: Hashable, Sendable {
  /// The path as a `FileReference` names it: relative to the export folder, with a leading
  /// slash (`/workout-routes/route_2019-09-24_1.07pm.gpx`).
  public var path: String
  /// Where it was read, for messages (`export.zip:apple_health_export/workout-routes/…`).
  public var displayName: String
  /// nil for a file that no workout references.
  package var join: RouteJoin?
  /// `trk/name` (`Route 2019-09-24 1:07pm`).
  package var name: String?
  /// `metadata/time`: when the export was written.
  package var metadataTime: String?

  package init(path: String, displayName: String, join: RouteJoin? = nil) {
    self.path = path
    self.displayName = displayName
    self.join = join
  }
}
