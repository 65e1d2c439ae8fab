-- A version-1 healthport database, written by 'healthport load rewrites.xml' at commit 3099b2b
-- (schema version 1), dumped by a short Python script (text with control characters, which the
-- source keys hold, as CAST(X'…' AS TEXT)); the two pragmas are its header fields.
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
INSERT INTO "exports" VALUES(1,'','rewrites.xml','2018-03-20 21:00:00 +0100',1521576000,NULL,'de_DE',20499,'2026-12-01T11:25:21Z','2026-12-01T11:25:21Z',0.001750003000097422,1,53,0,2,0,0,45,37,0,1,0,1,0);
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
INSERT INTO "sources" VALUES(1,'','Mi Fit','3.2.1','MI Band 2','<<HKDevice: 0x097b3ceb3ffd>, name:MI Band 2, manufacturer:Xiaomi, model:MI Band 2, hardware:V0.1.3.3, software:V1.0.9.88>','MI Band 2','Xiaomi','MI Band 2','V0.1.3.3',NULL,'V1.0.9.88',NULL,NULL,NULL,CAST(X'4d69204669741f332e322e311f4d492042616e6420321e5869616f6d691e4d492042616e6420321e56302e312e332e331e001e56312e302e392e38381e001e00' AS TEXT));
INSERT INTO "sources" VALUES(2,'','Anna’s iPhone','11.2.6','iPhone','<<HKDevice: 0x02168b529b4a>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone9,3, software:11.2.6>','iPhone','Apple Inc.','iPhone','iPhone9,3',NULL,'11.2.6',NULL,NULL,NULL,CAST(X'416e6e61e2809973206950686f6e651f31312e322e361f6950686f6e651e4170706c6520496e632e1e6950686f6e651e6950686f6e65392c331e001e31312e322e361e001e00' AS TEXT));
INSERT INTO "sources" VALUES(3,'','Anna’s iPhone','11.2.6','iPhone',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,CAST(X'416e6e61e2809973206950686f6e651f31312e322e361f00' AS TEXT));
INSERT INTO "sources" VALUES(4,'','Waage','1',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,CAST(X'57616167651f311f00' AS TEXT));
INSERT INTO "sources" VALUES(5,'','Mi Fit','3.2.1',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,CAST(X'4d69204669741f332e322e311f00' AS TEXT));
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
  seen_count INTEGER NOT NULL
);
INSERT INTO "records" VALUES(1,'','HKQuantityTypeIdentifierStepCount',1,'count','118',118.0,'2018-03-18 20:00:00 +0100',1521399600,60,'2018-03-18 08:00:00 +0100',1521356400,60,'2018-03-18 08:10:00 +0100',1521357000,60,-3389658227657771237,1,1,1,1);
INSERT INTO "records" VALUES(2,'','HKQuantityTypeIdentifierStepCount',2,'count','59',59.0,'2018-03-18 08:05:30 +0100',1521356730,60,'2018-03-18 08:00:00 +0100',1521356400,60,'2018-03-18 08:10:00 +0100',1521357000,60,-5468705965648473547,1,1,1,1);
INSERT INTO "records" VALUES(3,'','HKQuantityTypeIdentifierStepCount',1,'count','135',135.0,'2018-03-18 20:01:00 +0100',1521399660,60,'2018-03-18 08:10:00 +0100',1521357000,60,'2018-03-18 08:20:00 +0100',1521357600,60,-2100194970894427052,2,1,1,2);
INSERT INTO "records" VALUES(4,'','HKQuantityTypeIdentifierStepCount',2,'count','67',67.0,'2018-03-18 08:15:30 +0100',1521357330,60,'2018-03-18 08:10:00 +0100',1521357000,60,'2018-03-18 08:20:00 +0100',1521357600,60,-3638299480627903702,1,1,1,1);
INSERT INTO "records" VALUES(5,'','HKQuantityTypeIdentifierStepCount',1,'count','152',152.0,'2018-03-18 20:02:00 +0100',1521399720,60,'2018-03-18 08:20:00 +0100',1521357600,60,'2018-03-18 08:30:00 +0100',1521358200,60,-917868127162769507,3,1,1,3);
INSERT INTO "records" VALUES(6,'','HKQuantityTypeIdentifierStepCount',2,'count','76',76.0,'2018-03-18 08:25:30 +0100',1521357930,60,'2018-03-18 08:20:00 +0100',1521357600,60,'2018-03-18 08:30:00 +0100',1521358200,60,-4288292272149524692,1,1,1,1);
INSERT INTO "records" VALUES(7,'','HKQuantityTypeIdentifierStepCount',1,'count','169',169.0,'2018-03-18 20:03:00 +0100',1521399780,60,'2018-03-18 08:30:00 +0100',1521358200,60,'2018-03-18 08:40:00 +0100',1521358800,60,-267875335641148517,1,1,1,1);
INSERT INTO "records" VALUES(8,'','HKQuantityTypeIdentifierStepCount',2,'count','84',84.0,'2018-03-18 08:35:30 +0100',1521358530,60,'2018-03-18 08:30:00 +0100',1521358200,60,'2018-03-18 08:40:00 +0100',1521358800,60,6076826931575376879,1,1,1,1);
INSERT INTO "records" VALUES(9,'','HKQuantityTypeIdentifierStepCount',1,'count','186',186.0,'2018-03-18 20:04:00 +0100',1521399840,60,'2018-03-18 08:40:00 +0100',1521358800,60,'2018-03-18 08:50:00 +0100',1521359400,60,-8993753546449293482,2,1,1,2);
INSERT INTO "records" VALUES(10,'','HKQuantityTypeIdentifierStepCount',2,'count','93',93.0,'2018-03-18 08:45:30 +0100',1521359130,60,'2018-03-18 08:40:00 +0100',1521358800,60,'2018-03-18 08:50:00 +0100',1521359400,60,5421094689355629819,1,1,1,1);
INSERT INTO "records" VALUES(11,'','HKQuantityTypeIdentifierStepCount',1,'count','203',203.0,'2018-03-18 20:05:00 +0100',1521399900,60,'2018-03-18 08:50:00 +0100',1521359400,60,'2018-03-18 09:00:00 +0100',1521360000,60,9043662242249575952,3,1,1,3);
INSERT INTO "records" VALUES(12,'','HKQuantityTypeIdentifierStepCount',2,'count','101',101.0,'2018-03-18 08:55:30 +0100',1521359730,60,'2018-03-18 08:50:00 +0100',1521359400,60,'2018-03-18 09:00:00 +0100',1521360000,60,-4035824718713974847,1,1,1,1);
INSERT INTO "records" VALUES(13,'','HKQuantityTypeIdentifierHeartRate',1,'count/min','63',63.0,'2018-03-18 10:00:10 +0100',1521363610,60,'2018-03-18 10:00:00 +0100',1521363600,60,'2018-03-18 10:00:00 +0100',1521363600,60,8525664590136388695,1,1,1,1);
INSERT INTO "records" VALUES(14,'','HKQuantityTypeIdentifierHeartRate',1,'count/min','70',70.0,'2018-03-18 11:00:10 +0100',1521367210,60,'2018-03-18 11:00:00 +0100',1521367200,60,'2018-03-18 11:00:00 +0100',1521367200,60,9055128916997362215,2,1,1,2);
INSERT INTO "records" VALUES(15,'','HKQuantityTypeIdentifierHeartRate',1,'count/min','77',77.0,'2018-03-18 12:00:10 +0100',1521370810,60,'2018-03-18 12:00:00 +0100',1521370800,60,'2018-03-18 12:00:00 +0100',1521370800,60,9048432891182881800,1,1,1,1);
INSERT INTO "records" VALUES(16,'','HKQuantityTypeIdentifierHeartRate',1,'count/min','84',84.0,'2018-03-18 13:00:10 +0100',1521374410,60,'2018-03-18 13:00:00 +0100',1521374400,60,'2018-03-18 13:00:00 +0100',1521374400,60,-6274615140277338406,1,1,1,1);
INSERT INTO "records" VALUES(17,'','HKQuantityTypeIdentifierHeartRate',1,'count/min','91',91.0,'2018-03-18 14:00:10 +0100',1521378010,60,'2018-03-18 14:00:00 +0100',1521378000,60,'2018-03-18 14:00:00 +0100',1521378000,60,-5647580151548221696,1,1,1,1);
INSERT INTO "records" VALUES(18,'','HKQuantityTypeIdentifierStepCount',1,'count','119',119.0,'2018-03-19 20:00:00 +0100',1521486000,60,'2018-03-19 08:00:00 +0100',1521442800,60,'2018-03-19 08:10:00 +0100',1521443400,60,-3390614802774125582,1,1,1,1);
INSERT INTO "records" VALUES(19,'','HKQuantityTypeIdentifierStepCount',2,'count','59',59.0,'2018-03-19 08:05:30 +0100',1521443130,60,'2018-03-19 08:00:00 +0100',1521442800,60,'2018-03-19 08:10:00 +0100',1521443400,60,-5468705965648473547,1,1,1,1);
INSERT INTO "records" VALUES(20,'','HKQuantityTypeIdentifierStepCount',1,'count','136',136.0,'2018-03-19 20:01:00 +0100',1521486060,60,'2018-03-19 08:10:00 +0100',1521443400,60,'2018-03-19 08:20:00 +0100',1521444000,60,-2097325245545364017,2,1,1,2);
INSERT INTO "records" VALUES(21,'','HKQuantityTypeIdentifierStepCount',2,'count','68',68.0,'2018-03-19 08:15:30 +0100',1521443730,60,'2018-03-19 08:10:00 +0100',1521443400,60,'2018-03-19 08:20:00 +0100',1521444000,60,-3643082356209675427,1,1,1,1);
INSERT INTO "records" VALUES(22,'','HKQuantityTypeIdentifierStepCount',1,'count','153',153.0,'2018-03-19 20:02:00 +0100',1521486120,60,'2018-03-19 08:20:00 +0100',1521444000,60,'2018-03-19 08:30:00 +0100',1521444600,60,-918824702279123852,3,1,1,3);
INSERT INTO "records" VALUES(23,'','HKQuantityTypeIdentifierStepCount',2,'count','76',76.0,'2018-03-19 08:25:30 +0100',1521444330,60,'2018-03-19 08:20:00 +0100',1521444000,60,'2018-03-19 08:30:00 +0100',1521444600,60,-4288292272149524692,1,1,1,1);
INSERT INTO "records" VALUES(24,'','HKQuantityTypeIdentifierStepCount',1,'count','170',170.0,'2018-03-19 20:03:00 +0100',1521486180,60,'2018-03-19 08:30:00 +0100',1521444600,60,'2018-03-19 08:40:00 +0100',1521445200,60,393596357276724613,1,1,1,1);
INSERT INTO "records" VALUES(25,'','HKQuantityTypeIdentifierStepCount',2,'count','85',85.0,'2018-03-19 08:35:30 +0100',1521444930,60,'2018-03-19 08:30:00 +0100',1521444600,60,'2018-03-19 08:40:00 +0100',1521445200,60,6075870356459022534,1,1,1,1);
INSERT INTO "records" VALUES(26,'','HKQuantityTypeIdentifierStepCount',1,'count','187',187.0,'2018-03-19 20:04:00 +0100',1521486240,60,'2018-03-19 08:40:00 +0100',1521445200,60,'2018-03-19 08:50:00 +0100',1521445800,60,-8992796971332939137,2,1,1,2);
INSERT INTO "records" VALUES(27,'','HKQuantityTypeIdentifierStepCount',2,'count','93',93.0,'2018-03-19 08:45:30 +0100',1521445530,60,'2018-03-19 08:40:00 +0100',1521445200,60,'2018-03-19 08:50:00 +0100',1521445800,60,5421094689355629819,1,1,1,1);
INSERT INTO "records" VALUES(28,'','HKQuantityTypeIdentifierStepCount',1,'count','204',204.0,'2018-03-19 20:05:00 +0100',1521486300,60,'2018-03-19 08:50:00 +0100',1521445800,60,'2018-03-19 09:00:00 +0100',1521446400,60,9050358268064056367,3,1,1,3);
INSERT INTO "records" VALUES(29,'','HKQuantityTypeIdentifierStepCount',2,'count','102',102.0,'2018-03-19 08:55:30 +0100',1521446130,60,'2018-03-19 08:50:00 +0100',1521445800,60,'2018-03-19 09:00:00 +0100',1521446400,60,-4034868143597620502,1,1,1,1);
INSERT INTO "records" VALUES(30,'','HKQuantityTypeIdentifierHeartRate',1,'count/min','64',64.0,'2018-03-19 10:00:10 +0100',1521450010,60,'2018-03-19 10:00:00 +0100',1521450000,60,'2018-03-19 10:00:00 +0100',1521450000,60,8518968564321908280,1,1,1,1);
INSERT INTO "records" VALUES(31,'','HKQuantityTypeIdentifierHeartRate',1,'count/min','71',71.0,'2018-03-19 11:00:10 +0100',1521453610,60,'2018-03-19 11:00:00 +0100',1521453600,60,'2018-03-19 11:00:00 +0100',1521453600,60,9054172341881007870,2,1,1,2);
INSERT INTO "records" VALUES(32,'','HKQuantityTypeIdentifierHeartRate',1,'count/min','78',78.0,'2018-03-19 12:00:10 +0100',1521457210,60,'2018-03-19 12:00:00 +0100',1521457200,60,'2018-03-19 12:00:00 +0100',1521457200,60,9047476316066527455,1,1,1,1);
INSERT INTO "records" VALUES(33,'','HKQuantityTypeIdentifierHeartRate',1,'count/min','85',85.0,'2018-03-19 13:00:10 +0100',1521460810,60,'2018-03-19 13:00:00 +0100',1521460800,60,'2018-03-19 13:00:00 +0100',1521460800,60,-6273658565160984061,1,1,1,1);
INSERT INTO "records" VALUES(34,'','HKQuantityTypeIdentifierHeartRate',1,'count/min','92',92.0,'2018-03-19 14:00:10 +0100',1521464410,60,'2018-03-19 14:00:00 +0100',1521464400,60,'2018-03-19 14:00:00 +0100',1521464400,60,-5644710426199158661,1,1,1,1);
INSERT INTO "records" VALUES(35,'','HKQuantityTypeIdentifierHeartRate',3,'count/min','71',71.0,'2018-03-19 23:00:05 +0100',1521496805,60,'2018-03-19 22:59:00 +0100',1521496740,60,'2018-03-19 22:59:00 +0100',1521496740,60,-3200991877565293455,2,1,1,2);
INSERT INTO "records" VALUES(36,'','HKQuantityTypeIdentifierBodyMass',4,'kg','61.5',61.5,NULL,NULL,NULL,'2018-03-18 07:00:00 +0100',1521352800,60,'2018-03-18 07:00:00 +0100',1521352800,60,8572460950912780978,2,1,1,2);
INSERT INTO "records" VALUES(37,'','HKQuantityTypeIdentifierBodyMass',4,'kg','61.3',61.3,NULL,NULL,NULL,'2018-03-19 07:00:00 +0100',1521439200,60,'2018-03-19 07:00:00 +0100',1521439200,60,8574374101145489668,1,1,1,1);
CREATE TABLE metadata (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  owner_kind TEXT NOT NULL,
  owner_id INTEGER NOT NULL,
  position INTEGER NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL
);
INSERT INTO "metadata" VALUES(1,'','record',35,0,'HKMetadataKeyHeartRateMotionContext','1');
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
  seen_count INTEGER NOT NULL
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
  seen_count INTEGER NOT NULL
);
INSERT INTO "workouts" VALUES(1,'','HKWorkoutActivityTypeRunning',30.0,'min',5.0,'km',300.0,'kcal',5,'2018-03-19 19:00:00 +0100',1521482400,60,'2018-03-19 18:00:00 +0100',1521478800,60,'2018-03-19 18:30:00 +0100',1521480600,60,30.0,5.0,300.0,2,1,1,2);
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
CREATE TABLE route_locations (
  id INTEGER PRIMARY KEY,
  person TEXT NOT NULL,
  route_id INTEGER NOT NULL REFERENCES workout_routes(id),
  position INTEGER NOT NULL,
  date TEXT, date_unix INTEGER, date_offset_min INTEGER,
  latitude REAL, longitude REAL, altitude REAL,
  horizontal_accuracy REAL, vertical_accuracy REAL, course REAL, speed REAL
);
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
INSERT INTO "me" VALUES(1,'','1980-05-04','HKBiologicalSexFemale','HKBloodTypeNotSet','HKFitzpatrickSkinTypeNotSet',NULL,-5351469042733316419,1);
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
CREATE UNIQUE INDEX records_key ON records (person, type, start_unix, end_unix, source_id, content_hash);
CREATE INDEX records_source ON records (source_id);
CREATE INDEX metadata_owner ON metadata (owner_kind, owner_id);
CREATE INDEX hrv_beats_record ON hrv_beats (record_id);
CREATE UNIQUE INDEX correlations_key ON correlations (person, type, start_unix, end_unix, source_id, content_hash);
CREATE INDEX correlation_records_correlation ON correlation_records (correlation_id);
CREATE UNIQUE INDEX workouts_key ON workouts (person, activity_type, start_unix, end_unix, source_id);
CREATE INDEX workout_activities_workout ON workout_activities (workout_id);
CREATE INDEX workout_events_workout ON workout_events (workout_id);
CREATE INDEX workout_statistics_workout ON workout_statistics (workout_id);
CREATE INDEX workout_routes_workout ON workout_routes (workout_id);
CREATE INDEX route_locations_route ON route_locations (route_id);
CREATE UNIQUE INDEX activity_summaries_key ON activity_summaries (person, date_components, content_hash);
CREATE UNIQUE INDEX me_key ON me (person, content_hash);
CREATE UNIQUE INDEX other_elements_key ON other_elements (person, name, content_hash);
CREATE INDEX extras_owner ON extras (owner_kind, owner_id);
CREATE VIEW daily_steps AS
  SELECT period,
    CASE WHEN steps = CAST(steps AS INTEGER) THEN CAST(steps AS INTEGER) ELSE steps END AS steps,
    samples, person
  FROM (
    SELECT date(start_unix + start_offset_min * 60, 'unixepoch') AS period,
      total(value_num * copies) AS steps, sum(copies) AS samples, person
    FROM records
    WHERE type = 'HKQuantityTypeIdentifierStepCount'
    GROUP BY person, period
  )
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
      CASE WHEN activity_type LIKE 'HKWorkoutActivityType%' THEN substr(activity_type, 22)
        ELSE activity_type END AS activity,
      sum(copies) AS count,
      round(total(duration_min * copies), 3) AS duration_min,
      round(sum(distance_km * copies), 3) AS distance,
      round(sum(energy_kcal * copies), 3) AS energy,
      person
    FROM workouts
    GROUP BY person, activity
  )
  ORDER BY person, count DESC, activity;
PRAGMA application_id = 1213223508;
PRAGMA user_version = 1;
COMMIT;
