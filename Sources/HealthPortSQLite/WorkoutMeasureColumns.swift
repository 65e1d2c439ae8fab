import HealthPort
import SQLiteStore

/// The `workouts` columns of `healthport workouts`' heart rate, pace, elevation and indoor flag:
/// `avg_heart_rate`, `max_heart_rate` (count/min), `pace_min_per_km`, `elevation_gain_m`, `indoor`
/// (1, 0 or NULL).
///
/// They are computed in SQL from what the database holds (the workout's statistics and metadata,
/// and the person's HeartRate records), by one statement that both the migration (every row) and
/// the end of each load (the rows with none of them yet) run, so that a migrated database and a
/// fresh load hold the same values. The rules are the command's; a unit it would refuse gives NULL.
enum WorkoutMeasureColumns {
  static let definitions = """
    avg_heart_rate REAL,
      max_heart_rate REAL,
      pace_min_per_km REAL,
      elevation_gain_m REAL,
      indoor INTEGER
    """

  /// The migration step of its own: the columns, then every row filled. The lead orders it among
  /// the other steps of the same schema version.
  static let migration = """
    ALTER TABLE workouts ADD COLUMN avg_heart_rate REAL;
    ALTER TABLE workouts ADD COLUMN max_heart_rate REAL;
    ALTER TABLE workouts ADD COLUMN pace_min_per_km REAL;
    ALTER TABLE workouts ADD COLUMN elevation_gain_m REAL;
    ALTER TABLE workouts ADD COLUMN indoor INTEGER;
    \(fill(where: "1"));
    """

  static let heartRate = "'HKQuantityTypeIdentifierHeartRate'"
  static let perMinute = "(CASE unit WHEN 'count/min' THEN 1.0 WHEN 'count/s' THEN 60.0 WHEN 'Hz' THEN 60.0 END)"
  static let metres =
    "(CASE substr(value, instr(value, ' ') + 1) WHEN 'm' THEN 1.0 WHEN 'km' THEN 1000.0 WHEN 'cm' THEN 0.01 "
    + "WHEN 'mm' THEN 0.001 WHEN 'mi' THEN 1609.344 WHEN 'yd' THEN 0.9144 WHEN 'ft' THEN 0.3048 WHEN 'in' THEN 0.0254 END)"

  /// The workout's own HeartRate statistic, its activities' (averages weighted by their lengths),
  /// or its HeartRate records (same person, source name and device name, start inside it).
  static func heartRateValue(_ column: String, fromActivities: String, fromRecords: String) -> String {
    """
    CASE WHEN EXISTS (SELECT 1 FROM workout_statistics WHERE workout_id = workouts.id AND activity_id IS NULL
        AND type = \(heartRate))
      THEN (SELECT \(column) * \(perMinute) FROM workout_statistics WHERE workout_id = workouts.id
        AND activity_id IS NULL AND type = \(heartRate) ORDER BY position LIMIT 1)
    WHEN EXISTS (SELECT 1 FROM workout_statistics WHERE workout_id = workouts.id AND activity_id IS NOT NULL
        AND type = \(heartRate) AND (average IS NOT NULL OR maximum IS NOT NULL))
      THEN (SELECT \(fromActivities) FROM workout_statistics WHERE workout_id = workouts.id
        AND activity_id IS NOT NULL AND type = \(heartRate))
    ELSE (SELECT \(fromRecords) FROM records r JOIN sources rs ON rs.id = r.source_id
        JOIN sources ws ON ws.id = workouts.source_id
        WHERE r.person = workouts.person AND r.type = \(heartRate)
          AND r.start_unix >= workouts.start_unix AND r.start_unix <= workouts.end_unix
          AND rs.name = ws.name AND rs.device_name IS ws.device_name)
    END
    """
  }

  /// The first `HKElevationAscended` of an owner, in metres.
  static func elevation(owner: String, id: String) -> String {
    """
    (SELECT CAST(substr(value, 1, instr(value, ' ') - 1) AS REAL) * \(metres) FROM metadata
      WHERE owner_kind = '\(owner)' AND owner_id = \(id) AND key = 'HKElevationAscended' ORDER BY position LIMIT 1)
    """
  }

  static func fill(where condition: String) -> String {
    let length = "max(1, end_unix - start_unix)"
    let activities = WorkoutTotals.distanceActivities.sorted().map { "'HKWorkoutActivityType\($0)'" }
      .joined(separator: ", ")
    return """
      UPDATE workouts SET
        avg_heart_rate = \(heartRateValue("average",
          fromActivities: "sum(average * \(perMinute) * \(length)) / sum(CASE WHEN average IS NOT NULL THEN \(length) END)",
          fromRecords: "sum(r.value_num * (CASE r.unit WHEN 'count/min' THEN 1.0 WHEN 'count/s' THEN 60.0 WHEN 'Hz' THEN 60.0 END) * r.copies) / sum(r.copies)")),
        max_heart_rate = \(heartRateValue("maximum", fromActivities: "max(maximum * \(perMinute))",
          fromRecords: "max(r.value_num * (CASE r.unit WHEN 'count/min' THEN 1.0 WHEN 'count/s' THEN 60.0 WHEN 'Hz' THEN 60.0 END))")),
        pace_min_per_km = CASE WHEN activity_type IN (\(activities)) AND distance_km > 0 THEN duration_min / distance_km END,
        elevation_gain_m = coalesce(\(elevation(owner: "workout", id: "workouts.id")),
          (SELECT sum(\(elevation(owner: "workout_activity", id: "a.id"))) FROM workout_activities a
            WHERE a.workout_id = workouts.id)),
        indoor = (SELECT CASE value WHEN '1' THEN 1 WHEN '0' THEN 0 END FROM metadata
          WHERE owner_kind = 'workout' AND owner_id = workouts.id AND key = 'HKIndoorWorkout' ORDER BY position LIMIT 1)
      WHERE \(condition)
      """
  }

  /// Fills the rows of `person` that have none of the columns yet: those this load added, and
  /// those of an interrupted one.
  static func fill(_ db: SQLiteConnection, person: String) throws {
    let statement = try db.prepare(
      fill(
        where:
          "person = ? AND avg_heart_rate IS NULL AND max_heart_rate IS NULL AND pace_min_per_km IS NULL "
          + "AND elevation_gain_m IS NULL AND indoor IS NULL"))
    try statement.bind(1, person)
    while try statement.step() {}
  }
}
