import HealthPortSQLite
import SQLiteStore

/// The tables, indexes and views of a healthport SQLite database, read from the database itself,
/// and their PostgreSQL form: the same names and columns, `bigint` for SQLite's integers,
/// `double precision` for its reals, and a generated `…_at timestamptz` beside each `…_unix`
/// instant.
struct MirrorSchema {
  enum ColumnType {
    /// `bytes` is text that holds NUL characters, which PostgreSQL's `text` cannot: `sources.source_key`
    /// (its parts joined by U+001F, a missing one written as U+0000), kept byte for byte as `bytea`.
    /// `json` is SQLite's JSON text (`ecg_recordings.header`), `jsonb` in PostgreSQL.
    case integer, real, text, bytes, json

    var postgres: String {
      switch self {
      case .integer: "bigint"
      case .real: "double precision"
      case .text: "text"
      case .bytes: "bytea"
      case .json: "jsonb"
      }
    }
  }

  struct Column {
    var name: String
    var type: ColumnType
    var notNull: Bool
  }

  struct Table {
    var name: String
    var columns: [Column]
    /// The primary key's columns, in order.
    var key: [String]
    /// `CREATE [UNIQUE] INDEX` statements, unqualified.
    var indexes: [String]
  }

  var tables: [Table] = []
  /// `(name, CREATE VIEW …)` in creation order.
  var views: [(name: String, sql: String)] = []

  /// Reads the schema of the SQLite database `db`; the indexes are those of a new healthport
  /// database (the mirror goes without ``indexesNotLoaded`` while it is loaded).
  init(_ db: SQLiteConnection) throws {
    let reference = try SQLiteDatabase.open(path: ":memory:")
    defer { try? reference.close() }
    let names = try db.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        + "AND name NOT LIKE 'healthport\\_%' ESCAPE '\\' ORDER BY rowid")
    var tableNames: [String] = []
    while try names.step() { tableNames.append(names.text(0) ?? "") }
    for name in tableNames {
      let info = try db.prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?) ORDER BY cid")
      try info.bind(1, name)
      var columns: [Column] = []
      var keyed: [(Int64, String)] = []
      while try info.step() {
        let column = info.text(0) ?? ""
        let declared = (info.text(1) ?? "").uppercased()
        let type: ColumnType =
          declared.contains("INT")
          ? .integer
          : declared.contains("REAL") || declared.contains("FLOA")
            ? .real
            : Self.binaryTextColumns.contains("\(name).\(column)")
              ? .bytes : Self.jsonColumns.contains("\(name).\(column)") ? .json : .text
        columns.append(Column(name: column, type: type, notNull: info.int64(2) != 0))
        if info.int64(3) > 0 { keyed.append((info.int64(3), column)) }
      }
      var indexes: [String] = []
      let sqls = try reference.prepare(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY rowid")
      try sqls.bind(1, name)
      // SQLite's ifnull() is PostgreSQL's coalesce().
      while try sqls.step() { indexes.append((sqls.text(0) ?? "").replacing("ifnull(", with: "coalesce(")) }
      // UNIQUE constraints written in the table (SQLite's automatic indexes).
      let uniques = try db.prepare("SELECT name FROM pragma_index_list(?) WHERE origin = 'u' ORDER BY seq")
      try uniques.bind(1, name)
      var number = 0
      while try uniques.step() {
        let index = uniques.text(0) ?? ""
        let parts = try db.prepare("SELECT name FROM pragma_index_info(?) ORDER BY seqno")
        try parts.bind(1, index)
        var indexColumns: [String] = []
        while try parts.step() { indexColumns.append(parts.text(0) ?? "") }
        number += 1
        indexes.append(
          "CREATE UNIQUE INDEX \(name)_unique_\(number) ON \(name) (\(indexColumns.joined(separator: ", ")))")
      }
      tables.append(
        Table(name: name, columns: columns, key: keyed.sorted { $0.0 < $1.0 }.map(\.1), indexes: indexes))
    }
    let viewRows = try db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'view' ORDER BY rowid")
    while try viewRows.step() { views.append((viewRows.text(0) ?? "", viewRows.text(1) ?? "")) }
  }

  /// Indexes the loader never reads through: the mirror goes without them (fewer pages to write
  /// per row), the store has them.
  static let indexesNotLoaded = ["extras_owner", "hrv_beats_record", "records_source", "route_points_workout"]

  /// The text columns that may hold NUL characters (``ColumnType/bytes``).
  static let binaryTextColumns: Set<String> = ["sources.source_key"]

  /// The text columns that hold JSON (``ColumnType/json``).
  static let jsonColumns: Set<String> = ["ecg_recordings.header"]

  /// The generated instant beside a `…_unix` column (`start_unix` → `start_at`).
  static func instantColumn(_ name: String) -> String? {
    guard name.hasSuffix("_unix") else { return nil }
    return String(name.dropLast(5)) + "_at"
  }

  /// `CREATE TABLE` for `table` in PostgreSQL (unqualified: the search path names the schema);
  /// without its primary key when `key` is false (``addKey(_:)`` adds it once the rows are in).
  static func createTable(_ table: Table, key: Bool = true) -> String {
    var lines: [String] = []
    for column in table.columns {
      var line = "\(column.name) \(column.type.postgres)"
      if column.notNull || table.key.contains(column.name) { line += " NOT NULL" }
      lines.append(line)
      if let instant = instantColumn(column.name) {
        lines.append("\(instant) timestamptz GENERATED ALWAYS AS (to_timestamp(\(column.name))) STORED")
      }
    }
    if key { lines.append("PRIMARY KEY (\(table.key.joined(separator: ", ")))") }
    return "CREATE TABLE \(table.name) (\n  " + lines.joined(separator: ",\n  ") + "\n)"
  }

  /// The name of the index that `sql` (`CREATE [UNIQUE] INDEX name ON …`) creates.
  static func indexName(_ sql: String) -> String {
    let words = sql.split(separator: " ")
    let at = words.count > 3 && words[1] == "UNIQUE" ? 3 : 2
    return words.count > at ? String(words[at]) : ""
  }

  /// The primary key of a table made by `createTable(table, key: false)`: built from the sorted
  /// rows, which is faster than keeping it up to date through a bulk `COPY`.
  static func addKey(_ table: Table) -> String {
    "ALTER TABLE \(table.name) ADD PRIMARY KEY (\(table.key.joined(separator: ", ")))"
  }

  /// A view's SQLite text in PostgreSQL: integer casts are `bigint` (PostgreSQL's `integer` is 32
  /// bits); `round(double, n)` comes from the helper function ``roundFunction`` in the schema.
  static func createView(_ sql: String) -> String {
    sql.replacing("AS INTEGER)", with: "AS BIGINT)")
  }

  /// SQLite's `round(x, n)` on a double, which PostgreSQL has only for `numeric`.
  static let roundFunction = """
    CREATE OR REPLACE FUNCTION round(value double precision, digits integer) RETURNS double precision
      LANGUAGE sql IMMUTABLE STRICT AS 'SELECT pg_catalog.round(value::numeric, digits)::double precision'
    """
}
