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
    WHERE workout_id IS NOT NULL
  ) AS steps
  GROUP BY person, workout_id
  ORDER BY person, workout_id
