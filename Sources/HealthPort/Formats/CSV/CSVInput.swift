#if canImport(Glibc)
  import Glibc
#endif

/// What a CSV input is.
package enum CSVInputKind: Sendable, Equatable {
  /// A `convert --split` folder (it holds an `export.csv` with healthport's header).
  case splitFolder
  /// One CSV table of samples: healthport's single-table CSV or CSV from another tool.
  case table
}

/// How CSV inputs are recognised, by content (`InputRecognizer` asks).
package enum CSVInput {
  /// `.splitFolder` for a folder holding healthport's `export.csv`; `.table` for a file whose
  /// first line is a CSV header with a type-like or start-date-like column (or any file named
  /// `*.csv` that is not XML or zip, so that its problems are reported as CSV problems); nil
  /// for everything else (XML, zip, export folders, unreadable paths).
  package static func detect(path: String) -> CSVInputKind? {
    switch InputRecognizer.format(ofPath: path) {
    case .csvSplit: .splitFolder
    case .csv: .table
    default: nil
    }
  }

  /// The first line of a file is looked for in its first 64 KiB.
  static let firstLineLimit = 64 << 10

  /// A CSV table: its first line (in the first 64 KiB, after a byte order mark) is a CSV header
  /// naming a type-like or start-date-like column, or, for a regular file named `*.csv`, is not
  /// the start of another format; or, after blank lines, the first line that is not blank is such
  /// a header.
  static func recognise(_ head: InputHead) -> InputHead.Recognition {
    var window = head.bytes.prefix(firstLineLimit)
    if window.starts(with: [0xEF, 0xBB, 0xBF]) { window = window.dropFirst(3) }
    // XML, JSON and zip are told by their first bytes; no need to wait for the line's end.
    let startsOtherFormat = window.first.map { [UInt8(ascii: "<"), UInt8(ascii: "{"), UInt8(ascii: "[")].contains($0) }
    if startsOtherFormat != true {
      var line = window
      if let end = window.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
        line = window[..<end]
      } else if !head.isComplete && head.bytes.count < firstLineLimit {
        return .needMore
      }
      let named = head.fileName?.lowercased().hasSuffix(".csv") == true
      if !isOtherFormat(line) && (named || isTableHeader(line)) { return .yes }
    }
    guard let start = head.firstNonBlankIndex else { return head.undecided }
    if head.bytes[start] == UInt8(ascii: "<") || head.bytes[start] == UInt8(ascii: "{") { return .no }
    var line = head.bytes[start...]
    if let end = line.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
      line = line[..<end]
    } else if !head.isComplete {
      return .needMore
    }
    return isTableHeader(line) ? .yes : .no
  }

  /// True for a folder holding the `export.csv` of `convert --to csv --split` (its header row).
  static func isSplitFolder(_ path: String) -> Bool {
    guard let line = firstLine(path + "/export.csv") else { return false }
    return CSVSplitSchema.Table.export.readColumns(header: headerNames(line, delimiter: CSVEncoding.comma)) != nil
  }

  /// The names of a header line (without BOM or line break), split at `delimiter` and unquoted
  /// by the tables' own row reader (RFC 4180: a quoted field loses its quotes, `""` inside it is
  /// one `"`); none when the line is not a row (an unclosed quote). healthport quotes every name
  /// of the headers it writes (``CSVEncoding/appendHeader(_:to:)``); its earlier versions and
  /// other tools quote none or some, and all read alike.
  static func headerNames(_ line: ArraySlice<UInt8>, delimiter: UInt8) -> [String] {
    let source = MemoryByteSource(bytes: Array(line), name: "")
    guard let reader = try? CSVRowReader(source: source, bufferSize: 4096) else { return [] }
    reader.delimiter = delimiter
    guard (try? reader.next()) == true else { return [] }
    return (0..<reader.fieldCount).map { reader.string($0) }
  }

  /// True when a first line is the start of XML, JSON or a zip (or binary), never CSV.
  static func isOtherFormat(_ line: ArraySlice<UInt8>) -> Bool {
    if let first = line.first, first == UInt8(ascii: "<") || first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
      return true
    }
    return line.starts(with: [0x50, 0x4B]) || line.contains(0)
  }

  /// True when `line` (without BOM or line break) is a CSV header naming a type-like or a
  /// start-date-like column, or a table of Workouts or ActivitySummaries (``CSVElementTable``):
  /// how a CSV table is told from its content alone (stdin).
  static func isTableHeader(_ line: ArraySlice<UInt8>) -> Bool {
    guard !isOtherFormat(line) else { return false }
    let names = headerNames(line, delimiter: CSVRecordsReader.detectDelimiter(line))
    let columns = CSVRecordsReader.mapColumns(names)
    return columns[.type] != nil || columns[.startDate] != nil
      || CSVElementTable(header: names, columns: columns) != nil
  }

  /// The header lines of tdda/applehealthdata 1.3's files: a per-type Record table, `Workout.csv`
  /// and `ActivitySummary.csv`. It quotes every string and escapes with backslashes (`\"`, `\\`)
  /// instead of doubling quotes as RFC 4180 does.
  static let backslashDialectHeaders: [[UInt8]] = [
    "sourceName,sourceVersion,device,type,unit,creationDate,startDate,endDate,value",
    "sourceName,sourceVersion,device,creationDate,startDate,endDate,workoutActivityType,duration,durationUnit,"
      + "totalDistance,totalDistanceUnit,totalEnergyBurned,totalEnergyBurnedUnit",
    "dateComponents,activeEnergyBurned,activeEnergyBurnedGoal,activeEnergyBurnedUnit,appleExerciseTime,"
      + "appleExerciseTimeGoal,appleStandHours,appleStandHoursGoal",
  ].map { Array($0.utf8) }

  /// Whether a table is read with backslash escapes inside quoted fields (``CSVRowReader/backslashEscapes``):
  /// when its first line (without BOM or line break) is, byte for byte, one of
  /// ``backslashDialectHeaders``. Every other table is RFC 4180.
  static func isBackslashDialect(header line: ArraySlice<UInt8>) -> Bool {
    backslashDialectHeaders.contains { line.elementsEqual($0) }
  }

  /// The first line of a file (BOM and line break removed), from its first 64 KiB.
  static func firstLine(_ path: String) -> ArraySlice<UInt8>? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 64 << 10)
    var filled = 0
    while filled < bytes.count {
      let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
      if n < 0, errno == EINTR { continue }
      if n <= 0 { break }
      filled += n
      if bytes[0..<filled].contains(0x0A) { break }
    }
    var line = bytes[0..<filled]
    if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
    if let end = line.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) { line = line[..<end] }
    return line
  }
}

/// Reads a CSV input (a `--split` folder or one CSV table) into an ``ExportSink``, like
/// ``ExportReader`` reads XML.
package final class CSVExportReader {
  package let path: String
  package var options: ReadOptions
  package let kind: CSVInputKind

  /// `kind` defaults to what ``CSVInput/detect(path:)`` finds (a table when it finds nothing).
  package init(path: String, kind: CSVInputKind? = nil, options: ReadOptions = ReadOptions()) {
    self.path = path
    self.options = options
    self.kind = kind ?? CSVInput.detect(path: path) ?? .table
  }

  /// Reads the whole input into `sink`. Throws ``HealthPortError`` (`path:line:field: error: …`).
  @discardableResult
  package func read(into sink: ExportSink) throws -> ReadReport {
    switch kind {
    case .splitFolder:
      var directory = path
      while directory.count > 1, directory.hasSuffix("/") { directory.removeLast() }
      return try CSVSplitReader(directory: directory, options: options).read(into: sink)
    case .table: return try CSVRecordsReader(path: path, options: options).read(into: sink)
    }
  }
}
