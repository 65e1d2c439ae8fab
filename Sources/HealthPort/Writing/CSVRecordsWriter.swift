/// Writes the single-table CSV (`convert --to csv`): one row per top-level Record, RFC 4180,
/// UTF-8 without BOM, LF line endings, a header row.
///
/// Columns: `type,sourceName,sourceVersion,sourceProduct,device,unit,value,creationDate,
/// startDate,endDate,metadata`. Strings, dates and numbers are the original text; `metadata` is
/// a JSON object, or an array of `[key, value]` pairs when a key repeats (``CSVMetadataJSON``).
/// An absent attribute is an empty field; a present empty one is `""`. Correlations (and the
/// Records inside them), workouts and every other element kind are not part of this table
/// (`--split` holds them), nor are HRV beats or unknown attributes of Records.
///
/// ``end(_:)`` flushes the output; committing a file output is the caller's job.
public final class CSVRecordsWriter: ExportSink {
  public static let columns = [
    "type", "sourceName", "sourceVersion", "sourceProduct", "device", "unit", "value", "creationDate", "startDate",
    "endDate", "metadata",
  ]

  public let output: OutputStream
  public private(set) var rowCount = 0
  private var json: [UInt8] = []
  private var dates = CSVDateFormatter()
  private var wroteHeader = false

  public init(output: OutputStream) {
    self.output = output
  }

  public func begin(_ header: ExportHeader) throws {
    writeHeaderIfNeeded()
  }

  private func writeHeaderIfNeeded() {
    guard !wroteHeader else { return }
    wroteHeader = true
    CSVEncoding.appendHeader(Self.columns, to: &output.buffer)
  }

  public func consume(_ element: ExportElement) throws {
    guard case .record(let record) = element else { return }
    writeHeaderIfNeeded()
    CSVSplitWriter.appendRecordFields(record, dates: &dates, to: &output.buffer)
    output.buffer.append(CSVEncoding.comma)
    if !record.children.isEmpty {
      var entries: [MetadataEntry] = []
      for child in record.children { if case .metadata(let entry) = child { entries.append(entry) } }
      if !entries.isEmpty {
        json.removeAll(keepingCapacity: true)
        CSVMetadataJSON.appendMetadata(entries, to: &json)
        CSVEncoding.appendField(bytes: json, to: &output.buffer)
      }
    }
    output.buffer.append(CSVEncoding.newline)
    rowCount += 1
    try output.flushIfNeeded()
  }

  public func end(_ report: ReadReport) throws {
    writeHeaderIfNeeded()
    try output.flush()
  }
}
