-- A version-2 healthport database, written by 'healthport load' at commit 353d704 (schema version 2) from
-- ../shared/fixtures/real/dogsheep-healthkit-to-sqlite/export.xml (an inline Location route) and
-- jshrake-healthkit-to-sqlite/export.zip (a GPX route, which that version did not read), dumped by a short
-- Python script (text with control characters, which the source keys hold, as CAST(X'…' AS TEXT)); the
-- two pragmas are its header fields.
BEGIN TRANSACTION;
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
);
INSERT INTO "exports" VALUES(1,'','../shared/fixtures/real/dogsheep-healthkit-to-sqlite/export.xml','2019-07-19 10:36:11 -0700',1563557771,NULL,'en_US',3201,'2026-12-01T17:02:18Z','2026-12-01T17:02:18Z',0.0018098510008712765,1,2,0,1,2,0,22,2,0,1,2,9,0);
INSERT INTO "exports" VALUES(2,'','../shared/fixtures/real/jshrake-healthkit-to-sqlite/export.zip',NULL,NULL,12,'en_US',12408,'2026-12-01T17:02:18Z','2026-12-01T17:02:18Z',0.0013524829992093146,1,1,0,1,10,0,38,1,0,1,10,15,0);
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
);
INSERT INTO "sources" VALUES(1,'','Health Mate','2160040',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,CAST(X'4865616C7468204D6174651F323136303034301F00' AS TEXT));
INSERT INTO "sources" VALUES(2,'','Apple Watch','4.3.1','Watch','<<HKDevice: 0x282a45810>, name:Apple Watch, manufacturer:Apple, model:Watch, hardware:Watch2,4, software:4.3.1>','Apple Watch','Apple','Watch','Watch2,4',NULL,'4.3.1',NULL,NULL,NULL,CAST(X'4170706C65C2A057617463681F342E332E311F4170706C652057617463681E4170706C651E57617463681E5761746368322C341E001E342E332E311E001E00' AS TEXT));
INSERT INTO "sources" VALUES(3,'','Apple Watch','3.1','Watch',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,CAST(X'4170706C65C2A057617463681F332E311F00' AS TEXT));
INSERT INTO "sources" VALUES(4,'','Simon’s iPhone','10.1.1','iPhone',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,CAST(X'53696D6F6EE2809973206950686F6E651F31302E312E311F00' AS TEXT));
INSERT INTO "sources" VALUES(5,'','Phone','16.1.2','iPhone','<<HKDevice: 0x281038280>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,3, software:16.1.2>','iPhone','Apple Inc.','iPhone','iPhone14,3',NULL,'16.1.2',NULL,NULL,NULL,CAST(X'50686F6E651F31362E312E321F6950686F6E651E4170706C6520496E632E1E6950686F6E651E6950686F6E6531342C331E001E31362E312E321E001E00' AS TEXT));
INSERT INTO "sources" VALUES(6,'','Watch','6.1.2','Watch','<<HKDevice: 0x2813d5c20>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch5,4, software:6.1.2>','Apple Watch','Apple Inc.','Watch','Watch5,4',NULL,'6.1.2',NULL,NULL,NULL,CAST(X'57617463681F362E312E321F4170706C652057617463681E4170706C6520496E632E1E57617463681E5761746368352C341E001E362E312E321E001E00' AS TEXT));
INSERT INTO "sources" VALUES(7,'','Watch','13.3.1','Watch',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,CAST(X'57617463681F31332E332E311F00' AS TEXT));
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
);
INSERT INTO "records" VALUES(1,'','HKQuantityTypeIdentifierBodyMassIndex',1,'count','22.5312',22.5312,'2016-11-20 17:57:19 -0700',1479689839,-420,'2016-04-18 08:25:32 -0700',1460993132,-420,'2016-04-18 08:25:32 -0700',1460993132,-420,7716796389700984299,1,1,1,1,1479689839,'2016-04-18');
INSERT INTO "records" VALUES(2,'','HKQuantityTypeIdentifierHeartRate',2,'count/min','72',72.0,'2018-09-10 02:47:35 -0700',1536572855,-420,'2018-09-10 02:28:55 -0700',1536571735,-420,'2018-09-10 02:28:55 -0700',1536571735,-420,-6959239985047236527,1,1,1,1,1536572855,'2018-09-10');
INSERT INTO "records" VALUES(3,'','HKQuantityTypeIdentifierWalkingSpeed',5,'mi/hr','2.95276',2.95276,'2022-12-15 18:00:02 -0800',1671156002,-480,'2022-12-15 17:48:29 -0800',1671155309,-480,'2022-12-15 17:49:04 -0800',1671155344,-480,4088360861563437264,1,2,2,1,1671156002,'2022-12-15');
CREATE TABLE metadata (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  owner_kind TEXT NOT NULL,
  owner_id INTEGER NOT NULL,
  position INTEGER NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL
);
INSERT INTO "metadata" VALUES(1,'','record',1,0,'Health Mate App Version','2.16.0');
INSERT INTO "metadata" VALUES(2,'','record',1,1,'Withings User Identifier','12345');
INSERT INTO "metadata" VALUES(3,'','record',1,2,'Modified Date','2016-04-18 15:56:05 +0000');
INSERT INTO "metadata" VALUES(4,'','record',1,3,'Withings Link','withings-bd2://timeline/measure?userid=12345&date=482685932&type=1');
INSERT INTO "metadata" VALUES(5,'','record',1,4,'HKWasUserEntered','0');
INSERT INTO "metadata" VALUES(6,'','record',2,0,'HKMetadataKeyHeartRateMotionContext','0');
INSERT INTO "metadata" VALUES(7,'','workout',1,0,'HKTimeZone','America/Los_Angeles');
INSERT INTO "metadata" VALUES(8,'','workout',1,1,'HKWeatherTemperature','56 degF');
INSERT INTO "metadata" VALUES(9,'','workout',1,2,'HKWeatherHumidity','96 %');
INSERT INTO "metadata" VALUES(10,'','workout',2,0,'Test Entry','FooBar');
INSERT INTO "metadata" VALUES(11,'','workout',2,1,'HKIndoorWorkout','0');
INSERT INTO "metadata" VALUES(12,'','workout',2,2,'HKAverageMETs','4.30455 kcal/hr·kg');
INSERT INTO "metadata" VALUES(13,'','workout',2,3,'HKWeatherTemperature','63 degF');
INSERT INTO "metadata" VALUES(14,'','workout',2,4,'HKWeatherHumidity','5700 %');
INSERT INTO "metadata" VALUES(15,'','workout',2,5,'HKTimeZone','America/Los_Angeles');
INSERT INTO "metadata" VALUES(16,'','workout',2,6,'HKElevationAscended','217 cm');
INSERT INTO "metadata" VALUES(17,'','workout_route',2,0,'HKMetadataKeySyncVersion','2');
INSERT INTO "metadata" VALUES(18,'','workout_route',2,1,'HKMetadataKeySyncIdentifier','9EB7DB22-7E20-42EE-8072-C33BB80238FE');
INSERT INTO "metadata" VALUES(19,'','workout',2,15,'HKIndoorWorkout','0');
INSERT INTO "metadata" VALUES(20,'','workout',2,16,'HKAverageMETs','4.30455 kcal/hr·kg');
INSERT INTO "metadata" VALUES(21,'','workout',2,17,'HKWeatherTemperature','63 degF');
INSERT INTO "metadata" VALUES(22,'','workout',2,18,'HKWeatherHumidity','5700 %');
INSERT INTO "metadata" VALUES(23,'','workout',2,19,'HKTimeZone','America/Los_Angeles');
INSERT INTO "metadata" VALUES(24,'','workout',2,20,'HKElevationAscended','217 cm');
CREATE TABLE hrv_beats (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  record_id INTEGER NOT NULL REFERENCES records(id),
  position INTEGER NOT NULL,
  bpm INTEGER,
  time TEXT
);
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
);
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
);
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
  creation_key INTEGER NOT NULL
);
INSERT INTO "workouts" VALUES(1,'','HKWorkoutActivityTypeRunning',5.19412346680959,'min',0.4971749504535062,'mi',48.74499999999999,'kcal',3,'2016-11-14 07:33:49 -0700',1479134029,-420,'2016-11-14 07:25:41 -0700',1479133541,-420,'2016-11-14 07:30:52 -0700',1479133852,-420,5.19412346680959,0.8001255234626475,48.74499999999999,1,1,1,1,1479134029);
INSERT INTO "workouts" VALUES(2,'','HKWorkoutActivityTypeWalking',34.18067507346471,'min',NULL,NULL,NULL,NULL,6,'2020-02-24 10:18:12 -0800',1582568292,-480,'2020-02-24 09:44:00 -0800',1582566240,-480,'2020-02-24 10:18:11 -0800',1582568291,-480,34.18067507346471,2.256300288,134.432,1,2,2,1,1582568292);
CREATE TABLE workout_activities (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  workout_id INTEGER NOT NULL REFERENCES workouts(id),
  position INTEGER NOT NULL,
  uuid TEXT NOT NULL,
  start_date TEXT NOT NULL, start_unix INTEGER NOT NULL, start_offset_min INTEGER NOT NULL,
  end_date TEXT, end_unix INTEGER, end_offset_min INTEGER,
  duration REAL, duration_unit TEXT
);
CREATE TABLE workout_events (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  workout_id INTEGER NOT NULL REFERENCES workouts(id),
  activity_id INTEGER REFERENCES workout_activities(id),
  position INTEGER NOT NULL,
  type TEXT NOT NULL,
  date_date TEXT NOT NULL, date_unix INTEGER NOT NULL, date_offset_min INTEGER NOT NULL,
  duration REAL, duration_unit TEXT
);
INSERT INTO "workout_events" VALUES(1,'',2,NULL,7,'HKWorkoutEventTypeSegment','2020-02-24 09:44:00 -0800',1582566240,-480,16.7133048693339,'min');
INSERT INTO "workout_events" VALUES(2,'',2,NULL,8,'HKWorkoutEventTypeSegment','2020-02-24 09:44:00 -0800',1582566240,-480,19.31871306101481,'min');
INSERT INTO "workout_events" VALUES(3,'',2,NULL,9,'HKWorkoutEventTypeSegment','2020-02-24 10:00:43 -0800',1582567243,-480,14.06655611991882,'min');
INSERT INTO "workout_events" VALUES(4,'',2,NULL,10,'HKWorkoutEventTypeSegment','2020-02-24 10:03:19 -0800',1582567399,-480,11.46114792823792,'min');
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
);
INSERT INTO "workout_statistics" VALUES(1,'',2,NULL,11,'HKQuantityTypeIdentifierActiveEnergyBurned','2020-02-24 09:44:00 -0800',1582566240,-480,'2020-02-24 10:18:11 -0800',1582568291,-480,NULL,NULL,NULL,134.432,'Cal');
INSERT INTO "workout_statistics" VALUES(2,'',2,NULL,12,'HKQuantityTypeIdentifierDistanceWalkingRunning','2020-02-24 09:44:00 -0800',1582566240,-480,'2020-02-24 10:18:11 -0800',1582568291,-480,NULL,NULL,NULL,1.402,'mi');
INSERT INTO "workout_statistics" VALUES(3,'',2,NULL,13,'HKQuantityTypeIdentifierBasalEnergyBurned','2020-02-24 09:44:00 -0800',1582566240,-480,'2020-02-24 10:18:11 -0800',1582568291,-480,NULL,NULL,NULL,56.4005,'Cal');
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
);
INSERT INTO "workout_routes" VALUES(1,'',1,3,4,'2016-11-14 07:33:54 -0700',1479134034,-420,'2016-11-14 07:25:44 -0700',1479133544,-420,'2016-11-14 07:30:51 -0700',1479133851,-420,NULL);
INSERT INTO "workout_routes" VALUES(2,'',2,14,7,'2020-02-24 11:07:33 -0800',1582571253,-480,'2020-02-24 10:00:45 -0800',1582567245,-480,'2020-02-24 10:18:10 -0800',1582568290,-480,'/workout-routes/route_2020-02-24_10.18am.gpx');
CREATE TABLE route_locations (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  route_id INTEGER NOT NULL REFERENCES workout_routes(id),
  position INTEGER NOT NULL,
  date TEXT, date_unix INTEGER, date_offset_min INTEGER,
  latitude REAL, longitude REAL, altitude REAL,
  horizontal_accuracy REAL, vertical_accuracy REAL, course REAL, speed REAL
);
INSERT INTO "route_locations" VALUES(1,'',1,0,'2016-11-14 07:25:44 -0700',1479133544,-420,37.7777,-122.426,21.2694,2.40948,1.67859,-1.0,2.48034);
INSERT INTO "route_locations" VALUES(2,'',1,1,'2016-11-14 07:25:44 -0700',1479133544,-420,37.7777,-122.426,21.2677,2.40059,1.67236,-1.0,2.48034);
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
);
INSERT INTO "activity_summaries" VALUES(1,'','2016-11-15',590.252,630.0,'kcal',NULL,NULL,68.0,30.0,13.0,12.0,NULL,NULL,-7944652669713944407,1,1,1,1);
INSERT INTO "activity_summaries" VALUES(2,'','2016-11-16',323.513,630.0,'kcal',NULL,NULL,39.0,30.0,9.0,12.0,NULL,NULL,5926239521111053889,1,1,1,1);
INSERT INTO "activity_summaries" VALUES(3,'','2019-12-27',545.159,690.0,'Cal',0.0,0.0,36.0,30.0,10.0,12.0,NULL,NULL,299877210750907312,1,2,2,1);
INSERT INTO "activity_summaries" VALUES(4,'','2019-12-28',366.827,690.0,'Cal',0.0,0.0,11.0,30.0,10.0,12.0,NULL,NULL,4112916501587615967,1,2,2,1);
INSERT INTO "activity_summaries" VALUES(5,'','2019-12-29',694.567,690.0,'Cal',0.0,0.0,70.0,30.0,12.0,12.0,NULL,NULL,-5046468818417400492,1,2,2,1);
INSERT INTO "activity_summaries" VALUES(6,'','2019-12-30',341.775,690.0,'Cal',0.0,0.0,6.0,30.0,14.0,12.0,NULL,NULL,2229450319810193211,1,2,2,1);
INSERT INTO "activity_summaries" VALUES(7,'','2019-12-31',577.629,690.0,'Cal',0.0,0.0,54.0,30.0,11.0,12.0,NULL,NULL,4233447368340944025,1,2,2,1);
INSERT INTO "activity_summaries" VALUES(8,'','2020-01-01',355.138,690.0,'Cal',0.0,0.0,20.0,30.0,8.0,12.0,NULL,NULL,8707314563691301196,1,2,2,1);
INSERT INTO "activity_summaries" VALUES(9,'','2020-01-02',424.672,690.0,'Cal',0.0,0.0,22.0,30.0,12.0,12.0,NULL,NULL,-8606236325237562622,1,2,2,1);
INSERT INTO "activity_summaries" VALUES(10,'','2020-01-03',320.925,690.0,'Cal',0.0,0.0,34.0,30.0,6.0,12.0,NULL,NULL,-5665648971801567729,1,2,2,1);
INSERT INTO "activity_summaries" VALUES(11,'','2020-01-04',160.353,690.0,'Cal',0.0,0.0,8.0,30.0,7.0,12.0,NULL,NULL,-131944240763279339,1,2,2,1);
INSERT INTO "activity_summaries" VALUES(12,'','2020-01-05',372.923,690.0,'Cal',0.0,0.0,11.0,30.0,9.0,12.0,NULL,NULL,-5829380313708268602,1,2,2,1);
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
);
INSERT INTO "me" VALUES(1,'','1990-02-02','HKBiologicalSexMale','HKBloodTypeNotSet','HKFitzpatrickSkinTypeNotSet',NULL,-8808046566197111058,1);
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
);
CREATE TABLE extras (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  owner_kind TEXT NOT NULL,
  owner_id INTEGER NOT NULL,
  position INTEGER NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  value TEXT NOT NULL
);
CREATE TABLE step_days_dedupe (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  period TEXT NOT NULL,
  steps REAL NOT NULL,
  samples INTEGER NOT NULL
);
CREATE UNIQUE INDEX records_key
  ON records (person, type, start_unix, end_unix, source_id, creation_key, content_hash);
CREATE INDEX records_source ON records (source_id);
CREATE INDEX metadata_owner ON metadata (owner_kind, owner_id);
CREATE INDEX hrv_beats_record ON hrv_beats (record_id);
CREATE UNIQUE INDEX correlations_key
  ON correlations (person, type, start_unix, end_unix, source_id, creation_key, content_hash);
CREATE INDEX correlation_records_correlation ON correlation_records (correlation_id);
CREATE UNIQUE INDEX workouts_key ON workouts (person, activity_type, start_unix, end_unix, source_id, creation_key);
CREATE INDEX workout_activities_workout ON workout_activities (workout_id);
CREATE INDEX workout_events_workout ON workout_events (workout_id);
CREATE INDEX workout_statistics_workout ON workout_statistics (workout_id);
CREATE INDEX workout_routes_workout ON workout_routes (workout_id);
CREATE INDEX route_locations_route ON route_locations (route_id);
CREATE UNIQUE INDEX activity_summaries_key ON activity_summaries (person, date_components, content_hash);
CREATE UNIQUE INDEX me_key ON me (person, content_hash);
CREATE UNIQUE INDEX other_elements_key ON other_elements (person, name, content_hash);
CREATE INDEX extras_owner ON extras (owner_kind, owner_id);
CREATE UNIQUE INDEX step_days_dedupe_key ON step_days_dedupe (person, period);
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
CREATE VIEW daily_steps_dedupe AS
  SELECT period,
    CASE WHEN steps = CAST(steps AS INTEGER) THEN CAST(steps AS INTEGER) ELSE steps END AS steps,
    samples, person
  FROM step_days_dedupe
  ORDER BY person, period;
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
PRAGMA application_id = 1213223508;
PRAGMA user_version = 2;
COMMIT;
