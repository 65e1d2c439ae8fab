import HealthPort

/// The tables of a Parquet dataset: those of `--split` from the ``ColumnCatalog``, with the
/// per-type record tables gathered into one `records` table (its `type` column tells them apart).
enum ParquetTables {
  /// A table of the dataset and where its values come from.
  struct Entry: Sendable {
    let definition: TableDefinition
    /// Generic elements (`export`'s `ExportDate` included): attributes that may be anything, whose
    /// dates keep a `_text` column for a value that does not parse.
    let isGeneric: Bool
    /// A side file's table (GPX, ECG): numbers and times as the file writes them, each with a
    /// `_text` column for a value that does not parse.
    var isSideFile = false
  }

  /// Every top-level `Record`, of every type.
  static let records = TableDefinition(
    "records", element: "Record", rows: "top-level `Record` (of every type)",
    columns: ColumnCatalog.recordsOfType.columns)

  /// In the README's order: `records` where `--split` has its per-type tables, then the side
  /// files' tables.
  static let all: [Entry] =
    ColumnCatalog.splitTables.map { definition in
      let isGeneric =
        TableRowRouter.genericTables.values.contains(definition) || definition == ColumnCatalog.export
      return Entry(definition: definition == ColumnCatalog.recordsOfType ? records : definition, isGeneric: isGeneric)
    } + ColumnCatalog.sideFileTables.map { Entry(definition: $0, isGeneric: false, isSideFile: true) }

  /// The layout of `entry` for `keys`.
  static func layout(_ entry: Entry, partitionBy keys: [PartitionKey]) throws -> ParquetTableLayout {
    try ParquetTableLayout(entry.definition, partitionBy: keys, generic: entry.isGeneric, sideFile: entry.isSideFile)
  }
}
