import HealthPort

/// The tables of a Parquet dataset: those of `--split` from the ``ColumnCatalog``, with the
/// per-type record tables gathered into one `records` table (its `type` column tells them apart),
/// and what `--split` writes to `attributes` and `elements` below a row kept on that row, in its
/// `extra` column.
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

  /// The last column of every table of elements: what the row's element holds beyond its columns.
  static let extra = TableColumn(
    "extra", .json, .content,
    "JSON, null when none: `attributes`, the attributes without a column as `[name, value]` pairs in order; "
      + "`children`, the children of no table, each `{id, element, attributes, text, children}` whole")

  /// Every top-level `Record`, of every type.
  static let records = TableDefinition(
    "records", element: "Record", rows: "top-level `Record` (of every type)",
    columns: ColumnCatalog.recordsOfType.columns + [extra])

  /// The top-level elements of no table (below a row, an element of no table is in the row's
  /// `extra`).
  static let elements = TableDefinition(
    "elements", element: nil,
    rows: "top-level element of no known kind, or whose attributes do not fit its table",
    columns: ColumnCatalog.elements.columns.filter { $0.name != "parent_id" } + [extra])

  /// In the README's order: `records` where `--split` has its per-type tables, no `attributes`
  /// (each row's are in its `extra`), then the side files' tables.
  static let all: [Entry] =
    ColumnCatalog.splitTables.compactMap { definition in
      let isGeneric =
        TableRowRouter.genericTables.values.contains(definition) || definition == ColumnCatalog.export
      switch definition {
      case ColumnCatalog.attributes: return nil
      case ColumnCatalog.recordsOfType: return Entry(definition: records, isGeneric: false)
      case ColumnCatalog.elements: return Entry(definition: elements, isGeneric: false)
      default:
        let withExtra = TableDefinition(
          definition.name, element: definition.elementName, rows: definition.rows,
          columns: definition.columns + [extra])
        return Entry(definition: withExtra, isGeneric: isGeneric)
      }
    } + ColumnCatalog.sideFileTables.map { Entry(definition: $0, isGeneric: false, isSideFile: true) }

  /// The layout of `entry` for `keys`.
  static func layout(_ entry: Entry, partitionBy keys: [PartitionKey]) throws -> ParquetTableLayout {
    try ParquetTableLayout(entry.definition, partitionBy: keys, generic: entry.isGeneric, sideFile: entry.isSideFile)
  }
}
