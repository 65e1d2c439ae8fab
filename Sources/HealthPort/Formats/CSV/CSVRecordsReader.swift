/// Reads a single CSV table of samples into Records: healthport's own single-table CSV, or CSV
/// from other tools and trackers.
///
/// Columns are found by header name, ignoring case and word separators (`startDate`,
/// `start_date`, `Start Date` are one name); the delimiter (comma, semicolon or tab) is the one
/// the header line uses most. Unknown columns are ignored. A file whose header is exactly
/// ``CSVRecordsTable/columns`` (or the ``CSVRecordsTable/legacyColumns`` of earlier versions) is
/// read as healthport's own: `,"",` is a present empty value, the value comes from `value` or
/// `valueText`, and the value is not checked (``RecordValueRule/unchecked``). Any other file is
/// "foreign": empty cells are absent values, `endDate` defaults to `startDate`, `sourceName` to
/// ``ReadOptions/csvDefaultSourceName`` or the file's base name, `type` to
/// ``ReadOptions/csvDefaultType``, and quantity values (`HKQuantityTypeIdentifier…`) must be
/// numbers (``RecordValueRule/numberForQuantityTypes``). Dates may be in the export's form or ISO
/// 8601 (``HealthDate/flexible(_:)-(UnsafeRawBufferPointer)``). A foreign file's short type names
/// (`StepCount`) become full identifiers (``CSVTypeNames``); a foreign header without a type
/// column that names `workoutActivityType` or `dateComponents` is a table of Workouts or of
/// ActivitySummaries instead (``CSVElementTable``); tdda/applehealthdata's tables are read with
/// its backslash escapes (``CSVInput/isBackslashDialect(header:)``).
///
/// Each row is a `Record` start tag for the ``ElementBuilder`` (``RecordFeed``), its `metadata`
/// cell `MetadataEntry` children, so that the builder makes and checks every element; the
/// reader only words and places the builder's complaints (``Table/firstError(else:)``).
final class CSVRecordsReader {
  let path: String
  let options: ReadOptions
  /// Set when reading stdin (or another stream): rows come from it instead of `path`.
  private let source: ByteSource?
  /// Rows without a source name are then named `stdin`, not after a file.
  private var isStandardInput: Bool { source != nil }

  init(path: String, options: ReadOptions) {
    self.path = path
    self.options = options
    source = nil
  }

  /// Reads a stream (stdin) that was recognised as CSV; messages name it by its display name.
  init(source: ByteSource, options: ReadOptions) {
    path = source.displayName
    self.options = options
    self.source = source
  }

  enum Field: CaseIterable {
    case type, sourceName, sourceVersion, device, unit, value, valueText, creationDate, startDate, endDate, metadata

    /// Accepted header names (normalized: lowercase letters and digits), best first.
    var aliases: [String] {
      switch self {
      case .type: ["type", "recordtype", "datatype", "typeidentifier", "quantitytype"]
      case .sourceName: ["sourcename", "source", "sourceapp", "app"]
      case .sourceVersion: ["sourceversion"]
      case .device: ["device", "devicename"]
      case .unit: ["unit", "units"]
      case .value: ["value", "quantity", "amount"]
      case .valueText: ["valuetext"]
      case .creationDate: ["creationdate", "created", "createdat", "creationtime"]
      case .startDate:
        ["startdate", "start", "starttime", "startdatetime", "startedat", "date", "datetime", "timestamp", "time"]
      case .endDate: ["enddate", "end", "endtime", "enddatetime", "endedat"]
      case .metadata: ["metadata"]
      }
    }

    var displayName: String {
      switch self {
      case .type: "type"
      case .sourceName: "sourceName"
      case .sourceVersion: "sourceVersion"
      case .device: "device"
      case .unit: "unit"
      case .value: "value"
      case .valueText: "valueText"
      case .creationDate: "creationDate"
      case .startDate: "startDate"
      case .endDate: "endDate"
      case .metadata: "metadata"
      }
    }
  }

  /// Lowercase ASCII letters and digits of a header name; everything else dropped.
  static func normalize(_ name: String) -> String {
    String(
      decoding: name.utf8.compactMap { byte -> UInt8? in
        switch byte {
        case 65...90: byte + 32
        case 97...122, 48...57: byte
        default: nil
        }
      }, as: UTF8.self)
  }

  /// For each field, the column index that holds it: the column whose name is the field's
  /// best-ranked alias (the leftmost on a tie).
  static func mapColumns(_ header: [String]) -> [Field: Int] {
    let normalized = header.map(normalize)
    var result: [Field: Int] = [:]
    for field in Field.allCases {
      var best: (rank: Int, column: Int)?
      for (column, name) in normalized.enumerated() {
        guard let rank = field.aliases.firstIndex(of: name) else { continue }
        if best == nil || rank < best!.rank { best = (rank, column) }
      }
      if let best { result[field] = best.column }
    }
    return result
  }

  /// The delimiter the header line uses most (comma on a tie or when there is none).
  static func detectDelimiter(_ line: ArraySlice<UInt8>) -> UInt8 {
    var counts: [UInt8: Int] = [UInt8(ascii: ","): 0, UInt8(ascii: ";"): 0, 0x09: 0]
    var inQuotes = false
    for byte in line {
      if byte == CSVEncoding.quote { inQuotes.toggle() }
      if !inQuotes, counts[byte] != nil { counts[byte]! += 1 }
    }
    var best = UInt8(ascii: ",")
    for candidate in [UInt8(ascii: ";"), 0x09] where counts[candidate]! > counts[best]! { best = candidate }
    return best
  }

  func read(into sink: ExportSink) throws -> ReadReport {
    var report = ReadReport(documentName: path, format: .csv)
    let reader = try source.map { try CSVRowReader(source: $0) } ?? CSVRowReader(path: path)
    if reader.isBlank {
      throw HealthPortError(.malformed, file: path, message: "the CSV file is empty (no header row)")
    }
    reader.delimiter = Self.detectDelimiter(reader.firstLinePreview)
    reader.backslashEscapes = CSVInput.isBackslashDialect(header: reader.firstLinePreview)
    guard try reader.next() else {
      throw HealthPortError(.malformed, file: path, message: "the CSV file is empty (no header row)")
    }
    let header = (0..<reader.fieldCount).map { reader.string($0) }
    let columns = Self.mapColumns(header)
    // healthport's own table, in today's layout or the one before the value and dates were split.
    let isCurrent = header == CSVRecordsTable.columns
    let isOwn = isCurrent || header == CSVRecordsTable.legacyColumns
    let defaultSource = options.csvDefaultSourceName ?? (isStandardInput ? "stdin" : Self.baseName(path))
    let elements = isOwn ? nil : CSVElementTable(header: header, columns: columns)
    guard columns[.startDate] != nil || elements != nil else {
      throw reader.error(
        column: 1, "the header has no start date column (startDate, start_date, start, date, timestamp, …)")
    }
    if columns[.type] == nil, options.csvDefaultType == nil, elements == nil {
      throw reader.error(column: 1, .noTypeColumnInCSV)
    }
    let table = Table(
      reader: reader, columns: columns, isOwn: isOwn, isCurrent: isCurrent,
      defaultType: options.csvDefaultType, defaultSource: defaultSource, typeNames: isOwn ? nil : CSVTypeNames())
    let width = header.count
    try sink.begin(ExportHeader(prolog: [], rootAttributes: []))

    let cells = OwnedAttributes()
    let attributes = CSVRecordAttributes(
      cells: cells, recordValueRule: isOwn ? .unchecked : .numberForQuantityTypes)
    let feed = RecordFeed(table: table, cells: cells)
    let elementFeed = elements.map { CSVElementTable.Feed($0, reader: reader, defaultSource: defaultSource) }
    let builder = ElementBuilder()
    builder.onElement = { element in
      guard isOwn, case .record(var record) = element else { return try sink.consume(element) }
      // healthport wrote the derived product beside the device.
      record.sourceProduct = reader.optional(CSVRecordsTable.sourceProductColumn)
      try sink.consume(.record(record))
    }
    try Self.healthData.withUnsafeBufferPointer { try builder.startElement(ByteView($0), attributes: attributes) }

    var rows = 0
    while try reader.next() {
      guard reader.fieldCount == width else {
        throw reader.error(
          column: min(reader.fieldCount, width) + 1,
          "the row has \(reader.fieldCount) fields, the header has \(width)")
      }
      if let elementFeed {
        try elementFeed.row(into: builder)
      } else {
        try Self.recordRow(table, feed, attributes, into: builder)
      }
      rows += 1
      if rows & 0xFFF == 0, let progress = options.progress { progress(reader.bytesRead, nil) }
    }
    if rows == 0 { report.notes.append("\(path): the CSV has a header row but no rows: an empty export") }
    if let warning = table.typeNames?.warning(file: path) { report.notes.append(warning) }
    report.documentBytes = reader.bytesRead
    try sink.end(report)
    return report
  }

  /// The current row as a top-level `Record` (with `MetadataEntry` children from its `metadata` cell).
  private static func recordRow(
    _ table: Table, _ feed: RecordFeed, _ attributes: CSVRecordAttributes, into builder: ElementBuilder
  ) throws {
    guard feed.fillRecord() else { throw table.firstError(else: "the value is not a number") }
    do {
      try Self.record.withUnsafeBufferPointer { try builder.startElement(ByteView($0), attributes: attributes) }
    } catch let error as ExportDataError {
      throw table.firstError(else: error.message)
    }
    if let column = table.columns[.metadata], !table.reader.isEmpty(column) {
      let pairs: [(String, String)]
      do {
        pairs = try table.reader.withField(column) { try CSVMetadataJSON.parsePairs($0) }
      } catch let error as CSVMetadataJSON.ParseError {
        throw table.reader.error(column: column + 1, "metadata: \(error.message)")
      }
      for (key, value) in pairs {
        feed.fillMetadataEntry(key: key, value: value)
        try Self.metadataEntry.withUnsafeBufferPointer {
          try builder.startElement(ByteView($0), attributes: attributes)
          try builder.endElement(ByteView($0))
        }
      }
    }
    try Self.record.withUnsafeBufferPointer { try builder.endElement(ByteView($0)) }
  }

  private static let healthData = Array("HealthData".utf8)
  private static let record = Array("Record".utf8)
  private static let metadataEntry = Array("MetadataEntry".utf8)

  /// `dir/steps.csv` → `steps`.
  static func baseName(_ path: String) -> String {
    var name = Substring(path)
    if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
    if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
    return name.isEmpty ? "CSV" : String(name)
  }
}
