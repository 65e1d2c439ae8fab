import HealthPort

/// The tables of a Parquet dataset: those of `--split` from the ``ColumnCatalog``, with the
/// per-type record tables gathered into one `records` table (its `type` column tells them apart).
enum ParquetTables {
  /// A table of the dataset and whether its rows are generic elements (`export`'s `ExportDate`
  /// included): attributes that may be anything, whose dates keep a `_text` column for a value
  /// that does not parse.
  struct Entry: Sendable {
    let definition: TableDefinition
    let isGeneric: Bool
  }

  /// Every top-level `Record`, of every type.
  static let records = TableDefinition(
    "records", element: "Record", rows: "top-level `Record` (of every type)",
    columns: ColumnCatalog.recordsOfType.columns)

  /// The generic element kinds, by element name (their rows' attributes fill the table's
  /// columns when they fit, else the element goes to `elements` and `attributes`).
  static let genericTables: [String: TableDefinition] = [
    "Me": ColumnCatalog.me, "ActivitySummary": ColumnCatalog.activitySummaries,
    "ClinicalRecord": ColumnCatalog.clinicalRecords, "Audiogram": ColumnCatalog.audiograms,
    "SensitivityPoint": ColumnCatalog.sensitivityPoints, "VisionPrescription": ColumnCatalog.visionPrescriptions,
    "RightEye": ColumnCatalog.visionEyes, "LeftEye": ColumnCatalog.visionEyes, "Location": ColumnCatalog.locations,
  ]

  /// In the README's order: `records` where `--split` has its per-type tables.
  static let all: [Entry] = ColumnCatalog.splitTables.map { definition in
    let isGeneric = genericTables.values.contains(definition) || definition == ColumnCatalog.export
    return Entry(definition: definition == ColumnCatalog.recordsOfType ? records : definition, isGeneric: isGeneric)
  }

  /// The columns of a generic table that hold its element's attributes, in the Health app's order.
  static func attributeColumns(of definition: TableDefinition) -> [String] {
    definition.columns.filter { $0.role == .attribute || $0.role == .derived }.map(\.name)
  }
}
