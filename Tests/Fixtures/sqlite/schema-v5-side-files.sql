-- table ecg_recordings
CREATE TABLE ecg_recordings (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  file TEXT NOT NULL,
  name TEXT,
  date_of_birth TEXT,
  recorded_date TEXT, recorded_unix INTEGER, recorded_offset_min INTEGER,
  classification TEXT,
  symptoms TEXT,
  software_version TEXT,
  device TEXT,
  sample_rate TEXT,
  lead TEXT,
  unit TEXT,
  header TEXT,
  samples INTEGER NOT NULL,
  sample_rate_hz REAL,
  export_id INTEGER NOT NULL
)

-- index ecg_recordings_key
CREATE UNIQUE INDEX ecg_recordings_key ON ecg_recordings (person, file, ifnull(recorded_date, ''))

-- table ecg_samples
CREATE TABLE ecg_samples (
  recording_id INTEGER NOT NULL,
  position INTEGER NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (recording_id, position)
) WITHOUT ROWID

-- table route_points
CREATE TABLE route_points (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  workout_id INTEGER,
  activity_id INTEGER,
  route_id INTEGER,
  origin TEXT NOT NULL,
  position INTEGER NOT NULL,
  time TEXT,
  latitude REAL NOT NULL,
  longitude REAL NOT NULL,
  elevation REAL,
  speed REAL,
  course REAL,
  horizontal_accuracy REAL,
  vertical_accuracy REAL,
  unreferenced_route_id INTEGER
)

-- index route_points_route
CREATE INDEX route_points_route ON route_points (route_id, position)

-- index route_points_unreferenced
CREATE INDEX route_points_unreferenced ON route_points (unreferenced_route_id, position)

-- index route_points_workout
CREATE INDEX route_points_workout ON route_points (workout_id)

-- table unreferenced_routes
CREATE TABLE unreferenced_routes (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  file TEXT NOT NULL,
  digest TEXT,
  points INTEGER NOT NULL DEFAULT 0,
  export_id INTEGER
)

-- index unreferenced_routes_key
CREATE UNIQUE INDEX unreferenced_routes_key ON unreferenced_routes (person, file, digest)

-- view workout_routes_summary
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
    WHERE workout_id IS NOT NULL AND workout_id NOT IN (SELECT w.id FROM workouts AS w JOIN sources AS ws ON ws.id = w.source_id WHERE EXISTS (SELECT 1 FROM workouts AS e JOIN sources AS es ON es.id = e.source_id
    WHERE e.person = w.person AND e.activity_type = w.activity_type AND e.start_unix = w.start_unix
      AND e.end_unix = w.end_unix AND e.id < w.id AND es.name = ws.name
      AND (e.duration = w.duration OR (e.duration IS NULL AND w.duration IS NULL)) AND (e.duration_unit = w.duration_unit OR (e.duration_unit IS NULL AND w.duration_unit IS NULL))
      AND (e.total_distance = w.total_distance OR (e.total_distance IS NULL AND w.total_distance IS NULL))
      AND (e.total_distance_unit = w.total_distance_unit OR (e.total_distance_unit IS NULL AND w.total_distance_unit IS NULL))
      AND (e.total_energy_burned = w.total_energy_burned OR (e.total_energy_burned IS NULL AND w.total_energy_burned IS NULL))
      AND (e.total_energy_burned_unit = w.total_energy_burned_unit OR (e.total_energy_burned_unit IS NULL AND w.total_energy_burned_unit IS NULL))
      AND (w.total_distance IS NOT NULL OR w.total_energy_burned IS NOT NULL
        OR (NOT EXISTS (SELECT 1 FROM workout_statistics AS sa
      WHERE sa.workout_id = w.id AND sa.activity_id IS NULL
        AND NOT EXISTS (SELECT 1 FROM workout_statistics AS sb
          WHERE sb.workout_id = e.id AND sb.activity_id IS NULL AND sb.type = sa.type
            AND (sb.sum = sa.sum OR (sb.sum IS NULL AND sa.sum IS NULL)) AND (sb.unit = sa.unit OR (sb.unit IS NULL AND sa.unit IS NULL)))) AND NOT EXISTS (SELECT 1 FROM workout_statistics AS sa
      WHERE sa.workout_id = e.id AND sa.activity_id IS NULL
        AND NOT EXISTS (SELECT 1 FROM workout_statistics AS sb
          WHERE sb.workout_id = w.id AND sb.activity_id IS NULL AND sb.type = sa.type
            AND (sb.sum = sa.sum OR (sb.sum IS NULL AND sa.sum IS NULL)) AND (sb.unit = sa.unit OR (sb.unit IS NULL AND sa.unit IS NULL))))))))
  ) AS steps
  GROUP BY person, workout_id
  ORDER BY person, workout_id
