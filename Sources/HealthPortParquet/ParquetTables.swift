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

  /// In the README's order: `records` where `--split` has its per-type tables.
  static let all: [Entry] = ColumnCatalog.splitTables.map { definition in
    let isGeneric = TableRowRouter.genericTables.values.contains(definition) || definition == ColumnCatalog.export
    return Entry(definition: definition == ColumnCatalog.recordsOfType ? records : definition, isGeneric: isGeneric)
  }

}
