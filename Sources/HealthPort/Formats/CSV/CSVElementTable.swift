/// Another tool's table of Workouts or of ActivitySummaries (tdda/applehealthdata's `Workout.csv`
/// and `ActivitySummary.csv`), told by its header: without a type column, a `workoutActivityType`
/// column makes a table of `Workout`s and a `dateComponents` column one of `ActivitySummary`s.
///
/// Each row is one top-level element. Its attributes are the non-empty cells of the columns named
/// as the element's attributes in the export (``ColumnCatalog``'s attribute columns, matched as
/// ``CSVRecordsReader/normalize(_:)`` matches headers), in the export's attribute order; other
/// columns are ignored. A Workout without a `sourceName` cell takes the table's default source,
/// as a Record does. The ``ElementBuilder`` checks what it checks in XML (a Workout's activity
/// type and dates, in the export's form).
struct CSVElementTable {
  /// The element of every row (`Workout` or `ActivitySummary`), as bytes for the builder.
  let element: [UInt8]
  /// The columns that hold an attribute, in the export's attribute order.
  private let cells: [(column: Int, name: String)]
  private let sourceName: String?

  /// The table that a header names, or nil when it is not a Workout or ActivitySummary table
  /// (it has a type column, or neither `workoutActivityType` nor `dateComponents`).
  init?(header: [String], columns: [CSVRecordsReader.Field: Int]) {
    guard columns[.type] == nil else { return nil }
    let normalized = header.map(CSVRecordsReader.normalize)
    let definition: TableDefinition
    if normalized.contains("workoutactivitytype") {
      definition = ColumnCatalog.workouts
      sourceName = "sourceName"
    } else if normalized.contains("datecomponents") {
      definition = ColumnCatalog.activitySummaries
      sourceName = nil
    } else {
      return nil
    }
    element = Array((definition.elementName ?? "").utf8)
    cells = definition.columns.filter { $0.role == .attribute }.compactMap { attribute in
      normalized.firstIndex(of: CSVRecordsReader.normalize(attribute.name)).map { ($0, attribute.name) }
    }
  }

  /// Reads a table's rows into `builder` (its `<HealthData>` already started).
  final class Feed {
    private let table: CSVElementTable
    private let reader: CSVRowReader
    /// A row's cells as the builder reads them (no Records here: the value rule is moot).
    private let attributes = CSVRecordAttributes(cells: OwnedAttributes(), recordValueRule: .unchecked)
    private let names: [OwnedAttributes.Name]
    private let sourceName: OwnedAttributes.Name?
    private let defaultSource: [UInt8]

    init(_ table: CSVElementTable, reader: CSVRowReader, defaultSource: String) {
      self.table = table
      self.reader = reader
      let cells = attributes.cells
      names = table.cells.map { cells.name($0.name) }
      sourceName = table.sourceName.map { cells.name($0) }
      self.defaultSource = Array(defaultSource.utf8)
    }

    /// The current row as one element. Throws the builder's complaint, placed at the column it names.
    func row(into builder: ElementBuilder) throws {
      let cells = attributes.cells
      cells.removeAll()
      var hasSource = false
      for (index, cell) in table.cells.enumerated() where !reader.isEmpty(cell.column) {
        reader.withField(cell.column) { cells.append(names[index], value: $0) }
        if cell.name == table.sourceName { hasSource = true }
      }
      // A Workout is a typed element: the order of its attributes is the writers' own.
      if let sourceName, !hasSource {
        defaultSource.withUnsafeBufferPointer { cells.append(sourceName, value: $0) }
      }
      do {
        try table.element.withUnsafeBufferPointer {
          try builder.startElement(ByteView($0), attributes: attributes)
          try builder.endElement(ByteView($0))
        }
      } catch let error as ExportDataError {
        let column = table.cells.first {
          error.message.contains(" \($0.name) \"") || error.message.contains("'\($0.name)'")
        }
        throw reader.error(column: (column?.column ?? 0) + 1, error.message)
      }
    }
  }
}
