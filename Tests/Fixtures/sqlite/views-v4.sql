-- The views of schema version 4 (healthport 33f2662), as sqlite_master held them: a test
-- turns a new database back into version 4 with them, to migrate it.
-- view daily_steps
CREATE VIEW daily_steps AS
  SELECT period,
    CASE WHEN steps = CAST(steps AS INTEGER) THEN CAST(steps AS INTEGER) ELSE steps END AS steps,
    samples, person
  FROM (
    SELECT start_local_day AS period, sum(value_num * copies) AS steps, sum(copies) AS samples, person
    FROM records
    WHERE type = 'HKQuantityTypeIdentifierStepCount'
    GROUP BY person, start_local_day
  ) AS days
  ORDER BY person, period;

-- view daily_steps_dedupe
CREATE VIEW daily_steps_dedupe AS
  SELECT period,
    CASE WHEN steps = CAST(steps AS INTEGER) THEN CAST(steps AS INTEGER) ELSE steps END AS steps,
    samples, person
  FROM step_days_dedupe
  ORDER BY person, period;

-- view workouts_summary
CREATE VIEW workouts_summary AS
  SELECT activity, count,
    CASE WHEN duration_min = CAST(duration_min AS INTEGER) THEN CAST(duration_min AS INTEGER)
      ELSE duration_min END AS duration_min,
    CASE WHEN distance = CAST(distance AS INTEGER) THEN CAST(distance AS INTEGER) ELSE distance END AS distance,
    CASE WHEN energy = CAST(energy AS INTEGER) THEN CAST(energy AS INTEGER) ELSE energy END AS energy,
    person
  FROM (
    SELECT
      CASE WHEN substr(activity_type, 1, 21) = 'HKWorkoutActivityType' THEN substr(activity_type, 22)
        ELSE activity_type END AS activity,
      sum(copies) AS count,
      round(sum(duration_min * copies), 3) AS duration_min,
      round(sum(distance_km * copies), 3) AS distance,
      round(sum(energy_kcal * copies), 3) AS energy,
      person
    FROM workouts
    GROUP BY person, activity
  ) AS activities
  ORDER BY person, count DESC, activity;

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
  ORDER BY person, workout_id;
