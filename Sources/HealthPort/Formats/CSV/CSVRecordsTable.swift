/// The layout of the single-table CSV (`convert --to csv`), shared by its writer and its reader.
///
/// The table is made for analysis tools that type columns from their content (pandas, DuckDB's
/// `read_csv_auto`, spreadsheets), so every column holds one kind of value:
/// - a Record's `value` is split by content: a decimal number goes to `value`, anything else
///   (category names such as `HKCategoryValueSleepAnalysisAsleep`, a present empty value) to
///   `valueText`. An integer is written with a trailing point (`5.`), so that a reader that types
///   the column from its first rows types it as floating point, not as an integer that would
///   silently truncate a later `77.1003`; reading back drops the point.
/// - dates are ISO 8601 in the offset the export wrote (`2016-08-05T10:00:00+01:00`), followed by
///   the same instants in UTC (`creationUTC`, `startUTC`, `endUTC`, ending in `Z`).
///
/// Both forms keep everything the model holds, so the table reads back exactly. Tables that
/// healthport wrote before this layout (``legacyColumns``: `value` as written, dates in the
/// export's form) are read back exactly too.
enum CSVRecordsTable {
  /// The header (``ColumnCatalog/records``).
  static let columns = ColumnCatalog.records.columnNames

  /// The header of tables written before the value and date columns were split
  /// (``ColumnCatalog/legacyRecords``).
  static let legacyColumns = ColumnCatalog.legacyRecords.columnNames

  /// Where the table holds the cells its reader takes by position (`sourceProduct` is at the
  /// same place in the legacy table).
  static let sourceProductColumn = position(of: "sourceProduct")
  static let valueColumn = position(of: "value")
  static let valueTextColumn = position(of: "valueText")

  private static func position(of name: String) -> Int {
    guard let position = ColumnCatalog.records.position(of: name) else {
      preconditionFailure("the single table has no column \(name)")
    }
    return position
  }

  /// What a value's text is, for the choice of its column.
  enum ValueKind: Equatable {
    /// `-?DIGITS`: written with a trailing point.
    case integer
    /// `-?DIGITS.DIGITS`, optionally with an exponent `e±DIGITS`, or `-?DIGITS` with one: as is.
    case decimal
    /// Anything else (names, empty, `5.`, `.5`, `+5`, `1,5`, `nan`, hex…): the text column.
    case text
  }

  /// Classifies a value's bytes. Only the plain decimal forms that every CSV reader parses alike
  /// are numbers; everything else stays text, so that no reader misreads it.
  @inline(__always)
  static func kind(_ bytes: UnsafeBufferPointer<UInt8>) -> ValueKind {
    var index = 0
    let count = bytes.count
    if index < count, bytes[index] == UInt8(ascii: "-") { index += 1 }
    @inline(__always) func digits() -> Bool {
      let start = index
      while index < count, bytes[index] &- 48 < 10 { index += 1 }
      return index > start
    }
    guard digits() else { return .text }
    if index == count { return .integer }
    if bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard digits() else { return .text }
      if index == count { return .decimal }
    }
    guard bytes[index] | 0x20 == UInt8(ascii: "e") else { return .text }
    index += 1
    if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
    guard digits(), index == count else { return .text }
    return .decimal
  }

  /// Appends the `value,valueText` pair of a Record's value (no leading or trailing comma).
  @inline(__always)
  static func appendValue(_ value: String?, to out: inout ByteBuffer) {
    guard var value else { return out.append(CSVEncoding.comma) }
    value.withUTF8 { appendValue($0, to: &out) }
  }

  /// The same for a value's bytes (nil: no value).
  @inline(__always)
  static func appendValue(_ bytes: UnsafeBufferPointer<UInt8>?, to out: inout ByteBuffer) {
    guard let bytes else { return out.append(CSVEncoding.comma) }
    switch kind(bytes) {
    case .integer:
      out.append(bytes: bytes)
      out.append(UInt8(ascii: "."))
      out.append(CSVEncoding.comma)
    case .decimal:
      out.append(bytes: bytes)
      out.append(CSVEncoding.comma)
    case .text:
      out.append(CSVEncoding.comma)
      CSVEncoding.appendField(bytes, to: &out)
    }
  }

  /// The value as written in the export, from the `value` cell (a number, integers with their
  /// trailing point) or the `valueText` cell. Nil when the number is not one the writer writes.
  static func numberText(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    if let last = bytes.last, last == UInt8(ascii: ".") {
      let integer = UnsafeBufferPointer(rebasing: bytes[..<(bytes.count - 1)])
      return kind(integer) == .integer ? String(decoding: integer, as: UTF8.self) : nil
    }
    // Hand-edited tables may hold integers without the point.
    return kind(bytes) == .text ? nil : String(decoding: bytes, as: UTF8.self)
  }
}
