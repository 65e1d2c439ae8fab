/// The columns of every table healthport writes, in one place: the single table of
/// `convert --to csv` and the tables of a `--split` folder (the README's column tables list the
/// same names; a test keeps them equal). The CSV schemas take their headers and cell order from
/// here; typed outputs (SQLite, Parquet) map each ``ColumnType`` to a type of their own.
package enum ColumnCatalog {
  // MARK: Shared columns

  static let id = TableColumn(
    "id", .integer, .structure, required: true, "the element's position in document order (`HealthData` is 0)")
  static let parentID = TableColumn(
    "parent_id", .integer, .structure, "the `id` of the enclosing element; empty directly under `HealthData`")
  static let workoutID = TableColumn(
    "workout_id", .integer, .structure,
    "the `id` of the enclosing `Workout` (also through a `WorkoutActivity`); empty outside workouts")
  static let element = TableColumn("element", .text, .structure, required: true, "the element's name")

  static let sourceName = TableColumn(
    "sourceName", .text, required: true, "the app or device that wrote the element")
  static let sourceVersion = TableColumn("sourceVersion", .text, "its version (text, even where it looks numeric)")
  static let sourceProduct = TableColumn(
    "sourceProduct", .text, .derived,
    "`Watch`, `iPhone`, `iPad`, `iPod`, another device model, or empty (derived from `device` and `sourceName`)")
  static let device = TableColumn("device", .text, "the device string exactly as in the export")
  static let unit = TableColumn("unit", .text, "the unit (empty for category samples)")

  /// `sourceName, sourceVersion, sourceProduct, device`.
  static let source = [sourceName, sourceVersion, sourceProduct, device]

  /// `creationDate, startDate, endDate` in the export's form.
  static let dates = [
    TableColumn("creationDate", .exportDate, "when the element was saved"),
    TableColumn("startDate", .exportDate, required: true, "when it starts"),
    TableColumn("endDate", .exportDate, required: true, "when it ends"),
  ]

  /// A value and its unit (`duration`, `durationUnit`…), as written.
  static func quantity(_ name: String, _ meaning: String, required: Bool = false) -> [TableColumn] {
    [TableColumn(name, .number, required: required, meaning), TableColumn(name + "Unit", .text, "its unit")]
  }

  /// The attributes of a `Record`, as the `--split` record tables and the earlier single table
  /// hold them: `type`, the source, `unit`, `value`, the three dates.
  static let recordAttributes =
    [TableColumn("type", .text, required: true, "the type identifier, e.g. `HKQuantityTypeIdentifierStepCount`")]
    + source + [unit, TableColumn("value", .numberOrText, "the value as written: a number, or a category's name")]
    + dates

  static let metadataColumn = TableColumn(
    "metadata", .json, .content,
    "the `MetadataEntry` children: an object of keys and values, or `[key, value]` pairs when a key repeats")

  // MARK: The single table

  /// `convert --to csv`: one row per top-level `Record`, one kind of value per column.
  package static let records = TableDefinition(
    "records", element: "Record", rows: "top-level `Record`",
    columns: Array(recordAttributes.prefix(6)) + [
      TableColumn(
        "value", .number, "the value when it is a decimal number; whole numbers with a trailing point (`812.`)"),
      TableColumn("valueText", .text, "any other value: a category's name, a present empty value, other text"),
      TableColumn("creationDate", .isoDate, "`creationDate` in ISO 8601, in the offset the export wrote"),
      TableColumn("startDate", .isoDate, required: true, "`startDate` in ISO 8601, in the offset the export wrote"),
      TableColumn("endDate", .isoDate, required: true, "`endDate` in ISO 8601, in the offset the export wrote"),
      TableColumn("creationUTC", .instant, .derived, "the creation instant in UTC"),
      TableColumn("startUTC", .instant, .derived, required: true, "the start instant in UTC"),
      TableColumn("endUTC", .instant, .derived, required: true, "the end instant in UTC"),
      metadataColumn,
    ])

  /// The single table that healthport wrote before `value` and the dates were split (still read).
  package static let legacyRecords = TableDefinition(
    "records", element: "Record", rows: "top-level `Record`", columns: recordAttributes + [metadataColumn])

  // MARK: The tables of a `--split` folder

  /// `export.csv`: the root (id 0), then each top-level `ExportDate`.
  package static let export = TableDefinition(
    "export", element: nil, rows: "the root, then each top-level `ExportDate`",
    columns: [
      id, TableColumn("element", .text, .structure, required: true, "`HealthData` on row 0, then `ExportDate`"),
      TableColumn("value", .exportDate, "the export date (`ExportDate` rows)"),
      TableColumn("locale", .text, .derived, "the root's `locale` (row 0)"),
      TableColumn("exportVersion", .integer, .derived, "the N of `<!-- HealthKit Export Version: N -->` (row 0)"),
      TableColumn("attributes", .json, .content, "the root's attributes as `[name, value]` pairs in order (row 0)"),
      TableColumn("prolog", .text, .content, "the bytes before `<HealthData`, verbatim (row 0)"),
    ])

  /// `<Type>.csv`: the top-level Records of one type (or of types whose names differ in case).
  package static let recordsOfType = TableDefinition(
    "<Type>", element: "Record", rows: "top-level `Record` of that type", columns: [id] + recordAttributes)

  package static let correlations = TableDefinition(
    "correlations", element: "Correlation", rows: "`Correlation`",
    columns: [
      id,
      TableColumn(
        "type", .text, required: true, "the correlation type, e.g. `HKCorrelationTypeIdentifierBloodPressure`"),
    ] + source + dates)

  package static let correlationRecords = TableDefinition(
    "correlation_records", element: "Record", rows: "`Record` inside a `Correlation`",
    columns: [id, parentID] + recordAttributes)

  package static let workouts = TableDefinition(
    "workouts", element: "Workout", rows: "`Workout`",
    columns: [
      id, TableColumn("workoutActivityType", .text, required: true, "e.g. `HKWorkoutActivityTypeRunning`"),
    ] + quantity("duration", "the duration, pauses excluded")
      + quantity("totalDistance", "the distance (older exports)")
      + quantity("totalEnergyBurned", "the active energy (older exports)") + source + dates)

  package static let workoutEvents = TableDefinition(
    "workout_events", element: "WorkoutEvent", rows: "`WorkoutEvent` (of a workout or of a workout activity)",
    columns: [
      id, parentID, workoutID, TableColumn("type", .text, required: true, "e.g. `HKWorkoutEventTypePause`"),
      TableColumn("date", .exportDate, required: true, "when it happens"),
    ] + quantity("duration", "how long it lasts (laps, segments)"))

  package static let workoutActivities = TableDefinition(
    "workout_activities", element: "WorkoutActivity", rows: "`WorkoutActivity`",
    columns: [
      id, parentID, workoutID, TableColumn("uuid", .text, required: true, "the activity's UUID"),
      TableColumn("startDate", .exportDate, required: true, "when it starts"),
      TableColumn("endDate", .exportDate, "when it ends"),
    ] + quantity("duration", "its duration"))

  package static let workoutStatistics = TableDefinition(
    "workout_statistics", element: "WorkoutStatistics",
    rows: "`WorkoutStatistics` (of a workout or of a workout activity)",
    columns: [
      id, parentID, workoutID, TableColumn("type", .text, required: true, "the quantity type it summarises"),
      dates[1], dates[2], TableColumn("average", .number, "the average (discrete types)"),
      TableColumn("minimum", .number, "the minimum (discrete types)"),
      TableColumn("maximum", .number, "the maximum (discrete types)"),
      TableColumn("sum", .number, "the total (cumulative types)"), TableColumn("unit", .text, "the unit of the four"),
    ])

  package static let workoutRoutes = TableDefinition(
    "workout_routes", element: "WorkoutRoute", rows: "`WorkoutRoute`",
    columns: [id, parentID, workoutID] + source + dates)

  package static let fileReferences = TableDefinition(
    "file_references", element: "FileReference", rows: "`FileReference` of a route",
    columns: [id, parentID, TableColumn("path", .text, required: true, "the GPX file in the export's folder")])

  package static let metadata = TableDefinition(
    "metadata", element: "MetadataEntry", rows: "`MetadataEntry` of any element",
    columns: [
      id, parentID, workoutID, TableColumn("key", .text, required: true, "the key, e.g. `HKTimeZone`"),
      TableColumn("value", .text, required: true, "the value, always text"),
    ])

  package static let hrvLists = TableDefinition(
    "hrv_lists", element: "HeartRateVariabilityMetadataList", rows: "`HeartRateVariabilityMetadataList`",
    columns: [id, parentID])

  package static let hrvBeats = TableDefinition(
    "hrv_beats", element: "InstantaneousBeatsPerMinute", rows: "`InstantaneousBeatsPerMinute`",
    columns: [
      id, parentID, TableColumn("bpm", .integer, required: true, "beats per minute"),
      TableColumn("time", .localTime, required: true, "the local time of day, as written"),
    ])

  package static let me = TableDefinition(
    "me", element: "Me", rows: "`Me`",
    columns: [
      id, parentID,
      TableColumn("HKCharacteristicTypeIdentifierDateOfBirth", .localDay, "the date of birth, or empty when unset"),
      TableColumn("HKCharacteristicTypeIdentifierBiologicalSex", .text, "e.g. `HKBiologicalSexFemale`"),
      TableColumn("HKCharacteristicTypeIdentifierBloodType", .text, "e.g. `HKBloodTypeAPositive`"),
      TableColumn("HKCharacteristicTypeIdentifierFitzpatrickSkinType", .text, "e.g. `HKFitzpatrickSkinTypeNotSet`"),
      TableColumn("HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse", .text, "e.g. `None`"),
    ])

  package static let activitySummaries = TableDefinition(
    "activity_summaries", element: "ActivitySummary", rows: "`ActivitySummary`",
    columns: [
      id, parentID, TableColumn("dateComponents", .localDay, "the day"),
      TableColumn("activeEnergyBurned", .number, "the active energy"),
      TableColumn("activeEnergyBurnedGoal", .number, "its goal"),
      TableColumn("activeEnergyBurnedUnit", .text, "their unit"),
      TableColumn("appleMoveTime", .number, "the move time (minutes)"),
      TableColumn("appleMoveTimeGoal", .number, "its goal"),
      TableColumn("appleMoveMinutes", .number, "the move minutes (older exports)"),
      TableColumn("appleMoveMinutesGoal", .number, "its goal"),
      TableColumn("appleExerciseTime", .number, "the exercise minutes"),
      TableColumn("appleExerciseTimeGoal", .number, "its goal"),
      TableColumn("appleStandHours", .number, "the stand hours"),
      TableColumn("appleStandHoursGoal", .number, "its goal"),
    ])

  package static let clinicalRecords = TableDefinition(
    "clinical_records", element: "ClinicalRecord", rows: "`ClinicalRecord`",
    columns: [
      id, parentID, TableColumn("type", .text, "the FHIR resource type"),
      TableColumn("identifier", .text, "the provider's identifier"), sourceName.optional,
      TableColumn("sourceURL", .text, "the provider's URL"), TableColumn("fhirVersion", .text, "e.g. `4.0.1`"),
      TableColumn("receivedDate", .exportDate, "when the phone received it"),
      TableColumn("resourceFilePath", .text, "the JSON file in the export's folder"),
    ])

  package static let audiograms = TableDefinition(
    "audiograms", element: "Audiogram", rows: "`Audiogram`",
    columns: [
      id, parentID, TableColumn("type", .text, "the audiogram type"), sourceName.optional, sourceVersion, device,
    ]
      + dates.map(\.optional))

  package static let sensitivityPoints = TableDefinition(
    "sensitivity_points", element: "SensitivityPoint", rows: "`SensitivityPoint` of an audiogram",
    columns: [
      id, parentID, TableColumn("frequencyValue", .number, "the frequency"),
      TableColumn("frequencyUnit", .text, "its unit"),
    ] + ear("left") + ear("right"))

  /// The columns of one ear of a sensitivity point.
  static func ear(_ side: String) -> [TableColumn] {
    [
      TableColumn(side + "EarValue", .number, "the \(side) ear's hearing level"),
      TableColumn(side + "EarUnit", .text, "its unit"),
      TableColumn(side + "EarMasked", .text, "whether the \(side) ear's test was masked"),
      TableColumn(side + "EarClampingRangeLowerBound", .number, "the lower bound of its clamping range"),
      TableColumn(side + "EarClampingRangeUpperBound", .number, "the upper bound of its clamping range"),
    ]
  }

  package static let visionPrescriptions = TableDefinition(
    "vision_prescriptions", element: "VisionPrescription", rows: "`VisionPrescription`",
    columns: [
      id, parentID, TableColumn("type", .text, "the prescription type"),
      TableColumn("dateIssued", .exportDate, "when it was issued"),
      TableColumn("expirationDate", .exportDate, "when it expires"), TableColumn("brand", .text, "the lens brand"),
    ])

  package static let visionEyes = TableDefinition(
    "vision_eyes", element: nil, rows: "`RightEye` / `LeftEye`",
    columns: [id, parentID, TableColumn("element", .text, .structure, required: true, "`RightEye` or `LeftEye`")]
      + [
        "sphere", "cylinder", "axis", "add", "vertex", "prismAmount", "prismAngle", "farPD", "nearPD", "baseCurve",
        "diameter",
      ].flatMap { quantity($0, "the prescription's `\($0)`") })

  package static let locations = TableDefinition(
    "locations", element: "Location", rows: "legacy `Location` route point (iOS 12 and older)",
    columns: [id, parentID, TableColumn("date", .exportDate, "when the point was recorded")]
      + [
        ("latitude", "degrees north"), ("longitude", "degrees east"), ("altitude", "metres"),
        ("horizontalAccuracy", "metres"), ("verticalAccuracy", "metres"), ("course", "degrees from north"),
        ("speed", "metres per second"),
      ].map { TableColumn($0.0, .number, $0.1) })

  package static let elements = TableDefinition(
    "elements", element: nil,
    rows: "any other element (unknown elements, `Attachment`, elements whose attributes do not fit their table, "
      + "and a `Record`, `Correlation`, `Workout` or `MetadataEntry` holding text, which no table has a column for)",
    columns: [id, parentID, element, TableColumn("text", .text, .content, "the character data, empty when none")])

  package static let attributes = TableDefinition(
    "attributes", element: nil, rows: "attribute without a column",
    columns: [
      TableColumn("element_id", .integer, .structure, required: true, "the `id` of the element that has it"),
      TableColumn("name", .text, .content, required: true, "the attribute's name"),
      TableColumn("value", .text, .content, required: true, "its value"),
    ])

  /// Every table of a `--split` folder, in the README's order.
  package static let splitTables = [
    export, recordsOfType, correlations, correlationRecords, workouts, workoutEvents, workoutActivities,
    workoutStatistics, workoutRoutes, fileReferences, locations, metadata, hrvLists, hrvBeats, me, activitySummaries,
    clinicalRecords, audiograms, sensitivityPoints, visionPrescriptions, visionEyes, elements, attributes,
  ]
}
