/// What the cells of a column hold: the value type a typed writer (SQL, Parquet) maps to its own.
///
/// CSV writes every type as text; the type says how to read that text.
package enum ColumnType: Sendable, Hashable {
  /// A string, kept as written.
  case text
  /// A whole number: an id healthport assigns, the export version, a beat's `bpm`.
  case integer
  /// A decimal number, as the export writes it (`77.1003`): text in CSV, REAL or DOUBLE in a
  /// typed store.
  case number
  /// A Record's `value` as written: a quantity's number or a category's name (a typed store
  /// splits it into a number and a text).
  case numberOrText
  /// A date as the export writes it, `2016-08-05 10:00:00 +0100`: an instant and the offset the
  /// export wrote.
  case exportDate
  /// ISO 8601 in the offset the export wrote: `2016-08-05T10:00:00+01:00`.
  case isoDate
  /// An instant in UTC: `2016-08-05T09:00:00Z`.
  case instant
  /// A calendar day without a time or an offset: `2016-08-05`.
  case localDay
  /// A time of day in the phone's locale and local zone, without a date (`6:14:48.94 PM`,
  /// `00:20:37,80`): kept as text.
  case localTime
  /// JSON: an object of strings, or an array of `[name, value]` pairs when names repeat.
  case json
}

/// Where the cells of a column come from.
package enum ColumnRole: Sendable, Hashable {
  /// The row's place in the export: `id`, `parent_id`, `workout_id`, `element_id`, `element`.
  case structure
  /// The attribute of the same name of the row's element.
  case attribute
  /// Computed by healthport from other values (`sourceProduct`, UTC instants); never read back.
  case derived
  /// Other content of an element: its text, its children's, the prolog.
  case content
}

/// One column of a table healthport writes.
package struct TableColumn: Sendable, Hashable {
  package let name: String
  package let type: ColumnType
  package let role: ColumnRole
  /// True when every row healthport writes has a value; readers that read the column refuse a
  /// row without one.
  package let isRequired: Bool
  /// One line for people (the README's tables say the same).
  package let meaning: String

  package init(_ name: String, _ type: ColumnType, _ role: ColumnRole, required: Bool = false, _ meaning: String) {
    self.name = name
    self.type = type
    self.role = role
    isRequired = required
    self.meaning = meaning
  }

  /// An attribute column.
  package init(_ name: String, _ type: ColumnType, required: Bool = false, _ meaning: String) {
    self.init(name, type, .attribute, required: required, meaning)
  }

  /// The same column where rows may lack it (an element kind whose reader checks nothing).
  var optional: TableColumn { TableColumn(name, type, role, required: false, meaning) }
}

/// A table healthport writes: its name, what a row is, and its columns in order.
package struct TableDefinition: Sendable, Hashable {
  /// The table's name: a file's name without `.csv`; `<Type>` for the per-type record tables.
  package let name: String
  /// The element name of the rows (nil: several names, in an `element` column, or none).
  package let elementName: String?
  /// What one row is, for people.
  package let rows: String
  package let columns: [TableColumn]

  package init(_ name: String, element elementName: String?, rows: String, columns: [TableColumn]) {
    self.name = name
    self.elementName = elementName
    self.rows = rows
    self.columns = columns
  }

  /// The header row.
  package var columnNames: [String] { columns.map(\.name) }

  /// The position of the column called `name`.
  package func position(of name: String) -> Int? { columns.firstIndex { $0.name == name } }
}
