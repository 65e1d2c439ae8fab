import SQLiteStore

/// The fixed, versioned schema of a healthport database (the README's "Loading into SQLite"
/// section describes every column).
///
/// Version 5. `PRAGMA application_id` marks the file as healthport's, `PRAGMA user_version` holds
/// the schema version. The schema never depends on the data: unknown attributes and elements go
/// to `extras` and `other_elements`. Older versions are migrated in place (``migrations``).
package enum SQLiteSchema {
  /// `PRAGMA user_version` of the schema this build writes.
  package static let version: Int64 = 5
  /// `creation_key` of an element without `creationDate`: SQLite treats NULLs in a UNIQUE index
  /// as distinct, so the key column needs a value for reloading such an element to add nothing.
  package static let noCreationKey = Int64.min
  /// `PRAGMA application_id`: "HPRT".
  package static let applicationID: Int64 = 0x4850_5254

  /// Columns shared by the elements that carry `copies` (see ``SQLiteLoader``).
  static let bookkeeping = """
    copies INTEGER NOT NULL DEFAULT 1,
      export_id INTEGER NOT NULL,
      seen_export INTEGER NOT NULL,
      seen_count INTEGER NOT NULL
    """

  /// The first columns of the tables of a workout's parts (activities, events, statistics, routes).
  static let workoutPart = """
    id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      workout_id INTEGER NOT NULL REFERENCES workouts(id)
    """

  /// The tables of a workout's parts, each made by ``workoutPartTable(_:activity:_:)``.
  static let workoutPartTables = [
    workoutPartTable(
      "workout_activities",
      [
        Catalog.workoutActivities["uuid"], Catalog.workoutActivities["startDate"], Catalog.workoutActivities["endDate"],
        Catalog.workoutActivities["duration", "durationUnit"],
      ]),
    workoutPartTable(
      "workout_events", activity: true,
      [
        Catalog.workoutEvents["type"], Catalog.workoutEvents["date"], Catalog.workoutEvents["duration", "durationUnit"],
      ]),
    workoutPartTable(
      "workout_statistics", activity: true,
      [
        Catalog.workoutStatistics["type"], Catalog.workoutStatistics["startDate"],
        Catalog.workoutStatistics["endDate"], Catalog.workoutStatistics["average", "minimum", "maximum", "sum", "unit"],
      ]),
    workoutPartTable(
      "workout_routes",
      [
        "source_id INTEGER NOT NULL REFERENCES sources(id)", Catalog.workoutRoutes["creationDate"],
        Catalog.workoutRoutes["startDate"], Catalog.workoutRoutes["endDate"],
        Catalog.fileReferences.definition("path", as: "file_path", nullable: true),
      ]),
  ].joined(separator: "\n\n")

  /// A table of a workout's parts: ``workoutPart``'s columns, the activity the part belongs to
  /// (events and statistics), its position among the workout's parts of its kind, then `columns`;
  /// indexed by workout.
  static func workoutPartTable(_ name: String, activity: Bool = false, _ columns: [String]) -> String {
    let activityColumn = activity ? "\n  activity_id INTEGER REFERENCES workout_activities(id)," : ""
    return """
      CREATE TABLE \(name) (
        \(workoutPart),\(activityColumn)
        position INTEGER NOT NULL,
        \(columns.joined(separator: ",\n  "))
      );
      CREATE INDEX \(name)_workout ON \(name) (workout_id);
      """
  }

  /// Where the tables' shared columns are defined (the column catalog).
  private typealias Catalog = SQLiteColumns

  /// Every table, index and view of a new database. Columns the catalog defines come from it, in
  /// SQLite's order; the rest (ids, keys, `person`, bookkeeping, parsed devices) are SQLite's own.
  static let create: String = """
    CREATE TABLE exports (
      id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      path TEXT NOT NULL,
      export_date TEXT, export_date_unix INTEGER,
      \(Catalog.exports["exportVersion"]),
      \(Catalog.exports["locale"]),
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

    CREATE TABLE sources (
      id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      \(Catalog.sources.definition("sourceName", as: "name")),
      \(Catalog.sources.definition("sourceVersion", as: "version")),
      \(Catalog.sources.definition("sourceProduct", as: "product")),
      \(Catalog.sources["device"]),
      device_name TEXT, device_manufacturer TEXT, device_model TEXT, device_hardware TEXT,
      device_firmware TEXT, device_software TEXT, device_local_identifier TEXT, device_udi TEXT,
      device_creation_date TEXT,
      source_key TEXT NOT NULL,
      UNIQUE (person, source_key)
    );

    CREATE TABLE records (
      id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      \(Catalog.records["type"]),
      source_id INTEGER NOT NULL REFERENCES sources(id),
      \(Catalog.records["unit"]),
      \(Catalog.records.lines("value")),
      \(Catalog.records.rows("creationDate", "startDate", "endDate")),
      content_hash INTEGER NOT NULL,
      \(bookkeeping),
      creation_key INTEGER NOT NULL,
      start_local_day TEXT NOT NULL
    );
    \(recordsKey)
    CREATE INDEX records_source ON records (source_id);

    CREATE TABLE metadata (
      id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      owner_kind TEXT NOT NULL,
      owner_id INTEGER NOT NULL,
      position INTEGER NOT NULL,
      \(Catalog.metadata["key"]),
      \(Catalog.metadata["value"])
    );
    CREATE INDEX metadata_owner ON metadata (owner_kind, owner_id);

    CREATE TABLE hrv_beats (
      id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      record_id INTEGER NOT NULL REFERENCES records(id),
      position INTEGER NOT NULL,
      \(Catalog.hrvBeats.definition("bpm", nullable: true)),
      \(Catalog.hrvBeats.definition("time", nullable: true))
    );
    CREATE INDEX hrv_beats_record ON hrv_beats (record_id);

    CREATE TABLE correlations (
      id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      \(Catalog.correlations["type"]),
      source_id INTEGER NOT NULL REFERENCES sources(id),
      \(Catalog.correlations.rows("creationDate", "startDate", "endDate")),
      content_hash INTEGER NOT NULL,
      \(bookkeeping),
      creation_key INTEGER NOT NULL
    );
    \(correlationsKey)

    CREATE TABLE correlation_records (
      id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      correlation_id INTEGER NOT NULL REFERENCES correlations(id),
      position INTEGER NOT NULL,
      record_id INTEGER REFERENCES records(id),
      \(Catalog.correlationRecords["type"]),
      source_id INTEGER NOT NULL REFERENCES sources(id),
      \(Catalog.correlationRecords["unit"]),
      \(Catalog.correlationRecords.lines("value")),
      \(Catalog.correlationRecords.rows("creationDate", "startDate", "endDate"))
    );
    CREATE INDEX correlation_records_correlation ON correlation_records (correlation_id);

    CREATE TABLE workouts (
      id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      \(Catalog.workouts.definition("workoutActivityType", as: "activity_type")),
      \(Catalog.workouts["duration", "durationUnit"]),
      \(Catalog.workouts["totalDistance", "totalDistanceUnit"]),
      \(Catalog.workouts["totalEnergyBurned", "totalEnergyBurnedUnit"]),
      source_id INTEGER NOT NULL REFERENCES sources(id),
      \(Catalog.workouts.rows("creationDate", "startDate", "endDate")),
      duration_min REAL,
      distance_km REAL,
      energy_kcal REAL,
      \(bookkeeping),
      creation_key INTEGER NOT NULL,
      \(WorkoutMeasureColumns.definitions)
    );
    \(workoutsKey)

    \(workoutPartTables)

    CREATE TABLE route_locations (
      id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      route_id INTEGER NOT NULL REFERENCES workout_routes(id),
      position INTEGER NOT NULL,
      date TEXT, date_unix INTEGER, date_offset_min INTEGER,
      \(Catalog.locations["latitude", "longitude", "altitude"]),
      \(Catalog.locations["horizontalAccuracy", "verticalAccuracy", "course", "speed"])
    );
    CREATE INDEX route_locations_route ON route_locations (route_id);

    CREATE TABLE activity_summaries (
      id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      \(Catalog.activitySummaries["dateComponents"]),
      \(Catalog.activitySummaries["activeEnergyBurned", "activeEnergyBurnedGoal", "activeEnergyBurnedUnit"]),
      \(Catalog.activitySummaries["appleMoveTime", "appleMoveTimeGoal"]),
      \(Catalog.activitySummaries["appleExerciseTime", "appleExerciseTimeGoal"]),
      \(Catalog.activitySummaries["appleStandHours", "appleStandHoursGoal"]),
      \(Catalog.activitySummaries["appleMoveMinutes", "appleMoveMinutesGoal"]),
      content_hash INTEGER NOT NULL,
      \(bookkeeping)
    );
    CREATE UNIQUE INDEX activity_summaries_key ON activity_summaries (person, date_components, content_hash);

    CREATE TABLE me (
      id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      \(Catalog.me["HKCharacteristicTypeIdentifierDateOfBirth"]),
      \(Catalog.me["HKCharacteristicTypeIdentifierBiologicalSex"]),
      \(Catalog.me["HKCharacteristicTypeIdentifierBloodType"]),
      \(Catalog.me["HKCharacteristicTypeIdentifierFitzpatrickSkinType"]),
      \(Catalog.me["HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse"]),
      content_hash INTEGER NOT NULL,
      export_id INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX me_key ON me (person, content_hash);

    CREATE TABLE other_elements (
      id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      name TEXT NOT NULL,
      xml TEXT NOT NULL,
      content_hash INTEGER NOT NULL,
      \(bookkeeping)
    );
    CREATE UNIQUE INDEX other_elements_key ON other_elements (person, name, content_hash);

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
    CREATE INDEX extras_owner ON extras (owner_kind, owner_id);

    \(stepDaysDedupe)
    \(sideFileTables)
    \(unreferencedRouteTables)
    \(allViews)
    """

  static let recordsKey = """
    CREATE UNIQUE INDEX records_key
      ON records (person, type, start_unix, end_unix, source_id, creation_key, content_hash);
    """
  static let correlationsKey = """
    CREATE UNIQUE INDEX correlations_key
      ON correlations (person, type, start_unix, end_unix, source_id, creation_key, content_hash);
    """
  static let workoutsKey = """
    CREATE UNIQUE INDEX workouts_key ON workouts (person, activity_type, start_unix, end_unix, source_id, creation_key);
    """

  /// What `daily_steps_dedupe` shows: the load recomputes a person's rows at the end of each
  /// load with ``StepTotals``' de-duplication (which portable SQL cannot express).
  static let stepDaysDedupe = """
    CREATE TABLE step_days_dedupe (
      id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      period TEXT NOT NULL,
      steps REAL NOT NULL,
      samples INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX step_days_dedupe_key ON step_days_dedupe (person, period);
    """

  /// The views, in SQL that SQLite and DuckDB's SQLite scanner read alike: no date functions,
  /// `total()`, `LIKE`, `IS` between columns or casts that could round (a whole number is cast only
  /// when it is whole). `daily_steps` and `workouts_summary` count a rewrite or a duplicated workout
  /// once (``CountOnce``), as the commands do; their `_as_written` twins count every copy.
  static let views = """
    CREATE VIEW daily_steps AS
      SELECT period, \(wholeWhenWhole("steps")) AS steps, samples, person
      FROM (
        SELECT r.start_local_day AS period, sum(r.value_num) AS steps, count(*) AS samples, r.person AS person
        FROM records AS r JOIN sources AS rs ON rs.id = r.source_id
        WHERE r.type = 'HKQuantityTypeIdentifierStepCount' AND NOT \(CountOnce.isRewrite(record: "r", source: "rs"))
        GROUP BY r.person, r.start_local_day
      ) AS days
      ORDER BY person, period;

    CREATE VIEW daily_steps_as_written AS
      SELECT period, \(wholeWhenWhole("steps")) AS steps, samples, person
      FROM (
        SELECT start_local_day AS period, sum(value_num * copies) AS steps, sum(copies) AS samples, person
        FROM records
        WHERE type = 'HKQuantityTypeIdentifierStepCount'
        GROUP BY person, start_local_day
      ) AS days
      ORDER BY person, period;

    CREATE VIEW daily_steps_dedupe AS
      SELECT period, \(wholeWhenWhole("steps")) AS steps, samples, person
      FROM step_days_dedupe
      ORDER BY person, period;

    \(workoutsSummary("workouts_summary", timesCopies: false, from: CountOnce.countedWorkouts))

    \(workoutsSummary("workouts_summary_as_written", timesCopies: true, from: "workouts AS w"))
    """

  /// `column` as an integer when it holds a whole number, else as it is.
  static func wholeWhenWhole(_ column: String) -> String {
    "CASE WHEN \(column) = CAST(\(column) AS INTEGER) THEN CAST(\(column) AS INTEGER) ELSE \(column) END"
  }

  /// A view of `healthport workouts --summary` over the workouts of `from` (aliased `w`), each
  /// counted once, or `copies` times.
  static func workoutsSummary(_ name: String, timesCopies: Bool, from: String) -> String {
    let times = timesCopies ? " * w.copies" : ""
    return """
      CREATE VIEW \(name) AS
        SELECT activity, count, \(wholeWhenWhole("duration_min")) AS duration_min,
          \(wholeWhenWhole("distance")) AS distance,
          \(wholeWhenWhole("energy")) AS energy,
          person
        FROM (
          SELECT
            CASE WHEN substr(w.activity_type, 1, 21) = 'HKWorkoutActivityType' THEN substr(w.activity_type, 22)
              ELSE w.activity_type END AS activity,
            \(timesCopies ? "sum(w.copies)" : "count(*)") AS count,
            sum(w.duration_min\(times)) AS duration_min,
            sum(w.distance_km\(times)) AS distance,
            sum(w.energy_kcal\(times)) AS energy,
            w.person AS person
          FROM \(from)
          GROUP BY w.person, activity
        ) AS activities
        ORDER BY person, count DESC, activity;
      """
  }

  /// Every view, as the current version writes them: dropped before the steps of a migration and
  /// created again after them (a view holds no data, and steps never need to rewrite one).
  static let viewNames = [
    "daily_steps", "daily_steps_as_written", "daily_steps_dedupe", "workouts_summary", "workouts_summary_as_written",
    "workout_routes_summary",
  ]
  static let allViews = views + "\n" + sideFileViews

  /// One step of a migration: brings a database of version `version - 1` to `version`. A
  /// version may have several steps, run in their order here.
  struct MigrationStep: Sendable {
    let version: Int64
    let run: @Sendable (SQLiteConnection) throws -> Void

    init(_ version: Int64, _ run: @escaping @Sendable (SQLiteConnection) throws -> Void) {
      self.version = version
      self.run = run
    }

    /// A step that runs SQL statements.
    init(_ version: Int64, sql: String) { self.init(version) { try $0.execute(sql) } }
  }

  /// The steps from version 1 to ``version``, run in one transaction by
  /// ``SQLiteDatabase/prepareSchema(_:path:)``, after the views are dropped and before they are
  /// created again.
  static let migrationSteps: [MigrationStep] = [
    // Rewrites kept as rows: the creation instant in the keys, the local day (issue 6).
    MigrationStep(2, sql: creationKeysMigration),
    // The workouts' heart rate, pace, elevation and indoor columns (issue 14).
    MigrationStep(3, sql: WorkoutMeasureColumns.migration),
    // The side files: route points, ECG recordings and samples (issue 13).
    MigrationStep(4, sql: sideFilesMigration),
    // The views count a rewrite or a duplicated workout once; the `_as_written` views (issue 30).
    // Views only: they are created again after every migration.
    MigrationStep(5) { _ in },
    // Routes no workout references keyed by (person, file, digest of points) (issue 30).
    MigrationStep(5) { try addUnreferencedRouteKeys($0) },
  ]

  static let creationKeysMigration = """
    ALTER TABLE records ADD COLUMN creation_key INTEGER NOT NULL DEFAULT \(noCreationKey);
    UPDATE records SET creation_key = creation_unix WHERE creation_unix IS NOT NULL;
    ALTER TABLE records ADD COLUMN start_local_day TEXT NOT NULL DEFAULT '';
    UPDATE records SET start_local_day = substr(start_date, 1, 10);
    ALTER TABLE correlations ADD COLUMN creation_key INTEGER NOT NULL DEFAULT \(noCreationKey);
    UPDATE correlations SET creation_key = creation_unix WHERE creation_unix IS NOT NULL;
    ALTER TABLE workouts ADD COLUMN creation_key INTEGER NOT NULL DEFAULT \(noCreationKey);
    UPDATE workouts SET creation_key = creation_unix WHERE creation_unix IS NOT NULL;
    UPDATE records SET seen_export = 0 WHERE copies > 1;
    UPDATE correlations SET seen_export = 0 WHERE copies > 1;
    UPDATE workouts SET seen_export = 0 WHERE copies > 1;
    DROP INDEX records_key;
    DROP INDEX correlations_key;
    DROP INDEX workouts_key;
    \(recordsKey)
    \(correlationsKey)
    \(workoutsKey)
    \(stepDaysDedupe)
    """
}
