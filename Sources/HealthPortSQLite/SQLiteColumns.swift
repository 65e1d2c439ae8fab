import HealthPort

/// SQLite's definitions of the column catalog's columns (``ColumnCatalog``): ``SQLiteSchema``'s
/// tables and the loader's insert lists take each shared column's name, SQL type and NOT NULL from
/// here, and declare only SQLite's own columns (ids, keys, bookkeeping) themselves.
///
/// A column's SQL name is its catalog name in snake_case unless SQLite's own is given. An
/// ``ColumnType/exportDate`` column becomes the triple of ``SQLiteSchema/date(_:required:)``,
/// named without `Date` (`creationDate` → `creation_date, creation_unix, creation_offset_min`); a
/// ``ColumnType/numberOrText`` one becomes `X_text TEXT, X_num REAL`, never NOT NULL (a row has one).
struct SQLiteColumns {
  let table: TableDefinition

  init(_ table: TableDefinition) { self.table = table }

  /// The definitions of the named columns, in the order given, on one line.
  subscript(_ names: String...) -> String {
    names.flatMap { Self.definitions(table.column($0), named: Self.sqlName(of: table.column($0))) }
      .joined(separator: ", ")
  }

  /// The definitions of one column, one a line of a `CREATE TABLE` body.
  func lines(_ name: String) -> String {
    let column = table.column(name)
    return Self.definitions(column, named: Self.sqlName(of: column)).joined(separator: ",\n  ")
  }

  /// One column under SQLite's own name, or without NOT NULL where SQLite's table has none.
  func definition(_ name: String, as sqlName: String? = nil, nullable: Bool = false) -> String {
    let column = table.column(name)
    return Self.definitions(column, named: sqlName ?? Self.sqlName(of: column), nullable: nullable)
      .joined(separator: ", ")
  }

  /// The SQL names of the named columns (a date's three, a value's two), for an insert list.
  func names(_ names: String...) -> [String] { self.names(names) }

  func names(_ names: [String]) -> [String] {
    names.flatMap { name in
      let column = table.column(name)
      let sqlName = Self.sqlName(of: column)
      switch column.type {
      case .exportDate: return Statements.date(sqlName)
      case .numberOrText: return [sqlName + "_text", sqlName + "_num"]
      default: return [sqlName]
      }
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

  static func definitions(_ column: TableColumn, named sqlName: String, nullable: Bool = false) -> [String] {
    let notNull = column.isRequired && !nullable
    let null = notNull ? " NOT NULL" : ""
    switch column.type {
    case .exportDate: return [SQLiteSchema.date(sqlName, required: notNull)]
    case .numberOrText: return ["\(sqlName)_text TEXT", "\(sqlName)_num REAL"]
    case .integer: return ["\(sqlName) INTEGER\(null)"]
    case .number: return ["\(sqlName) REAL\(null)"]
    case .text, .isoDate, .instant, .localDay, .localTime, .json: return ["\(sqlName) TEXT\(null)"]
    }
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
