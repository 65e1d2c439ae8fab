import HealthPort
import ParquetFile

/// One cell of a row, in the catalog's column order, before it is typed.
enum ParquetCell {
  case null
  case text(String)
  case integer(Int)
  case date(HealthDate)
}

/// Writes the rows of one table into its part files, one per partition folder.
final class ParquetTableWriter {
  let layout: ParquetTableLayout
  private unowned let dataset: ParquetDataset
  private var parts: [String: ParquetPartFile] = [:]
  private var lastPartition = ""
  private var lastType: String?
  private var lastYear = Int.min
  private var lastPart: ParquetPartFile?
  private var lastDay = Int.min
  private var lastDayYear = Int.min

  /// Each catalog column's kind and first Parquet column (nil for a partition key), without the
  /// catalog's strings, so that the per-row loop retains nothing.
  private let steps: [(kind: ParquetCellKind, column: Int?)]

  init(_ layout: ParquetTableLayout, dataset: ParquetDataset) {
    self.layout = layout
    self.dataset = dataset
    steps = layout.slots.map { ($0.kind, $0.firstColumn) }
    partitionByType = layout.partitionKeys.contains(.type)
    partitionByYear = layout.partitionKeys.contains(.year)
  }

  private let partitionByType: Bool
  private let partitionByYear: Bool

  /// Appends one row: `cells` holds one cell per catalog column.
  func append(_ cells: [ParquetCell]) throws {
    let part = try partFile(for: cells)
    let writer = part.writer
    do {
      for position in steps.indices {
        guard let column = steps[position].column else { continue }
        try Self.append(cells[position], kind: steps[position].kind, column: column, to: writer)
      }
    } catch {
      throw dataset.failure(error)
    }
    try dataset.rowAppended(to: part)
  }

  /// Ends every open part file of this table.
  func closeAll() throws {
    for part in parts.values { try dataset.close(part) }
    parts.removeAll()
    lastPart = nil
  }

  /// Forgets a part file the dataset closed early (a new one starts when its partition gets rows).
  func forget(_ part: ParquetPartFile) {
    parts[part.partition] = nil
    if lastPart === part { lastPart = nil }
  }

  // MARK: Partitions

  private func partFile(for cells: [ParquetCell]) throws -> ParquetPartFile {
    var type: String?
    var year = Int.min
    if partitionByType, let position = layout.typePosition, case .text(let text) = cells[position] { type = text }
    if partitionByYear, let position = layout.startPosition {
      if case .date(let date) = cells[position] {
        let day = date.localDayNumber
        if day != lastDay {
          lastDay = day
          lastDayYear = HealthDate.civil(fromDays: day).year
        }
        year = lastDayYear
      } else if case .text(let text) = cells[position], let date = HealthDate(text) {
        year = HealthDate.civil(fromDays: date.localDayNumber).year
      }
    }
    if let lastPart, type == lastType, year == lastYear { return lastPart }
    var partition = ""
    for key in layout.partitionKeys {
      switch key {
      case .type: partition += "type=" + HivePath.escape(type) + "/"
      case .year: partition += "year=" + (year == Int.min ? HivePath.defaultPartition : String(year)) + "/"
      }
    }
    let part: ParquetPartFile
    if let open = parts[partition] {
      part = open
    } else {
      part = try dataset.openPart(table: self, partition: partition)
      parts[partition] = part
    }
    lastType = type
    lastYear = year
    lastPartition = partition
    lastPart = part
    return part
  }

  // MARK: Typing cells

  @inline(__always)
  private static func append(_ cell: ParquetCell, kind: ParquetCellKind, column: Int, to writer: ParquetWriter)
    throws(ParquetError)
  {
    switch kind {
    case .text:
      switch cell {
      case .null: try writer.appendNull(to: column)
      case .text(let text): try writer.append(text, to: column)
      case .integer(let value): try writer.append(String(value), to: column)
      case .date(let date): try writer.append(date.description, to: column)
      }
    case .integer(let fallback):
      var rest: String?
      if case .integer(let value) = cell {
        try writer.append(Int64(value), to: column)
      } else if case .text(let text) = cell, let value = Int64(text) {
        try writer.append(value, to: column)
      } else {
        try writer.appendNull(to: column)
        if case .text(let text) = cell { rest = text }
      }
      try appendFallback(rest, fallback, writer)
    case .number(let fallback):
      var rest: String?
      if case .text(let text) = cell, let value = DecimalNumber.parse(text) {
        try writer.append(value, to: column)
      } else {
        try writer.appendNull(to: column)
        if case .text(let text) = cell { rest = text }
      }
      try appendFallback(rest, fallback, writer)
    case .date(let localDay, let fallback):
      var rest: String?
      var date: HealthDate?
      switch cell {
      case .date(let value): date = value
      case .text(let text):
        date = HealthDate(text)
        if date == nil { rest = text }
      case .null, .integer: break
      }
      if let date {
        try writer.append(date.secondsSince1970 * 1_000_000, to: column)
        try writer.append(date.offsetSeconds / 60, to: column + 1)
        if localDay { try writer.append(Int32(truncatingIfNeeded: date.localDayNumber), to: column + 2) }
      } else {
        try writer.appendNull(to: column)
        try writer.appendNull(to: column + 1)
        if localDay { try writer.appendNull(to: column + 2) }
      }
      try appendFallback(rest, fallback, writer)
    case .day(let fallback):
      var rest: String?
      if case .text(let text) = cell, let day = CalendarDay.parse(text) {
        try writer.append(Int32(truncatingIfNeeded: day), to: column)
      } else {
        try writer.appendNull(to: column)
        if case .text(let text) = cell { rest = text }
      }
      try appendFallback(rest, fallback, writer)
    }
  }

  @inline(__always)
  private static func appendFallback(_ text: String?, _ column: Int?, _ writer: ParquetWriter) throws(ParquetError) {
    guard let column else { return }
    if let text { try writer.append(text, to: column) } else { try writer.appendNull(to: column) }
  }
}

/// Hive's folder names: `key=value`, with the characters a path or a reader would misread
/// percent-encoded, as Hive and Spark write them.
enum HivePath {
  /// The folder of a null value.
  static let defaultPartition = "__HIVE_DEFAULT_PARTITION__"

  static func escape(_ value: String?) -> String {
    guard let value, !value.isEmpty else { return defaultPartition }
    var escaped = ""
    for byte in value.utf8 {
      let plain =
        (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte)
        || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || (byte == UInt8(ascii: ".") && !escaped.isEmpty)
      if plain {
        escaped.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        let hex = Array("0123456789ABCDEF".utf8)
        escaped += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
      }
    }
    return escaped
  }
}

/// A decimal number as the export writes it (`77.1003`, `-3`, `812.`, `1.5e-05`): the only text a
/// `DOUBLE` column takes, so that words such as `nan` or `inf` keep their text instead.
enum DecimalNumber {
  static func parse(_ text: String) -> Double? {
    var digits = 0
    var index = 0
    var valid = true
    var seenPoint = false
    var seenExponent = false
    var exponentDigits = 0
    for byte in text.utf8 {
      defer { index += 1 }
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"):
        if seenExponent { exponentDigits += 1 } else { digits += 1 }
      case UInt8(ascii: "-"), UInt8(ascii: "+"):
        if index != 0 && !(seenExponent && exponentDigits == 0) { valid = false }
      case UInt8(ascii: "."):
        if seenPoint || seenExponent { valid = false }
        seenPoint = true
      case UInt8(ascii: "e"), UInt8(ascii: "E"):
        if seenExponent || digits == 0 { valid = false }
        seenExponent = true
      default: valid = false
      }
      if !valid { return nil }
    }
    guard digits > 0, !seenExponent || exponentDigits > 0 else { return nil }
    return Double(text)
  }
}

/// `YYYY-MM-DD` as days since 1970-01-01.
enum CalendarDay {
  static func parse(_ text: String) -> Int? {
    let bytes = Array(text.utf8)
    guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for index in range {
        let digit = Int(bytes[index]) - 48
        guard digit >= 0 && digit < 10 else { return nil }
        value = value * 10 + digit
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), (1...12).contains(month),
      day >= 1, day <= HealthDate.daysInMonth(year, month)
    else { return nil }
    return HealthDate.daysSince1970(year: year, month: month, day: day)
  }
}
