import HealthPort

/// The side files' tables (`route_points`, `ecg_recordings`, `ecg_samples`), the view
/// `workout_routes_summary`, and the migration step that adds them (version 2 → 3).
extension SQLiteSchema {
  /// Where the side tables' columns are defined (the column catalog).
  static let routePointColumns = SQLiteColumns(ColumnCatalog.routePoints)
  static let ecgRecordingColumns = SQLiteColumns(ColumnCatalog.ecgRecordings)
  static let ecgSampleColumns = SQLiteColumns(ColumnCatalog.ecgSamples)

  /// `route_points` columns after `id, person`, in the catalog's order.
  static let routePointNames = routePointColumns.names(ColumnCatalog.routePoints.columnNames)
  /// `ecg_recordings` columns after `id, person` (`recorded_date` is three: text, unix, offset).
  static let ecgRecordingNames = ColumnCatalog.ecgRecordings.columnNames.dropFirst().flatMap { name in
    ecgRecordingColumns.sqlColumns(name, as: name == "recorded_date" ? "recorded" : nil).map(\.name)
  }

  static let sideFileTables: String = """
    CREATE TABLE route_points (
      id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      \(ColumnCatalog.routePoints.columnNames.map { routePointColumns.definition($0) }.joined(separator: ",\n  ")),
      unreferenced_route_id INTEGER
    );
    CREATE INDEX route_points_route ON route_points (route_id, position);
    CREATE INDEX route_points_workout ON route_points (workout_id);

    CREATE TABLE ecg_recordings (
      id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      \(ColumnCatalog.ecgRecordings.columnNames.dropFirst().map { name in
        ecgRecordingColumns.definition(name, as: name == "recorded_date" ? "recorded" : nil)
      }.joined(separator: ",\n  ")),
      export_id INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX ecg_recordings_key ON ecg_recordings (person, file, ifnull(recorded_date, ''));

    CREATE TABLE ecg_samples (
      \(ColumnCatalog.ecgSamples.columnNames.map { ecgSampleColumns.definition($0) }.joined(separator: ",\n  ")),
      PRIMARY KEY (recording_id, position)
    ) WITHOUT ROWID;
    """

  /// Per workout: its route points, the distance between consecutive points of each route
  /// (haversine, Earth radius 6,371,008.8 m), the elevation gain (the sum of the positive
  /// differences between consecutive elevations) and the bounding box. A duplicated workout
  /// (``CountOnce``) is counted once: the first of its copies has the row.
  static let sideFileViews = """
    CREATE VIEW workout_routes_summary AS
      SELECT workout_id, count(*) AS points,
        round(sum(CASE WHEN previous_latitude IS NULL THEN 0 ELSE 2 * 6371008.8 * asin(sqrt(
          power(sin(radians(latitude - previous_latitude) / 2), 2)
          + cos(radians(previous_latitude)) * cos(radians(latitude))
            * power(sin(radians(longitude - previous_longitude) / 2), 2))) END), 3) AS distance_m,
        round(sum(CASE WHEN elevation > previous_elevation THEN elevation - previous_elevation ELSE 0 END), 3)
          AS elevation_gain_m,
        min(latitude) AS min_latitude, min(longitude) AS min_longitude,
        max(latitude) AS max_latitude, max(longitude) AS max_longitude,
        person
      FROM (
        SELECT workout_id, person, latitude, longitude, elevation,
          lag(latitude) OVER (PARTITION BY route_id ORDER BY position) AS previous_latitude,
          lag(longitude) OVER (PARTITION BY route_id ORDER BY position) AS previous_longitude,
          lag(elevation) OVER (PARTITION BY route_id ORDER BY position) AS previous_elevation
        FROM route_points
        WHERE workout_id IS NOT NULL AND workout_id NOT IN (\(CountOnce.duplicateWorkoutIDs))
      ) AS steps
      GROUP BY person, workout_id
      ORDER BY person, workout_id;
    """

  /// Version 2 → 3: the side tables and view, and every legacy inline `Location` already loaded
  /// copied into `route_points` as a fresh load writes it (the activity holding the route's first
  /// point, positions from 0, the time in UTC).
  static let sideFilesMigration = """
    \(sideFileTables)
    INSERT INTO route_points (person, \(routePointNames.joined(separator: ", ")))
      SELECT l.person, r.workout_id,
        (SELECT a.id FROM workout_activities AS a
          WHERE a.workout_id = r.workout_id
            AND (SELECT f.date_unix FROM route_locations AS f WHERE f.route_id = l.route_id ORDER BY f.position LIMIT 1)
              BETWEEN a.start_unix AND ifnull(a.end_unix, 9223372036854775807)
          ORDER BY a.position LIMIT 1),
        l.route_id, 'inline', row_number() OVER (PARTITION BY l.route_id ORDER BY l.position) - 1,
        strftime('%Y-%m-%dT%H:%M:%SZ', l.date_unix, 'unixepoch'),
        l.latitude, l.longitude, l.altitude, l.speed, l.course, l.horizontal_accuracy, l.vertical_accuracy
      FROM route_locations AS l JOIN workout_routes AS r ON r.id = l.route_id
      ORDER BY l.route_id, l.position;
    """
}
