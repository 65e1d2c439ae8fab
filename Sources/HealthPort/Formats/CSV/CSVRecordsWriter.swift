/// Writes the single-table CSV (`convert --to csv`): one row per top-level Record, RFC 4180,
/// UTF-8 without BOM, LF line endings, a header row.
///
/// Columns (``columns``, laid out in ``CSVRecordsTable``): `type,sourceName,sourceVersion,
/// sourceProduct,device,unit,value,valueText,creationDate,startDate,endDate,creationUTC,startUTC,
/// endUTC,metadata`. Strings are the original text; a numeric value goes to `value`, any other to
/// `valueText`; dates are ISO 8601 in the written offset, then in UTC; `metadata` is a JSON
/// object, or an array of `[key, value]` pairs when a key repeats (``CSVMetadataJSON``). An
/// absent attribute is an empty field; a present empty one is `""`. Correlations (and the
/// Records inside them), workouts and every other element kind are not part of this table
/// (`--split` holds them, with the export's own date strings), nor are HRV beats or unknown
/// attributes of Records.
///
/// ``end(_:)`` flushes the output; committing a file output is the caller's job.
public final class CSVRecordsWriter: ExportSink {
  public static let columns = CSVRecordsTable.columns

  public let output: OutputStream
  public private(set) var rowCount = 0
  private var out = ByteBuffer(capacity: OutputStream.blockSize + 64 << 10)
  private var fields = CSVRecordFields()
  private var dates = ExportDateFormatter(style: .iso)
  private var utc = ExportDateFormatter(style: .utc)
  private var wroteHeader = false
  private var entries: [MetadataEntry] = []
  private var json = ByteBuffer()

  public init(output: OutputStream) {
    self.output = output
  }

  public func begin(_ header: ExportHeader) throws {
    writeHeaderIfNeeded()
  }

  private func writeHeaderIfNeeded() {
    guard !wroteHeader else { return }
    wroteHeader = true
    CSVEncoding.appendHeader(Self.columns, to: &out)
  }

  public func consume(_ element: ExportElement) throws {
    guard case .record(let record) = element else { return }
    writeHeaderIfNeeded()
    fields.appendSource(record, to: &out)
    CSVRecordsTable.appendValue(record.value, to: &out)
    out.append(CSVEncoding.comma)
    Self.appendDates(record, &dates, to: &out)
    out.append(CSVEncoding.comma)
    Self.appendDates(record, &utc, to: &out)
    out.append(CSVEncoding.comma)
    if !record.children.isEmpty { appendMetadata(record.children) }
    out.append(CSVEncoding.newline)
    rowCount += 1
    if out.count >= OutputStream.blockSize { try flush() }
  }

  /// `creationDate,startDate,endDate` in one style (no trailing comma).
  @inline(__always)
  private static func appendDates(_ record: Record, _ formatter: inout ExportDateFormatter, to out: inout ByteBuffer) {
    formatter.append(record.creationDate, to: &out)
    out.append(CSVEncoding.comma)
    formatter.append(record.startDate, to: &out)
    out.append(CSVEncoding.comma)
    formatter.append(record.endDate, to: &out)
  }

  /// The `metadata` column: the Record's MetadataEntry children as JSON, quoted as CSV needs.
  private func appendMetadata(_ children: [Record.Child]) {
    entries.removeAll(keepingCapacity: true)
    for child in children { if case .metadata(let entry) = child { entries.append(entry) } }
    guard !entries.isEmpty else { return }
    json.removeAll()
    CSVMetadataJSON.appendMetadata(entries, to: &json)
    CSVEncoding.appendField(json.bytes(in: 0..<json.count), to: &out)
  }

  public func end(_ report: ReadReport) throws {
    writeHeaderIfNeeded()
    try flush()
  }

  private func flush() throws {
    try output.write(out)
    out.removeAll()
  }
}

/// The Record columns of the `--split` record tables:
/// `type,sourceName,sourceVersion,sourceProduct,device,unit,value,creationDate,startDate,endDate`,
/// and the first six of them in the single table.
///
/// The fields that repeat from row to row are encoded once per run (``EncodedFieldCache``).
struct CSVRecordFields {
  private var type = EncodedFieldCache()
  private var sourceName = EncodedFieldCache()
  private var sourceVersion = EncodedFieldCache()
  private var sourceProduct = EncodedFieldCache()
  private var unit = EncodedFieldCache()
  private var deviceRest = EncodedFieldCache()

  @inline(__always)
  static func encode(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout ByteBuffer) {
    CSVEncoding.appendField(bytes, to: &out)
  }

  @inline(__always)
  private static func append(_ text: String?, _ cache: inout EncodedFieldCache, to out: inout ByteBuffer) {
    if let text { cache.append(text, to: &out, encode: encode) }
    out.append(CSVEncoding.comma)
  }

  mutating func append(_ record: Record, dates: inout ExportDateFormatter, to out: inout ByteBuffer) {
    appendSource(record, to: &out)
    CSVEncoding.appendField(record.value, to: &out)
    out.append(CSVEncoding.comma)
    dates.append(record.creationDate, to: &out)
    out.append(CSVEncoding.comma)
    dates.append(record.startDate, to: &out)
    out.append(CSVEncoding.comma)
    dates.append(record.endDate, to: &out)
  }

  /// `type,sourceName,sourceVersion,sourceProduct,device,unit,` (with the trailing comma).
  @inline(__always)
  mutating func appendSource(_ record: Record, to out: inout ByteBuffer) {
    Self.append(record.type, &type, to: &out)
    Self.append(record.sourceName, &sourceName, to: &out)
    Self.append(record.sourceVersion, &sourceVersion, to: &out)
    Self.append(record.sourceProduct, &sourceProduct, to: &out)
    if let device = record.deviceString { appendDevice(device, to: &out) }
    out.append(CSVEncoding.comma)
    Self.append(record.unit, &unit, to: &out)
  }

  /// A device string: `"<<HKDevice: 0x…` with the address, then the shared rest, encoded once
  /// per run; the cache's flag says whether the rest needs the field quoted.
  @inline(__always)
  private mutating func appendDevice(_ device: DeviceString, to out: inout ByteBuffer) {
    guard let address = device.address else {
      CSVEncoding.appendField(device, to: &out)
      return
    }
    if !deviceRest.holds(device.rest) {
      device.rest.withUTF8Bytes { rest in
        let quoted = CSVEncoding.needsQuotes(rest)
        var escaped: [UInt8] = []
        if quoted { CSVEncoding.appendDoublingQuotes(rest, to: &escaped) } else { escaped.append(contentsOf: rest) }
        escaped.withUnsafeBufferPointer { deviceRest.store(device.rest, encoded: $0, flag: quoted) }
      }
    }
    let quoted = deviceRest.flag
    if quoted { out.append(CSVEncoding.quote) }
    out.append("<<HKDevice: 0x")
    DeviceString.appendHex(address, to: &out)
    deviceRest.append(to: &out)
    if quoted { out.append(CSVEncoding.quote) }
  }
}
