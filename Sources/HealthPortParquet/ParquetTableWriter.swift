import HealthPort
import ParquetFile

/// Writes the rows of one table into its part files, one per partition folder.
///
/// A row is ``startRow(type:start:startText:)``, then one typed call per catalog column in the
/// catalog's order (``integer(_:)``, ``text(_:)``, ``date(_:)``, ``bytes(_:)``), each turned into
/// the column's Parquet column(s) by its slot; a partition column's value only picks the folder.
final class ParquetTableWriter {
  let layout: ParquetTableLayout
  private unowned let dataset: ParquetDataset
  private var parts: [String: ParquetPartFile] = [:]
  /// The partitions used last, most recent first: records of a few types interleave (a Watch's
  /// heart rate beside an iPhone's steps), and the same interned type string comes back each time.
  private var recentParts: [(type: String?, year: Int, part: ParquetPartFile)] = []
  private var lastDay = Int.min
  private var lastDayYear = Int.min
  private let partitionByType: Bool
  private let partitionByYear: Bool
  /// The row's type (short name) and year, when the table has them as columns rather than folders.
  private let typeColumn: Int?
  private let yearColumn: Int?
  private var rowType: String?
  private var rowYear = Int.min
  /// The short names of the types seen last (identifiers come back interned, row after row).
  private var recentTypes: [(type: String, value: String?)] = []
  /// The row's `extra` (JSON), written as its last cell by ``endRow()`` in a table that has one.
  var extra: String?
  private let hasExtra: Bool

  /// Each catalog column's kind and first Parquet column, without the catalog's strings, so that
  /// the per-row calls retain nothing.
  private let steps: [(kind: ParquetCellKind, column: Int)]
  /// The row being written: its part file's writer, and the next catalog column.
  private var part: ParquetPartFile?
  private var writer: ParquetWriter?
  private var position = 0

  init(_ layout: ParquetTableLayout, dataset: ParquetDataset) {
    self.layout = layout
    self.dataset = dataset
    steps = layout.slots.map { ($0.kind, $0.firstColumn) }
    partitionByType = layout.partitionKeys.contains(.type)
    partitionByYear = layout.partitionKeys.contains(.year)
    typeColumn = layout.keyColumns.firstIndex(of: .type).map { layout.firstKeyColumn + $0 }
    yearColumn = layout.keyColumns.firstIndex(of: .year).map { layout.firstKeyColumn + $0 }
    hasExtra = layout.definition.columns.last?.name == ParquetTables.extra.name
  }

  /// Starts a row: `type` and the start (as a date, or as text for a generic element) pick its
  /// partition, when the table is partitioned by them.
  @inline(__always)
  func startRow(type: String? = nil, start: HealthDate? = nil, startText: String? = nil) throws {
    let part = try partFile(type: type, start: start, startText: startText)
    self.part = part
    writer = part.writer
    position = 0
  }

  /// Ends the row: row groups and memory kept within their limits.
  @inline(__always)
  func endRow() throws {
    guard let part else { return }
    if hasExtra {
      try text(extra)
      extra = nil
    }
    assert(position == steps.count, "\(layout.name): a row of \(position) cells for \(steps.count) columns")
    if let writer {
      do throws(ParquetError) {
        if let typeColumn {
          if let rowType { try writer.append(rowType, to: typeColumn) } else { try writer.appendNull(to: typeColumn) }
        }
        if let yearColumn {
          if rowYear != Int.min {
            try writer.append(Int64(rowYear), to: yearColumn)
          } else {
            try writer.appendNull(to: yearColumn)
          }
        }
      } catch {
        throw dataset.failure(error)
      }
    }
    self.part = nil
    writer = nil
    try dataset.rowAppended(to: part)
  }

  /// Ends every open part file of this table.
  func closeAll() throws {
    for part in parts.values { try dataset.close(part) }
    parts.removeAll()
    recentParts.removeAll()
  }

  /// Forgets a part file the dataset closed early (a new one starts when its partition gets rows).
  func forget(_ part: ParquetPartFile) {
    parts[part.partition] = nil
    recentParts.removeAll { $0.part === part }
  }

  // MARK: Cells, in catalog order

  @inline(__always)
  private func nextStep() -> (kind: ParquetCellKind, column: Int, writer: ParquetWriter)? {
    let step = steps[position]
    position += 1
    guard let writer else { return nil }
    return (step.kind, step.column, writer)
  }

  /// An id, a parent's, a version number.
  @inline(__always)
  func integer(_ value: Int?) throws(ParquetError) {
    guard let (kind, column, writer) = nextStep() else { return }
    switch kind {
    case .integer(let fallback):
      if let value { try writer.append(Int64(value), to: column) } else { try writer.appendNull(to: column) }
      if let fallback { try writer.appendNull(to: fallback) }
    default:
      try Self.append(text: value.map { String($0) }, kind: kind, column: column, to: writer)
    }
  }

  /// A value as written; typed by the column (a number, a day, a date) with a `_text` column for
  /// what does not parse.
  @inline(__always)
  func text(_ value: String?) throws(ParquetError) {
    guard let (kind, column, writer) = nextStep() else { return }
    try Self.append(text: value, kind: kind, column: column, to: writer)
  }

  /// A text already in bytes (a device string rendered without a `String`).
  @inline(__always)
  func bytes(_ value: [UInt8]?) throws(ParquetError) {
    guard let (kind, column, writer) = nextStep() else { return }
    guard case .text = kind, let value else {
      try Self.append(text: value.map { String(decoding: $0, as: UTF8.self) }, kind: kind, column: column, to: writer)
      return
    }
    try writer.append(bytes: value, to: column)
  }

  /// A parsed date of a typed element.
  @inline(__always)
  func date(_ value: HealthDate?) throws(ParquetError) {
    guard let (kind, column, writer) = nextStep() else { return }
    guard case .date(let localDay, let fallback) = kind else {
      try Self.append(text: value?.description, kind: kind, column: column, to: writer)
      return
    }
    try Self.append(date: value, localDay: localDay, column: column, to: writer)
    if let fallback { try writer.appendNull(to: fallback) }
  }

  /// A number healthport computed.
  @inline(__always)
  func number(_ value: Double?) throws(ParquetError) {
    guard let (kind, column, writer) = nextStep() else { return }
    guard case .number(let fallback) = kind else {
      try Self.append(text: value.map { "\($0)" }, kind: kind, column: column, to: writer)
      return
    }
    if let value { try writer.append(value, to: column) } else { try writer.appendNull(to: column) }
    if let fallback { try writer.appendNull(to: fallback) }
  }

  /// A side file's time: its instant and offset when it parsed, else its text (in `_text`).
  @inline(__always)
  func time(_ value: ParquetInstant?, text: String?) throws(ParquetError) {
    guard let (kind, column, writer) = nextStep() else { return }
    guard case .date(let localDay, let fallback) = kind, !localDay else {
      try Self.append(text: text, kind: kind, column: column, to: writer)
      return
    }
    if let value {
      try writer.append(value.microseconds, to: column)
      try writer.append(value.offsetMinutes, to: column + 1)
    } else {
      try writer.appendNull(to: column)
      try writer.appendNull(to: column + 1)
    }
    guard let fallback else { return }
    if value == nil, let text { try writer.append(text, to: fallback) } else { try writer.appendNull(to: fallback) }
  }

  // MARK: Partitions

  /// The `type` value of an identifier: its short name as ``HivePath/typeValue(_:)`` gives it.
  @inline(__always)
  private func typeValue(_ type: String?) -> String? {
    guard let type else { return nil }
    for index in recentTypes.indices where recentTypes[index].type == type { return recentTypes[index].value }
    let value = HivePath.typeValue(type)
    if recentTypes.count == 8 { recentTypes.removeLast() }
    recentTypes.insert((type, value), at: 0)
    return value
  }

  private func partFile(type: String?, start: HealthDate?, startText: String?) throws -> ParquetPartFile {
    if typeColumn != nil { rowType = typeValue(type) }
    let type = partitionByType ? type : nil
    var year = Int.min
    if partitionByYear || yearColumn != nil {
      if let start {
        let day = start.localDayNumber
        if day != lastDay {
          lastDay = day
          lastDayYear = HealthDate.civil(fromDays: day).year
        }
        year = lastDayYear
      } else if let startText, let date = HealthDate(startText) {
        year = HealthDate.civil(fromDays: date.localDayNumber).year
      }
      rowYear = year
      if !partitionByYear { year = Int.min }
    }
    for index in recentParts.indices where recentParts[index].year == year && recentParts[index].type == type {
      let recent = recentParts[index]
      if index > 0 {
        recentParts.remove(at: index)
        recentParts.insert(recent, at: 0)
      }
      return recent.part
    }
    var partition = ""
    for key in layout.partitionKeys {
      switch key {
      case .type: partition += "type=" + HivePath.escape(type.flatMap(HivePath.typeValue)) + "/"
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
    if recentParts.count == 8 { recentParts.removeLast() }
    recentParts.insert((type, year, part), at: 0)
    return part
  }

  // MARK: Typing values

  @inline(__always)
  private static func append(date: HealthDate?, localDay: Bool, column: Int, to writer: ParquetWriter)
    throws(ParquetError)
  {
    if let date {
      try writer.append(date.secondsSince1970 * 1_000_000, to: column)
      try writer.append(date.offsetSeconds / 60, to: column + 1)
      if localDay { try writer.append(Int32(truncatingIfNeeded: date.localDayNumber), to: column + 2) }
    } else {
      try writer.appendNull(to: column)
      try writer.appendNull(to: column + 1)
      if localDay { try writer.appendNull(to: column + 2) }
    }
  }

  @inline(__always)
  private static func append(text: String?, kind: ParquetCellKind, column: Int, to writer: ParquetWriter)
    throws(ParquetError)
  {
    var rest: String?
    switch kind {
    case .text:
      if let text { try writer.append(text, to: column) } else { try writer.appendNull(to: column) }
      return
    case .integer:
      if let text, let value = Int64(text) {
        try writer.append(value, to: column)
      } else {
        try writer.appendNull(to: column)
        rest = text
      }
    case .number:
      if let text, let value = DecimalText.decimal(text) {
        try writer.append(value, to: column)
      } else {
        try writer.appendNull(to: column)
        rest = text
      }
    case .date(let localDay, _):
      let date = text.flatMap { HealthDate($0) }
      if date == nil { rest = text }
      try append(date: date, localDay: localDay, column: column, to: writer)
    case .day:
      if let text, let day = CalendarDay.parse(text) {
        try writer.append(Int32(truncatingIfNeeded: day), to: column)
      } else {
        try writer.appendNull(to: column)
        rest = text
      }
    }
    guard let fallback = kind.fallback else { return }
    if let rest { try writer.append(rest, to: fallback) } else { try writer.appendNull(to: fallback) }
  }
}

/// Hive's folder names: `key=value`, with the bytes Hive escapes percent-encoded (0x01–0x1F,
/// `"` `#` `%` `'` `*` `/` `:` `=` `?` `\` `{` `[` `]` `^`, 0x7F), which DuckDB, pyarrow, Polars and
/// Spark decode back; everything else, UTF-8 and spaces included, as it is.
enum HivePath {
  /// The folder of a null or empty value.
  static let defaultPartition = "__HIVE_DEFAULT_PARTITION__"

  /// The longest `key=value` folder name: a file name's limit (NAME_MAX).
  static let maximumFolderBytes = 255
  /// What a value too long for a folder is cut to, in escaped bytes (the length `--split` keeps of
  /// a table name).
  static let shortenedBytes = 200

  static func escape(_ value: String?) -> String {
    guard let value, !value.isEmpty else { return defaultPartition }
    guard value.utf8.contains(where: needsEscape) else { return value }
    var escaped: [UInt8] = []
    let hex = Array("0123456789ABCDEF".utf8)
    for byte in value.utf8 {
      if needsEscape(byte) {
        escaped += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
      } else {
        escaped.append(byte)
      }
    }
    return String(decoding: escaped, as: UTF8.self)
  }

  /// The `type` value of a type identifier: its short name (`KnownNames.folderTypeName`), nil when
  /// empty; `record___HIVE_DEFAULT_PARTITION__` for a name that would read back as null; and, when
  /// `type=NAME` would be over 255 bytes, `record_` and as much of the name as fits 200 escaped
  /// bytes, as `--split` names such a table.
  static func typeValue(_ identifier: String) -> String? {
    let short = KnownNames.folderTypeName(identifier)
    guard !short.isEmpty else { return nil }
    if short == defaultPartition { return "record_" + short }
    guard fits("type", short) else { return "record_" + prefix(of: short, escapedBytes: shortenedBytes) }
    return short
  }

  /// The `person` value of `--person NAME`: the name, or as much of it as fits 200 escaped bytes
  /// when `person=NAME` would be over 255 bytes. A name that would read back as null is refused.
  static func personValue(_ name: String) throws -> String {
    guard !name.isEmpty else { throw HealthPortError(.emptyValue(.person)) }
    guard name != defaultPartition else { throw HealthPortError(.reservedValue(.person, value: name)) }
    return fits("person", name) ? name : prefix(of: name, escapedBytes: shortenedBytes)
  }

  /// Whether the folder `key=value` is a name a file system takes.
  static func fits(_ key: String, _ value: String) -> Bool {
    key.utf8.count + 1 + escape(value).utf8.count <= maximumFolderBytes
  }

  /// The longest prefix of `value`, whole characters, whose escaped form is at most `limit` bytes.
  static func prefix(of value: String, escapedBytes limit: Int) -> String {
    var bytes = 0
    var end = value.startIndex
    for character in value {
      let size = character.utf8.reduce(0) { $0 + (needsEscape($1) ? 3 : 1) }
      guard bytes + size <= limit else { break }
      bytes += size
      end = value.index(after: end)
    }
    return String(value[..<end])
  }

  private static func needsEscape(_ byte: UInt8) -> Bool {
    switch byte {
    case 0x00...0x1F, 0x7F: true
    case UInt8(ascii: "\""), UInt8(ascii: "#"), UInt8(ascii: "%"), UInt8(ascii: "'"), UInt8(ascii: "*"),
      UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "="), UInt8(ascii: "?"), UInt8(ascii: "\\"),
      UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "^"):
      true
    default: false
    }
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
