import HealthPort

/// SQLite's definitions of the column catalog's columns (``ColumnCatalog``): ``SQLiteSchema``'s
/// tables and the loader's insert lists take each shared column's name, SQL type and NOT NULL from
/// here, and declare only SQLite's own columns (ids, keys, bookkeeping) themselves.
///
/// A column's SQL name is its catalog name in snake_case unless SQLite's own is given. An
/// ``ColumnType/exportDate`` column becomes three: the string as written, Unix seconds and the
/// written UTC offset in minutes, named without `Date` (`creationDate` → `creation_date,
/// creation_unix, creation_offset_min`); a ``ColumnType/numberOrText`` one becomes `X_text TEXT,
/// X_num REAL`, never NOT NULL (a row has one of the two).
struct SQLiteColumns {
  /// One column of a SQLite table.
  struct SQLColumn {
    let name: String
    let type: String
    let notNull: Bool

    var definition: String { "\(name) \(type)\(notNull ? " NOT NULL" : "")" }
  }

  let table: TableDefinition

  init(_ table: TableDefinition) { self.table = table }

  /// The definitions of the named columns, in the order given, on one line.
  subscript(_ names: String...) -> String {
    names.flatMap { sqlColumns($0) }.map(\.definition).joined(separator: ", ")
  }

  /// The definitions of what one column becomes, one a line of a `CREATE TABLE` body.
  func lines(_ name: String) -> String { sqlColumns(name).map(\.definition).joined(separator: ",\n  ") }

  /// The named columns, each on its own line of a `CREATE TABLE` body (a date's three on one).
  func rows(_ names: String...) -> String { names.map { self[$0] }.joined(separator: ",\n  ") }

  /// One column under SQLite's own name, or without NOT NULL where SQLite's table has none.
  func definition(_ name: String, as sqlName: String? = nil, nullable: Bool = false) -> String {
    sqlColumns(name, as: sqlName, nullable: nullable).map(\.definition).joined(separator: ", ")
  }

  /// The SQL names of the named columns (a date's three, a value's two), for an insert list.
  func names(_ names: String...) -> [String] { self.names(names) }

  func names(_ names: [String]) -> [String] { names.flatMap { sqlColumns($0) }.map(\.name) }

  /// What the catalog column `name` becomes in SQLite.
  func sqlColumns(_ name: String, as sqlName: String? = nil, nullable: Bool = false) -> [SQLColumn] {
    let column = table.column(name)
    let sqlName = sqlName ?? Self.sqlName(of: column)
    let notNull = column.isRequired && !nullable
    switch column.type {
    case .exportDate:
      return [
        SQLColumn(name: sqlName + "_date", type: "TEXT", notNull: notNull),
        SQLColumn(name: sqlName + "_unix", type: "INTEGER", notNull: notNull),
        SQLColumn(name: sqlName + "_offset_min", type: "INTEGER", notNull: notNull),
      ]
    case .numberOrText:
      return [
        SQLColumn(name: sqlName + "_text", type: "TEXT", notNull: false),
        SQLColumn(name: sqlName + "_num", type: "REAL", notNull: false),
      ]
    case .integer: return [SQLColumn(name: sqlName, type: "INTEGER", notNull: notNull)]
    case .number: return [SQLColumn(name: sqlName, type: "REAL", notNull: notNull)]
    case .text, .isoDate, .instant, .localDay, .localTime, .json:
      return [SQLColumn(name: sqlName, type: "TEXT", notNull: notNull)]
    }
  }

  /// HealthKit's prefix of the `Me` columns, which SQLite's names leave out (`date_of_birth`).
  static let characteristicPrefix = "HKCharacteristicTypeIdentifier"

  /// The `Me` columns in the catalog's order, which is SQLite's.
  static let characteristics = ColumnCatalog.me.columnNames.filter { $0.hasPrefix(characteristicPrefix) }

  static func sqlName(of column: TableColumn) -> String {
    if column.name.hasPrefix(characteristicPrefix) {
      return TableColumn.snakeCase(String(column.name.dropFirst(characteristicPrefix.count)))
    }
    if column.type == .exportDate, column.name.hasSuffix("Date"), column.name != "Date" {
      return TableColumn.snakeCase(String(column.name.dropLast(4)))
    }
    return column.snakeCaseName
  }
}

/// The catalog's table each SQLite table takes its shared columns from.
extension SQLiteColumns {
  static let exports = SQLiteColumns(ColumnCatalog.export)
  /// `sources` holds the source columns every sample carries, under SQLite's shorter names.
  static let sources = SQLiteColumns(ColumnCatalog.recordsOfType)
  static let records = SQLiteColumns(ColumnCatalog.recordsOfType)
  static let metadata = SQLiteColumns(ColumnCatalog.metadata)
  static let hrvBeats = SQLiteColumns(ColumnCatalog.hrvBeats)
  static let correlations = SQLiteColumns(ColumnCatalog.correlations)
  static let correlationRecords = SQLiteColumns(ColumnCatalog.correlationRecords)
  static let workouts = SQLiteColumns(ColumnCatalog.workouts)
  static let workoutActivities = SQLiteColumns(ColumnCatalog.workoutActivities)
  static let workoutEvents = SQLiteColumns(ColumnCatalog.workoutEvents)
  static let workoutStatistics = SQLiteColumns(ColumnCatalog.workoutStatistics)
  static let workoutRoutes = SQLiteColumns(ColumnCatalog.workoutRoutes)
  /// A route's first `FileReference` is its `file_path`.
  static let fileReferences = SQLiteColumns(ColumnCatalog.fileReferences)
  static let locations = SQLiteColumns(ColumnCatalog.locations)
  static let activitySummaries = SQLiteColumns(ColumnCatalog.activitySummaries)
  static let me = SQLiteColumns(ColumnCatalog.me)
}
