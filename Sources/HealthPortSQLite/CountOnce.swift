/// The SQL conditions by which the views count a rewrite or a duplicated workout once (the rules
/// of docs/sqlite.md, "Views"), keeping the row first inserted (the lowest `id`: document order
/// within a load). Rows are never dropped: every copy stays in its table.
///
/// Each condition looks for an earlier row through the key index's leading columns (person, type,
/// start and end instants), so a view costs one index probe per row. Written without `IS` between
/// columns, which DuckDB's reading of the views does not take.
enum CountOnce {
  /// `a` and `b` are equal, or both NULL.
  static func same(_ a: String, _ b: String) -> String { "(\(a) = \(b) OR (\(a) IS NULL AND \(b) IS NULL))" }

  /// The record `record` (its source row `source`) rewrites an earlier one: same source name,
  /// type, unit, start and end instants and value (the number for quantities, the value as
  /// written otherwise), whatever its creation date, device or metadata.
  static func isRewrite(record r: String, source rs: String) -> String {
    """
    EXISTS (SELECT 1 FROM records AS e JOIN sources AS es ON es.id = e.source_id
        WHERE e.person = \(r).person AND e.type = \(r).type AND e.start_unix = \(r).start_unix
          AND e.end_unix = \(r).end_unix AND e.id < \(r).id AND es.name = \(rs).name
          AND \(same("e.unit", "\(r).unit"))
          AND (e.value_num = \(r).value_num
            OR (e.value_num IS NULL AND \(r).value_num IS NULL AND \(same("e.value_text", "\(r).value_text")))))
    """
  }

  /// The workout `workout` (its source row `source`) duplicates an earlier one: same activity
  /// type, start and end instants, duration, source name, `totalDistance` and
  /// `totalEnergyBurned` (value and unit), and, when it has neither total, the same `sum` (and
  /// unit) of each of its own `WorkoutStatistics` by type. Metadata, events, routes and device
  /// are ignored.
  static func isDuplicate(workout w: String, source ws: String) -> String {
    """
    EXISTS (SELECT 1 FROM workouts AS e JOIN sources AS es ON es.id = e.source_id
        WHERE e.person = \(w).person AND e.activity_type = \(w).activity_type AND e.start_unix = \(w).start_unix
          AND e.end_unix = \(w).end_unix AND e.id < \(w).id AND es.name = \(ws).name
          AND \(same("e.duration", "\(w).duration")) AND \(same("e.duration_unit", "\(w).duration_unit"))
          AND \(same("e.total_distance", "\(w).total_distance"))
          AND \(same("e.total_distance_unit", "\(w).total_distance_unit"))
          AND \(same("e.total_energy_burned", "\(w).total_energy_burned"))
          AND \(same("e.total_energy_burned_unit", "\(w).total_energy_burned_unit"))
          AND (\(w).total_distance IS NOT NULL OR \(w).total_energy_burned IS NOT NULL
            OR (\(statisticsCovered(by: "e", of: w)) AND \(statisticsCovered(by: w, of: "e")))))
    """
  }

  /// Every direct statistic of workout `a` has one of the same type, sum and unit in workout `b`.
  static func statisticsCovered(by b: String, of a: String) -> String {
    """
    NOT EXISTS (SELECT 1 FROM workout_statistics AS sa
          WHERE sa.workout_id = \(a).id AND sa.activity_id IS NULL
            AND NOT EXISTS (SELECT 1 FROM workout_statistics AS sb
              WHERE sb.workout_id = \(b).id AND sb.activity_id IS NULL AND sb.type = sa.type
                AND \(same("sb.sum", "sa.sum")) AND \(same("sb.unit", "sa.unit"))))
    """
  }

  /// The ids of the workouts that duplicate an earlier one.
  static let duplicateWorkoutIDs =
    "SELECT w.id FROM workouts AS w JOIN sources AS ws ON ws.id = w.source_id WHERE \(isDuplicate(workout: "w", source: "ws"))"

  /// The workouts the views count: every one but the duplicates, aliased `w`.
  static let countedWorkouts =
    "workouts AS w JOIN sources AS ws ON ws.id = w.source_id WHERE NOT \(isDuplicate(workout: "w", source: "ws"))"
}
