-- table activity_summaries
CREATE TABLE activity_summaries (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  date_components TEXT,
  active_energy_burned REAL, active_energy_burned_goal REAL, active_energy_burned_unit TEXT,
  apple_move_time REAL, apple_move_time_goal REAL,
  apple_exercise_time REAL, apple_exercise_time_goal REAL,
  apple_stand_hours REAL, apple_stand_hours_goal REAL,
  apple_move_minutes REAL, apple_move_minutes_goal REAL,
  content_hash INTEGER NOT NULL,
  copies INTEGER NOT NULL DEFAULT 1,
  export_id INTEGER NOT NULL,
  seen_export INTEGER NOT NULL,
  seen_count INTEGER NOT NULL
)

-- index activity_summaries_key
CREATE UNIQUE INDEX activity_summaries_key ON activity_summaries (person, date_components, content_hash)

-- table correlation_records
CREATE TABLE correlation_records (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  correlation_id INTEGER NOT NULL REFERENCES correlations(id),
  position INTEGER NOT NULL,
  record_id INTEGER REFERENCES records(id),
  type TEXT NOT NULL,
  source_id INTEGER NOT NULL REFERENCES sources(id),
  unit TEXT,
  value_text TEXT,
  value_num REAL,
  creation_date TEXT, creation_unix INTEGER, creation_offset_min INTEGER,
  start_date TEXT NOT NULL, start_unix INTEGER NOT NULL, start_offset_min INTEGER NOT NULL,
  end_date TEXT NOT NULL, end_unix INTEGER NOT NULL, end_offset_min INTEGER NOT NULL
)

-- index correlation_records_correlation
CREATE INDEX correlation_records_correlation ON correlation_records (correlation_id)

-- table correlations
CREATE TABLE correlations (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  type TEXT NOT NULL,
  source_id INTEGER NOT NULL REFERENCES sources(id),
  creation_date TEXT, creation_unix INTEGER, creation_offset_min INTEGER,
  start_date TEXT NOT NULL, start_unix INTEGER NOT NULL, start_offset_min INTEGER NOT NULL,
  end_date TEXT NOT NULL, end_unix INTEGER NOT NULL, end_offset_min INTEGER NOT NULL,
  content_hash INTEGER NOT NULL,
  copies INTEGER NOT NULL DEFAULT 1,
  export_id INTEGER NOT NULL,
  seen_export INTEGER NOT NULL,
  seen_count INTEGER NOT NULL,
  creation_key INTEGER NOT NULL
)

-- index correlations_key
CREATE UNIQUE INDEX correlations_key
  ON correlations (person, type, start_unix, end_unix, source_id, creation_key, content_hash)

-- view daily_steps
CREATE VIEW daily_steps AS
  SELECT period, CASE WHEN steps = CAST(steps AS INTEGER) THEN CAST(steps AS INTEGER) ELSE steps END AS steps, samples, person
  FROM (
    SELECT r.start_local_day AS period, sum(r.value_num) AS steps, count(*) AS samples, r.person AS person
    FROM records AS r JOIN sources AS rs ON rs.id = r.source_id
    WHERE r.type = 'HKQuantityTypeIdentifierStepCount' AND NOT EXISTS (SELECT 1 FROM records AS e JOIN sources AS es ON es.id = e.source_id
    WHERE e.person = r.person AND e.type = r.type AND e.start_unix = r.start_unix
      AND e.end_unix = r.end_unix AND e.id < r.id AND es.name = rs.name
      AND (e.unit = r.unit OR (e.unit IS NULL AND r.unit IS NULL))
      AND (e.value_num = r.value_num
        OR (e.value_num IS NULL AND r.value_num IS NULL AND (e.value_text = r.value_text OR (e.value_text IS NULL AND r.value_text IS NULL)))))
    GROUP BY r.person, r.start_local_day
  ) AS days
  ORDER BY person, period

-- view daily_steps_as_written
CREATE VIEW daily_steps_as_written AS
  SELECT period, CASE WHEN steps = CAST(steps AS INTEGER) THEN CAST(steps AS INTEGER) ELSE steps END AS steps, samples, person
  FROM (
    SELECT start_local_day AS period, sum(value_num * copies) AS steps, sum(copies) AS samples, person
    FROM records
    WHERE type = 'HKQuantityTypeIdentifierStepCount'
    GROUP BY person, start_local_day
  ) AS days
  ORDER BY person, period

-- view daily_steps_dedupe
CREATE VIEW daily_steps_dedupe AS
  SELECT period, CASE WHEN steps = CAST(steps AS INTEGER) THEN CAST(steps AS INTEGER) ELSE steps END AS steps, samples, person
  FROM step_days_dedupe
  ORDER BY person, period

-- table exports
CREATE TABLE exports (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  path TEXT NOT NULL,
  export_date TEXT, export_date_unix INTEGER,
  export_version INTEGER,
  locale TEXT,
  input_bytes INTEGER,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  seconds REAL,
  completed INTEGER NOT NULL DEFAULT 0,
  records_read INTEGER NOT NULL DEFAULT 0,
  correlations_read INTEGER NOT NULL DEFAULT 0,
  workouts_read INTEGER NOT NULL DEFAULT 0,
  activity_summaries_read INTEGER NOT NULL DEFAULT 0,
  other_elements_read INTEGER NOT NULL DEFAULT 0,
  rows_added INTEGER NOT NULL DEFAULT 0,
  records_added INTEGER NOT NULL DEFAULT 0,
  correlations_added INTEGER NOT NULL DEFAULT 0,
  workouts_added INTEGER NOT NULL DEFAULT 0,
  activity_summaries_added INTEGER NOT NULL DEFAULT 0,
  metadata_added INTEGER NOT NULL DEFAULT 0,
  other_elements_added INTEGER NOT NULL DEFAULT 0
)

-- table extras
CREATE TABLE extras (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  owner_kind TEXT NOT NULL,
  owner_id INTEGER NOT NULL,
  position INTEGER NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  value TEXT NOT NULL
)

-- index extras_owner
CREATE INDEX extras_owner ON extras (owner_kind, owner_id)

-- table hrv_beats
CREATE TABLE hrv_beats (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  record_id INTEGER NOT NULL REFERENCES records(id),
  position INTEGER NOT NULL,
  bpm INTEGER,
  time TEXT
)

-- index hrv_beats_record
CREATE INDEX hrv_beats_record ON hrv_beats (record_id)

-- table me
CREATE TABLE me (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  date_of_birth TEXT,
  biological_sex TEXT,
  blood_type TEXT,
  fitzpatrick_skin_type TEXT,
  cardio_fitness_medications_use TEXT,
  content_hash INTEGER NOT NULL,
  export_id INTEGER NOT NULL
)

-- index me_key
CREATE UNIQUE INDEX me_key ON me (person, content_hash)

-- table metadata
CREATE TABLE metadata (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  owner_kind TEXT NOT NULL,
  owner_id INTEGER NOT NULL,
  position INTEGER NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL
)

-- index metadata_owner
CREATE INDEX metadata_owner ON metadata (owner_kind, owner_id)

-- table other_elements
CREATE TABLE other_elements (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  name TEXT NOT NULL,
  xml TEXT NOT NULL,
  content_hash INTEGER NOT NULL,
  copies INTEGER NOT NULL DEFAULT 1,
  export_id INTEGER NOT NULL,
  seen_export INTEGER NOT NULL,
  seen_count INTEGER NOT NULL
)

-- index other_elements_key
CREATE UNIQUE INDEX other_elements_key ON other_elements (person, name, content_hash)

-- table records
CREATE TABLE records (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  type TEXT NOT NULL,
  source_id INTEGER NOT NULL REFERENCES sources(id),
  unit TEXT,
  value_text TEXT,
  value_num REAL,
  creation_date TEXT, creation_unix INTEGER, creation_offset_min INTEGER,
  start_date TEXT NOT NULL, start_unix INTEGER NOT NULL, start_offset_min INTEGER NOT NULL,
  end_date TEXT NOT NULL, end_unix INTEGER NOT NULL, end_offset_min INTEGER NOT NULL,
  content_hash INTEGER NOT NULL,
  copies INTEGER NOT NULL DEFAULT 1,
  export_id INTEGER NOT NULL,
  seen_export INTEGER NOT NULL,
  seen_count INTEGER NOT NULL,
  creation_key INTEGER NOT NULL,
  start_local_day TEXT NOT NULL
)

-- index records_key
CREATE UNIQUE INDEX records_key
  ON records (person, type, start_unix, end_unix, source_id, creation_key, content_hash)

-- index records_source
CREATE INDEX records_source ON records (source_id)

-- table route_locations
CREATE TABLE route_locations (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  route_id INTEGER NOT NULL REFERENCES workout_routes(id),
  position INTEGER NOT NULL,
  date TEXT, date_unix INTEGER, date_offset_min INTEGER,
  latitude REAL, longitude REAL, altitude REAL,
  horizontal_accuracy REAL, vertical_accuracy REAL, course REAL, speed REAL
)

-- index route_locations_route
CREATE INDEX route_locations_route ON route_locations (route_id)

-- table sources
CREATE TABLE sources (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  name TEXT NOT NULL,
  version TEXT,
  product TEXT,
  device TEXT,
  device_name TEXT, device_manufacturer TEXT, device_model TEXT, device_hardware TEXT,
  device_firmware TEXT, device_software TEXT, device_local_identifier TEXT, device_udi TEXT,
  device_creation_date TEXT,
  source_key TEXT NOT NULL,
  UNIQUE (person, source_key)
)

-- index sqlite_autoindex_sources_1
(no sql)

-- table step_days_dedupe
CREATE TABLE step_days_dedupe (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  period TEXT NOT NULL,
  steps REAL NOT NULL,
  samples INTEGER NOT NULL
)

-- index step_days_dedupe_key
CREATE UNIQUE INDEX step_days_dedupe_key ON step_days_dedupe (person, period)

-- table workout_activities
CREATE TABLE workout_activities (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  workout_id INTEGER NOT NULL REFERENCES workouts(id),
  position INTEGER NOT NULL,
  uuid TEXT NOT NULL,
  start_date TEXT NOT NULL, start_unix INTEGER NOT NULL, start_offset_min INTEGER NOT NULL,
  end_date TEXT, end_unix INTEGER, end_offset_min INTEGER,
  duration REAL, duration_unit TEXT
)

-- index workout_activities_workout
CREATE INDEX workout_activities_workout ON workout_activities (workout_id)

-- table workout_events
CREATE TABLE workout_events (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  workout_id INTEGER NOT NULL REFERENCES workouts(id),
  activity_id INTEGER REFERENCES workout_activities(id),
  position INTEGER NOT NULL,
  type TEXT NOT NULL,
  date_date TEXT NOT NULL, date_unix INTEGER NOT NULL, date_offset_min INTEGER NOT NULL,
  duration REAL, duration_unit TEXT
)

-- index workout_events_workout
CREATE INDEX workout_events_workout ON workout_events (workout_id)

-- table workout_routes
CREATE TABLE workout_routes (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  workout_id INTEGER NOT NULL REFERENCES workouts(id),
  position INTEGER NOT NULL,
  source_id INTEGER NOT NULL REFERENCES sources(id),
  creation_date TEXT, creation_unix INTEGER, creation_offset_min INTEGER,
  start_date TEXT NOT NULL, start_unix INTEGER NOT NULL, start_offset_min INTEGER NOT NULL,
  end_date TEXT NOT NULL, end_unix INTEGER NOT NULL, end_offset_min INTEGER NOT NULL,
  file_path TEXT
)

-- index workout_routes_workout
CREATE INDEX workout_routes_workout ON workout_routes (workout_id)

-- table workout_statistics
CREATE TABLE workout_statistics (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  workout_id INTEGER NOT NULL REFERENCES workouts(id),
  activity_id INTEGER REFERENCES workout_activities(id),
  position INTEGER NOT NULL,
  type TEXT NOT NULL,
  start_date TEXT NOT NULL, start_unix INTEGER NOT NULL, start_offset_min INTEGER NOT NULL,
  end_date TEXT NOT NULL, end_unix INTEGER NOT NULL, end_offset_min INTEGER NOT NULL,
  average REAL, minimum REAL, maximum REAL, sum REAL, unit TEXT
)

-- index workout_statistics_workout
CREATE INDEX workout_statistics_workout ON workout_statistics (workout_id)

-- table workouts
CREATE TABLE workouts (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  activity_type TEXT NOT NULL,
  duration REAL, duration_unit TEXT,
  total_distance REAL, total_distance_unit TEXT,
  total_energy_burned REAL, total_energy_burned_unit TEXT,
  source_id INTEGER NOT NULL REFERENCES sources(id),
  creation_date TEXT, creation_unix INTEGER, creation_offset_min INTEGER,
  start_date TEXT NOT NULL, start_unix INTEGER NOT NULL, start_offset_min INTEGER NOT NULL,
  end_date TEXT NOT NULL, end_unix INTEGER NOT NULL, end_offset_min INTEGER NOT NULL,
  duration_min REAL,
  distance_km REAL,
  energy_kcal REAL,
  copies INTEGER NOT NULL DEFAULT 1,
  export_id INTEGER NOT NULL,
  seen_export INTEGER NOT NULL,
  seen_count INTEGER NOT NULL,
  creation_key INTEGER NOT NULL,
  avg_heart_rate REAL,
  max_heart_rate REAL,
  pace_min_per_km REAL,
  elevation_gain_m REAL,
  indoor INTEGER
)

-- index workouts_key
CREATE UNIQUE INDEX workouts_key ON workouts (person, activity_type, start_unix, end_unix, source_id, creation_key)

-- view workouts_summary
CREATE VIEW workouts_summary AS
  SELECT activity, count, CASE WHEN duration_min = CAST(duration_min AS INTEGER) THEN CAST(duration_min AS INTEGER) ELSE duration_min END AS duration_min,
    CASE WHEN distance = CAST(distance AS INTEGER) THEN CAST(distance AS INTEGER) ELSE distance END AS distance,
    CASE WHEN energy = CAST(energy AS INTEGER) THEN CAST(energy AS INTEGER) ELSE energy END AS energy,
    person
  FROM (
    SELECT
      CASE WHEN substr(w.activity_type, 1, 21) = 'HKWorkoutActivityType' THEN substr(w.activity_type, 22)
        ELSE w.activity_type END AS activity,
      count(*) AS count,
      sum(w.duration_min) AS duration_min,
      sum(w.distance_km) AS distance,
      sum(w.energy_kcal) AS energy,
      w.person AS person
    FROM workouts AS w JOIN sources AS ws ON ws.id = w.source_id WHERE NOT EXISTS (SELECT 1 FROM workouts AS e JOIN sources AS es ON es.id = e.source_id
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
            AND (sb.sum = sa.sum OR (sb.sum IS NULL AND sa.sum IS NULL)) AND (sb.unit = sa.unit OR (sb.unit IS NULL AND sa.unit IS NULL)))))))
    GROUP BY w.person, activity
  ) AS activities
  ORDER BY person, count DESC, activity

-- view workouts_summary_as_written
CREATE VIEW workouts_summary_as_written AS
  SELECT activity, count, CASE WHEN duration_min = CAST(duration_min AS INTEGER) THEN CAST(duration_min AS INTEGER) ELSE duration_min END AS duration_min,
    CASE WHEN distance = CAST(distance AS INTEGER) THEN CAST(distance AS INTEGER) ELSE distance END AS distance,
    CASE WHEN energy = CAST(energy AS INTEGER) THEN CAST(energy AS INTEGER) ELSE energy END AS energy,
    person
  FROM (
    SELECT
      CASE WHEN substr(w.activity_type, 1, 21) = 'HKWorkoutActivityType' THEN substr(w.activity_type, 22)
        ELSE w.activity_type END AS activity,
      sum(w.copies) AS count,
      sum(w.duration_min * w.copies) AS duration_min,
      sum(w.distance_km * w.copies) AS distance,
      sum(w.energy_kcal * w.copies) AS energy,
      w.person AS person
    FROM workouts AS w
    GROUP BY w.person, activity
  ) AS activities
  ORDER BY person, count DESC, activity
