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
    CSVEncoding.appendDevice(address: address, quoted: deviceRest.flag, to: &out) { deviceRest.append(to: &$0) }
  }
}
