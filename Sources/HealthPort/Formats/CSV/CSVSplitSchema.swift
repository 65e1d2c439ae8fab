/// The tables of a `convert --split` folder: file names and columns, shared by
/// ``CSVSplitWriter`` and the split-folder reader. The README's "Tables" section documents each one.
///
/// Every element of the export gets an `id`: its position in document order (the root
/// `HealthData` is 0, its first child 1, and so on depth-first over every element). Child
/// tables name their parent in `parent_id` (empty for a child of `HealthData`). Each table is
/// written in id order, so a k-way merge by id rebuilds the document.
enum CSVSplitSchema {
  static let recordColumns = [
    "type", "sourceName", "sourceVersion", "sourceProduct", "device", "unit", "value", "creationDate", "startDate",
    "endDate",
  ]

  /// The tables with a fixed name.
  enum Table: Int, CaseIterable {
    case export, correlations, correlationRecords, workouts, workoutEvents, workoutActivities, workoutStatistics
    case workoutRoutes, fileReferences, metadata, hrvLists, hrvBeats
    case me, activitySummaries, clinicalRecords, audiograms, sensitivityPoints, visionPrescriptions, visionEyes
    case locations, elements, attributes

    var fileName: String {
      switch self {
      case .export: "export.csv"
      case .correlations: "correlations.csv"
      case .correlationRecords: "correlation_records.csv"
      case .workouts: "workouts.csv"
      case .workoutEvents: "workout_events.csv"
      case .workoutActivities: "workout_activities.csv"
      case .workoutStatistics: "workout_statistics.csv"
      case .workoutRoutes: "workout_routes.csv"
      case .fileReferences: "file_references.csv"
      case .metadata: "metadata.csv"
      case .hrvLists: "hrv_lists.csv"
      case .hrvBeats: "hrv_beats.csv"
      case .me: "me.csv"
      case .activitySummaries: "activity_summaries.csv"
      case .clinicalRecords: "clinical_records.csv"
      case .audiograms: "audiograms.csv"
      case .sensitivityPoints: "sensitivity_points.csv"
      case .visionPrescriptions: "vision_prescriptions.csv"
      case .visionEyes: "vision_eyes.csv"
      case .locations: "locations.csv"
      case .elements: "elements.csv"
      case .attributes: "attributes.csv"
      }
    }

    /// The element name of the rows (nil: several names, in an `element` column).
    var elementName: String? {
      switch self {
      case .export, .visionEyes, .elements, .attributes: nil
      case .correlations: "Correlation"
      case .correlationRecords: "Record"
      case .workouts: "Workout"
      case .workoutEvents: "WorkoutEvent"
      case .workoutActivities: "WorkoutActivity"
      case .workoutStatistics: "WorkoutStatistics"
      case .workoutRoutes: "WorkoutRoute"
      case .fileReferences: "FileReference"
      case .metadata: "MetadataEntry"
      case .hrvLists: "HeartRateVariabilityMetadataList"
      case .hrvBeats: "InstantaneousBeatsPerMinute"
      case .me: "Me"
      case .activitySummaries: "ActivitySummary"
      case .clinicalRecords: "ClinicalRecord"
      case .audiograms: "Audiogram"
      case .sensitivityPoints: "SensitivityPoint"
      case .visionPrescriptions: "VisionPrescription"
      case .locations: "Location"
      }
    }

    /// The attribute columns, in the order the Health app writes them (after `id`,
    /// `parent_id` and, for `vision_eyes`, `element`).
    var attributeColumns: [String] {
      switch self {
      case .export: []
      case .correlations:
        ["type", "sourceName", "sourceVersion", "sourceProduct", "device", "creationDate", "startDate", "endDate"]
      case .correlationRecords: CSVSplitSchema.recordColumns
      case .workouts:
        [
          "workoutActivityType", "duration", "durationUnit", "totalDistance", "totalDistanceUnit", "totalEnergyBurned",
          "totalEnergyBurnedUnit", "sourceName", "sourceVersion", "sourceProduct", "device", "creationDate",
          "startDate", "endDate",
        ]
      case .workoutEvents: ["type", "date", "duration", "durationUnit"]
      case .workoutActivities: ["uuid", "startDate", "endDate", "duration", "durationUnit"]
      case .workoutStatistics: ["type", "startDate", "endDate", "average", "minimum", "maximum", "sum", "unit"]
      case .workoutRoutes:
        ["sourceName", "sourceVersion", "sourceProduct", "device", "creationDate", "startDate", "endDate"]
      case .fileReferences: ["path"]
      case .metadata: ["key", "value"]
      case .hrvLists: []
      case .hrvBeats: ["bpm", "time"]
      case .me:
        [
          "HKCharacteristicTypeIdentifierDateOfBirth", "HKCharacteristicTypeIdentifierBiologicalSex",
          "HKCharacteristicTypeIdentifierBloodType", "HKCharacteristicTypeIdentifierFitzpatrickSkinType",
          "HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse",
        ]
      case .activitySummaries:
        [
          "dateComponents", "activeEnergyBurned", "activeEnergyBurnedGoal", "activeEnergyBurnedUnit", "appleMoveTime",
          "appleMoveTimeGoal", "appleMoveMinutes", "appleMoveMinutesGoal", "appleExerciseTime",
          "appleExerciseTimeGoal", "appleStandHours", "appleStandHoursGoal",
        ]
      case .clinicalRecords:
        ["type", "identifier", "sourceName", "sourceURL", "fhirVersion", "receivedDate", "resourceFilePath"]
      case .audiograms: ["type", "sourceName", "sourceVersion", "device", "creationDate", "startDate", "endDate"]
      case .sensitivityPoints:
        [
          "frequencyValue", "frequencyUnit", "leftEarValue", "leftEarUnit", "leftEarMasked",
          "leftEarClampingRangeLowerBound", "leftEarClampingRangeUpperBound", "rightEarValue", "rightEarUnit",
          "rightEarMasked", "rightEarClampingRangeLowerBound", "rightEarClampingRangeUpperBound",
        ]
      case .visionPrescriptions: ["type", "dateIssued", "expirationDate", "brand"]
      case .visionEyes:
        [
          "sphere", "sphereUnit", "cylinder", "cylinderUnit", "axis", "axisUnit", "add", "addUnit", "vertex",
          "vertexUnit", "prismAmount", "prismAmountUnit", "prismAngle", "prismAngleUnit", "farPD", "farPDUnit",
          "nearPD", "nearPDUnit", "baseCurve", "baseCurveUnit", "diameter", "diameterUnit",
        ]
      case .locations:
        ["date", "latitude", "longitude", "altitude", "horizontalAccuracy", "verticalAccuracy", "course", "speed"]
      case .elements: ["text"]
      case .attributes: ["name", "value"]
      }
    }

    /// Tables whose rows are generic elements (attributes kept in the Health app's order).
    var isGenericKind: Bool {
      switch self {
      case .me, .activitySummaries, .clinicalRecords, .audiograms, .sensitivityPoints, .visionPrescriptions,
        .visionEyes, .locations:
        true
      default: false
      }
    }

    /// Top-level-only typed tables have no `parent_id` column.
    var hasParentColumn: Bool {
      switch self {
      case .export, .correlations, .workouts, .attributes: false
      default: true
      }
    }

    /// Tables whose rows may belong to a workout have a `workout_id` column after `parent_id`:
    /// the id of the enclosing `Workout` (empty for a `metadata.csv` row outside any workout),
    /// so that one join reaches every event, activity, statistic, route and metadata entry of a
    /// workout, also those nested in a `WorkoutActivity`. It is derived from the nesting, and
    /// reading ignores it.
    var hasWorkoutColumn: Bool {
      switch self {
      case .workoutEvents, .workoutActivities, .workoutStatistics, .workoutRoutes, .metadata: true
      default: false
      }
    }

    /// The full header row.
    var columns: [String] {
      hasWorkoutColumn ? ["id", "parent_id", "workout_id"] + attributeColumns : legacyColumns
    }

    /// The header row of folders written before `workout_id` (still read): ``columns`` without it.
    var legacyColumns: [String] {
      switch self {
      case .export: ["id", "element", "value", "locale", "exportVersion", "attributes", "prolog"]
      case .attributes: ["element_id", "name", "value"]
      case .elements: ["id", "parent_id", "element", "text"]
      case .visionEyes: ["id", "parent_id", "element"] + attributeColumns
      default: ["id"] + (hasParentColumn ? ["parent_id"] : []) + attributeColumns
      }
    }

    /// The generic-kind table for an element name.
    static func genericKind(named name: String) -> Table? {
      switch name {
      case "Me": .me
      case "ActivitySummary": .activitySummaries
      case "ClinicalRecord": .clinicalRecords
      case "Audiogram": .audiograms
      case "SensitivityPoint": .sensitivityPoints
      case "VisionPrescription": .visionPrescriptions
      case "RightEye", "LeftEye": .visionEyes
      case "Location": .locations
      default: nil
      }
    }
  }

  /// The header of a per-type record table.
  static let recordTableColumns = ["id"] + recordColumns

  /// The file name (without `.csv`) of the table of top-level Records of `type`: the type
  /// identifier without its `HKQuantityTypeIdentifier`, `HKCategoryTypeIdentifier`,
  /// `HKCorrelationTypeIdentifier` or `HKDataType` prefix. Characters other than letters,
  /// digits, `_`, `-` and `.` become `_`; a name that is empty, starts with `.` or equals a
  /// fixed table's name (ignoring case) gets a `record_` prefix. Types that end up with the same
  /// name (ignoring case) share a table; its `type` column tells them apart.
  static func recordTableName(for type: String) -> String {
    var name = Substring(type)
    for prefix in ["HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKCorrelationTypeIdentifier", "HKDataType"]
    where name.hasPrefix(prefix) && name.count > prefix.count {
      name = name.dropFirst(prefix.count)
      break
    }
    var bytes = Array(name.utf8)
    for index in bytes.indices {
      let byte = bytes[index]
      let allowed =
        (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte)
        || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
      if !allowed { bytes[index] = UInt8(ascii: "_") }
    }
    let result = String(decoding: bytes, as: UTF8.self)
    let reserved = Set(Table.allCases.map { String($0.fileName.dropLast(4)) })
    if result.isEmpty || result.hasPrefix(".") || reserved.contains(result.lowercased()) || bytes.count > 200 {
      return "record_" + String(result.prefix(200))
    }
    return result
  }
}
