extension CSVRecordsReader {
  /// The table being read: its row reader, where each field is, and the defaults of a foreign file.
  struct Table {
    let reader: CSVRowReader
    let columns: [Field: Int]
    /// healthport's own table (`,"",` is a present empty value), in today's layout or an earlier one.
    let isOwn: Bool
    /// Today's layout, whose value is split into `value` and `valueText`.
    let isCurrent: Bool
    let defaultType: String?
    let defaultSource: String
    /// Another tool's type names, short ones expanded; nil in healthport's own table (read as written).
    let typeNames: CSVTypeNames?

    /// Whether the cell holds a value: present (`""` included) in healthport's own table,
    /// non-empty in any other.
    @inline(__always)
    func has(_ column: Int) -> Bool { isOwn ? !reader.isAbsent(column) : !reader.isEmpty(column) }

    /// The first problem of the current row, worded and placed as this reader always has (its
    /// checks in their order, made again on the error path only); `fallback` at column 1 when
    /// none of them fails.
    func firstError(else fallback: String) -> HealthPortError {
      do {
        try check()
      } catch let error as HealthPortError {
        return error
      } catch {}
      return reader.error(column: 1, fallback)
    }

    private func text(_ field: Field) -> String? {
      guard let column = columns[field], has(column) else { return nil }
      return reader.string(column)
    }

    private func date(_ field: Field) throws -> HealthDate? {
      guard let column = columns[field], has(column) else { return nil }
      guard let date = reader.withField(column, { HealthDate.flexible(UnsafeRawBufferPointer($0)) }) else {
        throw reader.error(
          column: column + 1,
          "\(field.displayName) \"\(reader.string(column))\" is not a date (YYYY-MM-DD HH:MM:SS ±HHMM or ISO 8601 such as 2024-01-02T03:04:05Z)"
        )
      }
      return date
    }

    private func check() throws {
      guard let type = text(.type).map({ typeNames?.expanded($0) ?? $0 }) ?? defaultType else {
        throw reader.error(column: (columns[.type] ?? 0) + 1, .emptyTypeInCSV)
      }
      guard try date(.startDate) != nil else {
        throw reader.error(column: (columns[.startDate] ?? 0) + 1, "the start date is empty")
      }
      let end = try date(.endDate)
      if isOwn, end == nil { throw reader.error(column: (columns[.endDate] ?? 0) + 1, "the end date is empty") }
      if isOwn, text(.sourceName) == nil {
        throw reader.error(column: (columns[.sourceName] ?? 0) + 1, "the source name is empty")
      }
      if isCurrent {
        try checkCurrentValue()
      } else if !isOwn, type.hasPrefix("HKQuantityTypeIdentifier") {
        // A foreign file may be a re-saved healthport table: names are then in `valueText`.
        let column = (columns[.value] ?? 0) + 1
        guard let value = text(.value) ?? text(.valueText) else {
          let why = columns[.value] == nil ? " (the header has no value column)" : ""
          throw reader.error(column: column, "\(type) needs a value\(why)")
        }
        guard let number = Double(value.trimmingSpaces), number.isFinite else {
          throw reader.error(column: column, "the value \"\(value)\" of \(type) is not a number")
        }
      }
      _ = try date(.creationDate)
    }

    /// Today's table holds a number in `value` or a text in `valueText`, never both.
    private func checkCurrentValue() throws {
      let numberColumn = CSVRecordsTable.valueColumn
      let textColumn = CSVRecordsTable.valueTextColumn
      guard !reader.isEmpty(numberColumn) else { return }
      guard reader.isAbsent(textColumn) else {
        throw reader.error(column: textColumn + 1, "a row has both a value and a valueText; keep one")
      }
      guard reader.withField(numberColumn, CSVRecordsTable.numberText) != nil else {
        throw reader.error(column: numberColumn + 1, "the value \"\(reader.string(numberColumn))\" is not a number")
      }
    }
  }

  /// Puts a row's cells into the attributes the ``ElementBuilder`` reads, named as the export
  /// names them, with a foreign file's defaults for what the row leaves out. Checks nothing
  /// the builder checks.
  final class RecordFeed {
    private let table: Table
    private let cells: OwnedAttributes
    private let type: OwnedAttributes.Name
    private let sourceName: OwnedAttributes.Name
    private let startDate: OwnedAttributes.Name
    private let endDate: OwnedAttributes.Name
    private let value: OwnedAttributes.Name
    private let key: OwnedAttributes.Name
    private let typeColumn: Int?
    private let sourceColumn: Int?
    private let startColumn: Int?
    private let endColumn: Int?
    private let valueColumn: Int?
    private let valueTextColumn: Int?
    /// The fields copied as they are when present.
    private let plainCells: [(column: Int, name: OwnedAttributes.Name)]
    private let defaultType: [UInt8]?
    private let defaultSource: [UInt8]

    init(table: Table, cells: OwnedAttributes) {
      self.table = table
      self.cells = cells
      type = cells.name("type")
      sourceName = cells.name("sourceName")
      startDate = cells.name("startDate")
      endDate = cells.name("endDate")
      value = cells.name("value")
      key = cells.name("key")
      typeColumn = table.columns[.type]
      sourceColumn = table.columns[.sourceName]
      startColumn = table.columns[.startDate]
      endColumn = table.columns[.endDate]
      valueColumn = table.columns[.value]
      valueTextColumn = table.columns[.valueText]
      plainCells = [Field.sourceVersion, .device, .unit, .creationDate].compactMap { field in
        table.columns[field].map { ($0, cells.name(field.displayName)) }
      }
      defaultType = table.defaultType.map { Array($0.utf8) }
      defaultSource = Array(table.defaultSource.utf8)
    }

    /// The current row's Record attributes. False when today's table has a value that cannot
    /// be read (beside a valueText, or not a number); ``Table/firstError(else:)`` says why.
    func fillRecord() -> Bool {
      let reader = table.reader
      cells.removeAll()
      if let column = typeColumn, table.has(column) {
        if let names = table.typeNames, let expanded = reader.withField(column, names.expansion) {
          expanded.withUnsafeBufferPointer { cells.append(type, value: $0) }
        } else {
          copy(column, as: type)
        }
      } else if let defaultType {
        defaultType.withUnsafeBufferPointer { cells.append(type, value: $0) }
      }
      if let column = sourceColumn, table.has(column) {
        copy(column, as: sourceName)
      } else if !table.isOwn {
        defaultSource.withUnsafeBufferPointer { cells.append(sourceName, value: $0) }
      }
      for (column, name) in plainCells where table.has(column) { copy(column, as: name) }
      let start = startColumn.flatMap { table.has($0) ? $0 : nil }
      if let start { copy(start, as: startDate) }
      if let column = endColumn, table.has(column) {
        copy(column, as: endDate)
      } else if !table.isOwn, let start {
        copy(start, as: endDate)
      }
      if table.isCurrent {
        let numberColumn = CSVRecordsTable.valueColumn
        let textColumn = CSVRecordsTable.valueTextColumn
        if reader.isEmpty(numberColumn) {
          if !reader.isAbsent(textColumn) { copy(textColumn, as: value) }
        } else {
          guard reader.isAbsent(textColumn), let number = reader.withField(numberColumn, CSVRecordsTable.numberText)
          else { return false }
          cells.append(value, value: number)
        }
      } else if let column = valueColumn, table.has(column) {
        copy(column, as: value)
      } else if let column = valueTextColumn, table.has(column) {
        // A foreign file may be a re-saved healthport table: names are then in `valueText`.
        copy(column, as: value)
      }
      return true
    }

    /// One `MetadataEntry` of the current row's `metadata` cell.
    func fillMetadataEntry(key entryKey: String, value entryValue: String) {
      cells.removeAll()
      cells.append(key, value: entryKey)
      cells.append(value, value: entryValue)
    }

    /// Copies a cell into the attributes; a long one (over ``borrowedFrom`` bytes) is borrowed
    /// from the row reader instead, whose row stays unchanged until its next row, after the
    /// builder has read these attributes.
    @inline(__always)
    private func copy(_ column: Int, as name: OwnedAttributes.Name) {
      table.reader.withField(column) { field in
        if field.count > Self.borrowedFrom {
          cells.appendBorrowed(name, value: field)
        } else {
          cells.append(name, value: field)
        }
      }
    }

    /// The cells longer than this are borrowed, not copied.
    static let borrowedFrom = 64 << 10
  }
}

/// A row's attributes as the builder reads them, with the rules of a CSV table: dates may be
/// ISO 8601, and the value is checked as healthport has always checked that kind of table.
struct CSVRecordAttributes: ElementAttributes {
  let cells: OwnedAttributes
  let recordValueRule: RecordValueRule
  var acceptsISO8601Dates: Bool { true }

  @inline(__always) var count: Int { cells.count }
  @inline(__always) func name(at index: Int) -> ByteView { cells.name(at: index) }
  @inline(__always) func nameIdentity(at index: Int) -> UnsafeRawPointer { cells.nameIdentity(at: index) }
  @inline(__always) func value(at index: Int) -> ByteView { cells.value(at: index) }
}
