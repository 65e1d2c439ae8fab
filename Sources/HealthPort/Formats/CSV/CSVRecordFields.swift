/// The Record columns of the `--split` record tables:
/// `type,sourceName,sourceVersion,sourceProduct,device,unit,value,creationDate,startDate,endDate`,
/// and the first six of them in the single table.
///
/// One encoder, from a Record's start tag (``RecordTag``): a built Record is encoded as its tag
/// (``Record/withTag(_:)``). The product and the device's rest, which repeat from row to row, are
/// encoded once per run (``EncodedFieldCache``, ``EncodedBytesCache``).
struct CSVRecordFields {
  private var sourceProduct = EncodedFieldCache()
  private var deviceRest = EncodedBytesCache()

  @inline(__always)
  static func encode(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout ByteBuffer) {
    CSVEncoding.appendField(bytes, to: &out)
  }

  @inline(__always)
  private static func append(_ text: String?, _ cache: inout EncodedFieldCache, to out: inout ByteBuffer) {
    if let text { cache.append(text, to: &out, encode: encode) }
    out.append(CSVEncoding.comma)
  }

  mutating func append(_ record: Record, dates: inout CSVSplitDates, to out: inout ByteBuffer) {
    record.withTag { appendSource($0, to: &out) }
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
  mutating func appendSource(_ tag: borrowing RecordTag, to out: inout ByteBuffer) {
    CSVEncoding.appendField(tag.type, to: &out)
    out.append(CSVEncoding.comma)
    CSVEncoding.appendField(tag.sourceName, to: &out)
    out.append(CSVEncoding.comma)
    if let version = tag.sourceVersion { CSVEncoding.appendField(version, to: &out) }
    out.append(CSVEncoding.comma)
    Self.append(tag.head.sourceProduct, &sourceProduct, to: &out)
    if let rest = tag.deviceRest {
      appendDevice(address: tag.deviceAddress, zeros: tag.deviceZeros, rest: rest, to: &out)
    }
    out.append(CSVEncoding.comma)
    if let unit = tag.unit { CSVEncoding.appendField(unit, to: &out) }
    out.append(CSVEncoding.comma)
  }

  /// A device from its address and the bytes of its rest, the rest's encoding kept while the
  /// next Records' rests have the same bytes (its ~170 bytes compared rather than scanned).
  @inline(__always)
  private mutating func appendDevice(
    address: UInt64?, zeros: UInt8, rest: UnsafeBufferPointer<UInt8>, to out: inout ByteBuffer
  ) {
    guard let address else { return CSVEncoding.appendDevice(address: nil, zeros: 0, rest: rest, to: &out) }
    if !deviceRest.holds(rest) {
      // The field is quoted when the rest needs it; the stored rest has its quotes doubled then.
      let quoted = CSVEncoding.needsQuotes(rest)
      var escaped: [UInt8] = []
      if quoted { CSVEncoding.appendDoublingQuotes(rest, to: &escaped) } else { escaped.append(contentsOf: rest) }
      escaped.withUnsafeBufferPointer { deviceRest.store(rest, encoded: $0, flag: quoted) }
    }
    CSVEncoding.appendDevice(address: address, zeros: zeros, quoted: deviceRest.flag, to: &out) {
      deviceRest.append(to: &$0)
    }
  }
}
