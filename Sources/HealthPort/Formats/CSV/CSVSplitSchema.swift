/// The tables of a `convert --split` folder: file names and columns (from ``ColumnCatalog``),
/// shared by ``CSVSplitWriter`` and ``CSVSplitReader``. The README's "Tables" section documents
/// each one.
///
/// Every element of the export gets an `id`: its position in document order (the root
/// `HealthData` is 0, its first child 1, and so on depth-first over every element). Child
/// tables name their parent in `parent_id` (empty for a child of `HealthData`). Each table is
/// written in id order, so a k-way merge by id rebuilds the document.
enum CSVSplitSchema {
  /// The Record columns of the record tables, after `id` (and `parent_id`).
  static let recordColumns = ColumnCatalog.recordAttributes.map(\.name)

  /// The tables with a fixed name.
  enum Table: Int, CaseIterable {
    case export, correlations, correlationRecords, workouts, workoutEvents, workoutActivities, workoutStatistics
    case workoutRoutes, fileReferences, metadata, hrvLists, hrvBeats
    case me, activitySummaries, clinicalRecords, audiograms, sensitivityPoints, visionPrescriptions, visionEyes
    case locations, elements, attributes

    /// The table's columns, from the catalog.
    var definition: TableDefinition {
      switch self {
      case .export: ColumnCatalog.export
      case .correlations: ColumnCatalog.correlations
      case .correlationRecords: ColumnCatalog.correlationRecords
      case .workouts: ColumnCatalog.workouts
      case .workoutEvents: ColumnCatalog.workoutEvents
      case .workoutActivities: ColumnCatalog.workoutActivities
      case .workoutStatistics: ColumnCatalog.workoutStatistics
      case .workoutRoutes: ColumnCatalog.workoutRoutes
      case .fileReferences: ColumnCatalog.fileReferences
      case .metadata: ColumnCatalog.metadata
      case .hrvLists: ColumnCatalog.hrvLists
      case .hrvBeats: ColumnCatalog.hrvBeats
      case .me: ColumnCatalog.me
      case .activitySummaries: ColumnCatalog.activitySummaries
      case .clinicalRecords: ColumnCatalog.clinicalRecords
      case .audiograms: ColumnCatalog.audiograms
      case .sensitivityPoints: ColumnCatalog.sensitivityPoints
      case .visionPrescriptions: ColumnCatalog.visionPrescriptions
      case .visionEyes: ColumnCatalog.visionEyes
      case .locations: ColumnCatalog.locations
      case .elements: ColumnCatalog.elements
      case .attributes: ColumnCatalog.attributes
      }
    }

    /// What the writer and the reader look up per row, worked out once from ``definition``.
    private struct Layout {
      let fileName: String
      let elementName: String?
      let columns: [String]
      /// The headers the reader takes, with the columns each stands for: with or without the
      /// derived `<stem>ISO`, `<stem>UTC` (folders written before them) and `workout_id`.
      let headers: [(names: [String], columns: [TableColumn], hasWorkoutColumn: Bool)]
      let attributeColumns: [String]
      /// For each of ``attributeColumns``, whether it is a date in the export's form.
      let attributeDates: [Bool]
      let hasParentColumn: Bool
      let hasWorkoutColumn: Bool

      init(_ definition: TableDefinition) {
        fileName = definition.name + ".csv"
        elementName = definition.elementName
        let derived = CSVSplitDates.withDerived(definition.columns)
        columns = derived.map(\.name)
        hasParentColumn = columns.contains(ColumnCatalog.parentID.name)
        hasWorkoutColumn = columns.contains(ColumnCatalog.workoutID.name)
        var headers: [(names: [String], columns: [TableColumn], hasWorkoutColumn: Bool)] = []
        for variant in [derived, definition.columns] {
          headers.append((variant.map(\.name), variant, hasWorkoutColumn))
          if hasWorkoutColumn {
            let legacy = variant.filter { $0.name != ColumnCatalog.workoutID.name }
            headers.append((legacy.map(\.name), legacy, false))
          }
        }
        self.headers = headers
        let attributes = definition.columns.filter { $0.role == .attribute || $0.role == .derived }
        attributeColumns = attributes.map(\.name)
        attributeDates = attributes.map { $0.type == .exportDate }
      }
    }

    private static let layouts = allCases.map { Layout($0.definition) }

    var fileName: String { Self.layouts[rawValue].fileName }

    /// The element name of the rows (nil: several names, in an `element` column).
    var elementName: String? { Self.layouts[rawValue].elementName }

    /// The columns that hold the row element's attributes (derived ones such as `sourceProduct`
    /// included), in the order the Health app writes them: after `id`, `parent_id`,
    /// `workout_id` and, for `vision_eyes`, `element`.
    var attributeColumns: [String] { Self.layouts[rawValue].attributeColumns }

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
    var hasParentColumn: Bool { Self.layouts[rawValue].hasParentColumn }

    /// Tables whose rows may belong to a workout have a `workout_id` column after `parent_id`:
    /// the id of the enclosing `Workout` (empty for a `metadata.csv` row outside any workout),
    /// so that one join reaches every event, activity, statistic, route and metadata entry of a
    /// workout, also those nested in a `WorkoutActivity`. It is derived from the nesting, and
    /// reading ignores it.
    var hasWorkoutColumn: Bool { Self.layouts[rawValue].hasWorkoutColumn }

    /// The full header row.
    var columns: [String] { Self.layouts[rawValue].columns }

    /// The columns of a header the reader takes (this version's, or one written before the
    /// derived dates or `workout_id`), and whether it has `workout_id`; nil for any other.
    func readColumns(header: [String]) -> (columns: [TableColumn], hasWorkoutColumn: Bool)? {
      Self.layouts[rawValue].headers.first { $0.names == header }.map { ($0.columns, $0.hasWorkoutColumn) }
    }

    /// For each of ``attributeColumns``, whether it is a date in the export's form (followed by
    /// its derived `<stem>ISO` and `<stem>UTC`).
    var attributeDates: [Bool] { Self.layouts[rawValue].attributeDates }

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

  /// The columns of a per-type record table, dates followed by their derived ISO and UTC forms.
  static let recordTableDefinition = CSVSplitDates.withDerived(ColumnCatalog.recordsOfType.columns)

  /// The header of a per-type record table.
  static let recordTableColumns = recordTableDefinition.map(\.name)

  /// The columns of a record table's header the reader takes (this version's, or one written
  /// before the derived dates); nil for any other.
  static func recordReadColumns(header: [String]) -> [TableColumn]? {
    if header == recordTableColumns { return recordTableDefinition }
    if header == ColumnCatalog.recordsOfType.columnNames { return ColumnCatalog.recordsOfType.columns }
    return nil
  }

  /// The file name (without `.csv`) of the table of top-level Records of `type`: the type
  /// identifier's short name (``KnownNames/shortTypeName(_:)``: without its
  /// `HKQuantityTypeIdentifier`, `HKCategoryTypeIdentifier`, `HKCorrelationTypeIdentifier` or
  /// `HKDataType` prefix). Characters other than letters,
  /// digits, `_`, `-` and `.` become `_`; a name that is empty, starts with `.` or equals a
  /// fixed table's name (ignoring case) gets a `record_` prefix. Types that end up with the same
  /// name (ignoring case) share a table; its `type` column tells them apart.
  static func recordTableName(for type: String) -> String {
    let result = FileNames.sanitized(KnownNames.shortTypeName(type))
    let reserved = Set((Table.allCases.map(\.definition) + ColumnCatalog.sideFileTables).map(\.name))
    if result.isEmpty || result.hasPrefix(".") || reserved.contains(result.lowercased()) || result.utf8.count > 200 {
      return "record_" + String(result.prefix(200))
    }
    return result
  }
}
