import PostgresClient

/// Routes in PostGIS, when the database has the extension: each route point also as
/// `geography(PointZ, 4326)` (a generated column `geog` of `route_points`, elevation 0 when
/// missing), and `route_lines`, one line per route file (a workout's GPX or an unreferenced one,
/// whose `workout_id` is null), rebuilt at each load. Both have a GiST index.
enum PostGISRoutes {
  static let point =
    "ST_SetSRID(ST_MakePoint(longitude, latitude, coalesce(elevation, 0)), 4326)::geography(PointZ, 4326)"

  /// Adds what is missing, then rebuilds `route_lines` from `route_points` (the search path
  /// names the store's schema and PostGIS's).
  static func refresh(_ connection: PGConnection) throws {
    try connection.execute(
      """
      ALTER TABLE route_points ADD COLUMN IF NOT EXISTS geog geography(PointZ, 4326)
        GENERATED ALWAYS AS (\(point)) STORED;
      CREATE INDEX IF NOT EXISTS route_points_geog ON route_points USING gist (geog);
      CREATE TABLE IF NOT EXISTS route_lines (
        route_file text NOT NULL,
        workout_id bigint,
        person text NOT NULL,
        geog geography(LineStringZ, 4326) NOT NULL
      );
      CREATE INDEX IF NOT EXISTS route_lines_geog ON route_lines USING gist (geog);
      DELETE FROM route_lines;
      INSERT INTO route_lines (route_file, workout_id, person, geog)
        SELECT r.file_path, min(p.workout_id), min(p.person),
          ST_MakeLine(p.geog::geometry ORDER BY p.position)::geography(LineStringZ, 4326)
        FROM route_points AS p JOIN workout_routes AS r ON r.id = p.route_id
        WHERE r.file_path IS NOT NULL
        GROUP BY r.id, r.file_path HAVING count(*) >= 2
        UNION ALL
        SELECT u.file, NULL, min(p.person),
          ST_MakeLine(p.geog::geometry ORDER BY p.position)::geography(LineStringZ, 4326)
        FROM route_points AS p JOIN unreferenced_routes AS u ON u.id = p.unreferenced_route_id
        GROUP BY u.id, u.file HAVING count(*) >= 2;
      """)
  }
}
