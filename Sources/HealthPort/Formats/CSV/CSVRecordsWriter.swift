/// Writes the single-table CSV (`convert --to csv`): one row per top-level Record, RFC 4180,
/// UTF-8 without BOM, LF line endings, a header row.
///
/// Columns (``columns``, laid out in `CSVRecordsTable`): `type,sourceName,sourceVersion,
/// sourceProduct,device,unit,value,valueText,creationDate,startDate,endDate,creationUTC,startUTC,
/// endUTC,metadata`. Strings are the original text; a numeric value goes to `value`, any other to
/// `valueText`; dates are ISO 8601 in the written offset, then in UTC; `metadata` is a JSON
/// object, or an array of `[key, value]` pairs when a key repeats (`CSVMetadataJSON`). An
/// absent attribute is an empty field; a present empty one is `""`. Correlations (and the
/// Records inside them), workouts and every other element kind are not part of this table
/// (`--split` holds them, with the export's own date strings), nor are HRV beats or unknown
/// attributes of Records.
///
/// ``end(_:)`` flushes the output; committing a file output is the caller's job.
package final class CSVRecordsWriter: ExportSink {
  package static let columns = CSVRecordsTable.columns

  package let output: OutputStream
  package private(set) var rowCount = 0
  private var out = ByteBuffer(capacity: OutputStream.blockSize + 64 << 10)
  private var rows = CSVRecordRows()
  private var wroteHeader = false
  private let encodedRows = Spares<EncodedRows>()

  package init(output: OutputStream) {
    self.output = output
  }

  package func begin(_ header: ExportHeader) throws {
    writeHeaderIfNeeded()
  }

  private func writeHeaderIfNeeded() {
    guard !wroteHeader else { return }
    wroteHeader = true
    CSVEncoding.appendHeader(Self.columns, to: &out)
  }

  package func consume(_ element: ExportElement) throws {
    guard case .record(let record) = element else { return }
    writeHeaderIfNeeded()
    rows.append(record, to: &out)
    rowCount += 1
    if out.count >= OutputStream.blockSize { try flush() }
  }

  package func end(_ report: ReadReport) throws {
    writeHeaderIfNeeded()
    try flush()
  }

  private func flush() throws {
    try output.write(out)
    out.removeAll()
  }
}

extension CSVRecordsWriter: RangeWorkSharing {
  /// Rows are encoded on the parsing threads; this thread writes them.
  func makeRangeWorker() -> (any RangeWorker)? { Worker(spares: encodedRows) }

  func absorb(_ result: any RangeResult) throws {
    let result = result as! EncodedRows
    writeHeaderIfNeeded()
    try result.write(after: &out, to: output)
    rowCount += result.rows
    result.giveBack(to: encodedRows)
  }

  private final class Worker: RangeWorker {
    let spares: Spares<EncodedRows>
    var rows = CSVRecordRows()
    var result: EncodedRows

    init(spares: Spares<EncodedRows>) {
      self.spares = spares
      result = EncodedRows.take(from: spares)
    }

    func process(_ element: consuming ExportElement) throws {
      guard case .record(let record) = consume element else { return }
      rows.append(record, to: &result.bytes)
      result.endRow()
    }

    func finishRange() -> any RangeResult {
      defer { result = EncodedRows.take(from: spares) }
      return result
    }

    var takesRecordTags: Bool { true }

    func startRecord(_ tag: borrowing RecordTag) throws { rows.appendHead(tag, to: &result.bytes) }

    func endRecord(children: borrowing RecordChildren, text: String?) throws {
      rows.appendTail(children, to: &result.bytes)
      result.endRow()
    }
  }
}

/// Encodes a Record as a row of the single table, the caches of repeated fields its own.
struct CSVRecordRows: ~Copyable {
  private var fields = CSVRecordFields()
  private var dates = ExportDateFormatter(style: .iso)
  private var utc = ExportDateFormatter(style: .utc)
  private var entries: [MetadataEntry] = []
  private var json = ByteBuffer()

  /// The row, with its line feed: the Record as its tag (``Record/withTag(_:)``), one encoder.
  mutating func append(_ record: Record, to out: inout ByteBuffer) {
    record.withTag { appendHead($0, to: &out) }
    appendTail(record.children, to: &out)
  }

  /// The row of a Record from its start tag (``RecordTag``), up to its `metadata` column:
  /// ``appendTail(_:to:)`` ends it with the Record's children.
  mutating func appendHead(_ tag: borrowing RecordTag, to out: inout ByteBuffer) {
    fields.appendSource(tag, to: &out)
    CSVRecordsTable.appendValue(tag.value, to: &out)
    out.append(CSVEncoding.comma)
    appendDates(tag.creationDate, tag.startDate, tag.endDate, to: &out)
  }

  /// The `metadata` column of a Record with these children, and the line feed.
  @inline(__always)
  mutating func appendTail(_ children: RecordChildren, to out: inout ByteBuffer) {
    if !children.isEmpty { appendMetadata(children, to: &out) }
    out.append(CSVEncoding.newline)
  }

  /// `creationDate,startDate,endDate,creationUTC,startUTC,endUTC,` (with the trailing comma).
  @inline(__always)
  private mutating func appendDates(
    _ creation: HealthDate?, _ start: HealthDate, _ end: HealthDate, to out: inout ByteBuffer
  ) {
    Self.appendDates(creation, start, end, &dates, to: &out)
    out.append(CSVEncoding.comma)
    Self.appendDates(creation, start, end, &utc, to: &out)
    out.append(CSVEncoding.comma)
  }

  /// `creationDate,startDate,endDate` in one style (no trailing comma).
  @inline(__always)
  private static func appendDates(
    _ creation: HealthDate?, _ start: HealthDate, _ end: HealthDate, _ formatter: inout ExportDateFormatter,
    to out: inout ByteBuffer
  ) {
    formatter.append(creation, to: &out)
    out.append(CSVEncoding.comma)
    formatter.append(start, to: &out)
    out.append(CSVEncoding.comma)
    formatter.append(end, to: &out)
  }

  /// The `metadata` column: the Record's MetadataEntry children as JSON, quoted as CSV needs.
  private mutating func appendMetadata(_ children: RecordChildren, to out: inout ByteBuffer) {
    entries.removeAll(keepingCapacity: true)
    if let children = children.unpacked {
      for child in children { if case .metadata(let entry) = child { entries.append(entry) } }
    } else {
      for child in children { if case .metadata(let entry) = child { entries.append(entry) } }
    }
    guard !entries.isEmpty else { return }
    json.removeAll()
    CSVMetadataJSON.appendMetadata(entries, to: &json)
    CSVEncoding.appendField(json.bytes(in: 0..<json.count), to: &out)
  }
}
