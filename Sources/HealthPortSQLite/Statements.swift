import SQLiteStore

/// The loader's prepared statements, prepared once per load and reused for every row.
struct Statements {
  let insertExport, updateExportDate, finishExport, countExport: SQLiteStatement
  let insertSource, findSource, refreshSource: SQLiteStatement
  let insertRecord, seenRecord, findRecord: SQLiteStatement
  let insertMetadata, insertExtra, insertBeat: SQLiteStatement
  let insertCorrelation, seenCorrelation, insertCorrelationRecord: SQLiteStatement
  let insertWorkout, seenWorkout, insertActivity, insertEvent, insertStatistics, insertRoute,
    insertLocation: SQLiteStatement
  let insertSummary, seenSummary, insertMe, insertOther, seenOther: SQLiteStatement
  /// The dates of the children of an element seen again (``SQLiteLoader/refreshDates(of:id:)``).
  let refreshCorrelationRecord, refreshActivity, refreshEvent, refreshStatistics, refreshRoute,
    refreshLocation: SQLiteStatement

  /// `INSERT OR IGNORE INTO table (columns) VALUES (?, ?, …)`.
  static func insert(_ table: String, _ columns: [String], ignore: Bool = false) -> String {
    let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
    return "INSERT \(ignore ? "OR IGNORE " : "")INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(marks))"
  }

  /// Columns set on first insert for the tables that count copies: export_id = seen_export = ?.
  static func withCopies(_ table: String, _ columns: [String]) -> String {
    let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
    return "INSERT OR IGNORE INTO \(table) (\(columns.joined(separator: ", ")), copies, export_id, seen_export, "
      + "seen_count) VALUES (\(marks), 1, ?\(columns.count + 1), ?\(columns.count + 1), 1)"
  }

  /// Another copy of an existing row: ?1 is this load's export id, then the natural key, then the
  /// values of `set` (this load's date strings, offsets and local days: the latest export wins).
  /// `copies` becomes the most copies one load has seen, so re-loading never raises it. A row
  /// whose `seen_export` is 0 holds a count from an older schema whose key was coarser (the
  /// migration marks them): the first load that sees it again counts it afresh.
  static func seen(_ table: String, key: [String], set: [String] = [], returningID: Bool = false) -> String {
    let this = "CASE WHEN seen_export = ?1 THEN seen_count + 1 ELSE 1 END"
    let conditions = key.enumerated().map { "\($1) = ?\($0 + 2)" }.joined(separator: " AND ")
    let assignments = set.enumerated().map { ", \($1) = ?\($0 + key.count + 2)" }.joined()
    return "UPDATE \(table) SET copies = CASE WHEN seen_export = 0 THEN 1 ELSE max(copies, \(this)) END, "
      + "seen_count = \(this), seen_export = ?1\(assignments) WHERE \(conditions)\(returningID ? " RETURNING id" : "")"
  }

  /// `UPDATE table SET columns = ? … WHERE conditions`: a child's dates, rewritten by a later load.
  static func update(_ table: String, _ columns: [String], where conditions: String) -> String {
    "UPDATE \(table) SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE \(conditions)"
  }

  /// Where the insert lists' shared columns are named (the column catalog, as the schema).
  private typealias Catalog = SQLiteColumns

  init(_ db: SQLiteConnection) throws {
    insertExport = try db.prepare(
      Self.insert("exports", ["person", "path"] + Catalog.exports.names("exportVersion", "locale") + ["started_at"]))
    updateExportDate = try db.prepare("UPDATE exports SET export_date = ?, export_date_unix = ? WHERE id = ?")
    finishExport = try db.prepare(
      """
      UPDATE exports SET finished_at = ?, seconds = ?, input_bytes = ?, records_read = ?, correlations_read = ?,
        workouts_read = ?, activity_summaries_read = ?, other_elements_read = ?, rows_added = ?, records_added = ?,
        correlations_added = ?, workouts_added = ?, activity_summaries_added = ?, metadata_added = ?,
        other_elements_added = ?, completed = 1
      WHERE id = ?
      """)
    // What an interrupted load read and added (committed with the elements before the damage).
    countExport = try db.prepare(
      """
      UPDATE exports SET records_read = ?, correlations_read = ?, workouts_read = ?, activity_summaries_read = ?,
        other_elements_read = ?, rows_added = ?, records_added = ?, correlations_added = ?, workouts_added = ?,
        activity_summaries_added = ?, metadata_added = ?, other_elements_added = ?
      WHERE id = ?
      """)
    insertSource = try db.prepare(
      Self.insert(
        "sources",
        [
          "person", "name", "version", "product", "device", "device_name", "device_manufacturer", "device_model",
          "device_hardware", "device_firmware", "device_software", "device_local_identifier", "device_udi",
          "device_creation_date", "source_key",
        ], ignore: true))
    findSource = try db.prepare("SELECT id FROM sources WHERE person = ? AND source_key = ?")
    refreshSource = try db.prepare(
      Self.update("sources", ["device", "device_creation_date"], where: "person = ? AND source_key = ?"))
    let recordKey = ["person", "type", "start_unix", "end_unix", "source_id", "creation_key", "content_hash"]
    insertRecord = try db.prepare(
      Self.withCopies(
        "records",
        ["person"] + Catalog.records.names("type") + ["source_id"]
          + Catalog.records.names("unit", "value", "creationDate") + ["creation_key"]
          + Catalog.records.names("startDate") + ["start_local_day"] + Catalog.records.names("endDate")
          + ["content_hash"]))
    seenRecord = try db.prepare(
      Self.seen(
        "records", key: recordKey,
        set: Catalog.records.names("creationDate", "startDate") + ["start_local_day"]
          + Catalog.records.names("endDate")))
    findRecord = try db.prepare(
      "SELECT id FROM records WHERE " + recordKey.map { "\($0) = ?" }.joined(separator: " AND "))
    insertMetadata = try db.prepare(
      Self.insert(
        "metadata", ["person", "owner_kind", "owner_id", "position"] + Catalog.metadata.names("key", "value")))
    insertExtra = try db.prepare(
      Self.insert("extras", ["person", "owner_kind", "owner_id", "position", "kind", "name", "value"]))
    insertBeat = try db.prepare(
      Self.insert("hrv_beats", ["person", "record_id", "position"] + Catalog.hrvBeats.names("bpm", "time")))
    insertCorrelation = try db.prepare(
      Self.withCopies(
        "correlations",
        ["person"] + Catalog.correlations.names("type") + ["source_id"] + Catalog.correlations.names("creationDate")
          + ["creation_key"] + Catalog.correlations.names("startDate", "endDate") + ["content_hash"]))
    seenCorrelation = try db.prepare(
      Self.seen(
        "correlations", key: recordKey, set: Catalog.correlations.names("creationDate", "startDate", "endDate"),
        returningID: true))
    refreshCorrelationRecord = try db.prepare(
      Self.update(
        "correlation_records", Catalog.correlationRecords.names("creationDate", "startDate", "endDate"),
        where: "correlation_id = ? AND position = ?"))
    insertCorrelationRecord = try db.prepare(
      Self.insert(
        "correlation_records",
        ["person", "correlation_id", "position", "record_id"] + Catalog.correlationRecords.names("type")
          + ["source_id"]
          + Catalog.correlationRecords.names("unit", "value", "creationDate", "startDate", "endDate")))
    insertWorkout = try db.prepare(
      Self.withCopies(
        "workouts",
        ["person", "activity_type"]
          + Catalog.workouts.names(
            "duration", "durationUnit", "totalDistance", "totalDistanceUnit", "totalEnergyBurned",
            "totalEnergyBurnedUnit") + ["source_id"] + Catalog.workouts.names("creationDate") + ["creation_key"]
          + Catalog.workouts.names("startDate", "endDate") + ["duration_min", "distance_km", "energy_kcal"]))
    seenWorkout = try db.prepare(
      Self.seen(
        "workouts", key: ["person", "activity_type", "start_unix", "end_unix", "source_id", "creation_key"],
        set: Catalog.workouts.names("creationDate", "startDate", "endDate")))
    refreshActivity = try db.prepare(
      Self.update(
        "workout_activities", Catalog.workoutActivities.names("startDate", "endDate"),
        where: "workout_id = ? AND position = ?") + " RETURNING id")
    refreshEvent = try db.prepare(
      Self.update(
        "workout_events", Catalog.workoutEvents.names("date"),
        where: "workout_id = ? AND activity_id IS ? AND position = ?"))
    refreshStatistics = try db.prepare(
      Self.update(
        "workout_statistics", Catalog.workoutStatistics.names("startDate", "endDate"),
        where: "workout_id = ? AND activity_id IS ? AND position = ?"))
    refreshRoute = try db.prepare(
      Self.update(
        "workout_routes", Catalog.workoutRoutes.names("creationDate", "startDate", "endDate"),
        where: "workout_id = ? AND position = ?") + " RETURNING id")
    refreshLocation = try db.prepare(
      Self.update("route_locations", ["date", "date_unix", "date_offset_min"], where: "route_id = ? AND position = ?"))
    insertActivity = try db.prepare(
      Self.insert(
        "workout_activities",
        ["person", "workout_id", "position"]
          + Catalog.workoutActivities.names("uuid", "startDate", "endDate", "duration", "durationUnit")))
    insertEvent = try db.prepare(
      Self.insert(
        "workout_events",
        ["person", "workout_id", "activity_id", "position"]
          + Catalog.workoutEvents.names("type", "date", "duration", "durationUnit")))
    insertStatistics = try db.prepare(
      Self.insert(
        "workout_statistics",
        ["person", "workout_id", "activity_id", "position"]
          + Catalog.workoutStatistics.names(
            "type", "startDate", "endDate", "average", "minimum", "maximum", "sum", "unit")))
    insertRoute = try db.prepare(
      Self.insert(
        "workout_routes",
        ["person", "workout_id", "position", "source_id"]
          + Catalog.workoutRoutes.names("creationDate", "startDate", "endDate") + ["file_path"]))
    insertLocation = try db.prepare(
      Self.insert(
        "route_locations",
        ["person", "route_id", "position", "date", "date_unix", "date_offset_min"]
          + Catalog.locations.names(
            "latitude", "longitude", "altitude", "horizontalAccuracy", "verticalAccuracy", "course", "speed")))
    insertSummary = try db.prepare(
      Self.withCopies(
        "activity_summaries",
        ["person"]
          + Catalog.activitySummaries.names(
            "dateComponents", "activeEnergyBurned", "activeEnergyBurnedGoal", "activeEnergyBurnedUnit",
            "appleMoveTime", "appleMoveTimeGoal", "appleExerciseTime", "appleExerciseTimeGoal", "appleStandHours",
            "appleStandHoursGoal", "appleMoveMinutes", "appleMoveMinutesGoal") + ["content_hash"]))
    seenSummary = try db.prepare(
      Self.seen("activity_summaries", key: ["person", "date_components", "content_hash"]))
    insertMe = try db.prepare(
      Self.insert(
        "me",
        ["person"] + Catalog.me.names(SQLiteColumns.characteristics) + ["content_hash", "export_id"], ignore: true))
    insertOther = try db.prepare(
      Self.withCopies("other_elements", ["person", "name", "xml", "content_hash"]))
    seenOther = try db.prepare(Self.seen("other_elements", key: ["person", "name", "content_hash"], set: ["xml"]))
  }
}
