import Foundation

/// Writes an export as JSON Lines (`--to jsonl`), healthport's lossless interchange form, or as
/// one JSON document with the same content (`--to json`), streamed element by element.
///
/// JSON Lines: line 1 is the header, then one line per top-level element in document order
/// (`ExportDate` and `Me` included, on their own lines):
///
/// ```
/// {"kind":"header","format":"healthport-jsonl","version":1,"root":"HealthData","attributes":{"locale":"en_US"},"exportVersion":14,"exportDate":"2024-12-03 20:15:42 +0100","prolog":"<?xml …"}
/// {"element":"ExportDate","attributes":{"value":"2024-12-03 20:15:42 +0100"}}
/// {"element":"Record","attributes":{"type":"HKQuantityTypeIdentifierHeartRate",…,"value":"58"},"numbers":{"value":58},"children":[{"element":"MetadataEntry","attributes":{"key":"HKMetadataKeyHeartRateMotionContext","value":"1"}}]}
/// ```
///
/// Attributes keep their order (JSON object keys in document order) and their text exactly;
/// `numbers` repeats numeric attributes as JSON numbers for convenience and is ignored on
/// reading, as are the header's `format`, `version`, `exportVersion` and `exportDate`. The
/// prolog is a JSON string (`prologBase64` when it is not valid UTF-8).
///
/// The JSON document: `{"format":"healthport-json","version":1,"header":{…},"elements":[` then
/// one element per line separated by commas, then `]}`.
package final class JSONLinesWriter: ExportSink {
  package enum Style: Sendable {
    /// One JSON value per line.
    case lines
    /// One JSON document.
    case document
  }

  private let output: OutputStream
  private let style: Style
  private var emitter = JSONEmitter()
  private var pendingHeader: ExportHeader?
  private var elementsWritten = 0
  private let encodedRows = Spares<EncodedRows>()
  private var sideLines = JSONSideFileLines()
  private var sideOut: [UInt8] = []

  package init(output: OutputStream, style: Style = .lines) {
    self.output = output
    self.style = style
  }

  package func begin(_ header: ExportHeader) throws {
    // Held back until the first element, so that the header line can show the export date.
    pendingHeader = header
  }

  package func consume(_ element: ExportElement) throws {
    if let header = pendingHeader {
      pendingHeader = nil
      var exportDate: String?
      if case .exportDate(let date) = element { exportDate = date.value }
      writeHeader(header, exportDate: exportDate)
    }
    if style == .document && elementsWritten > 0 { emitter.out.append(UInt8(ascii: ",")) }
    emitter.emit(element)
    emitter.out.append(0x0A)
    elementsWritten += 1
    if emitter.out.count >= OutputStream.blockSize { try flush() }
  }

  /// JSON Lines carries the whole bundle (the JSON document does not).
  package var capabilities: SinkCapabilities { style == .lines ? [.sideFiles, .bundleMembers] : [] }

  package func consumeSideFile(_ event: SideFileEvent) throws {
    sideLines.append(event, to: &sideOut)
    try flushSideLines()
  }

  package func consumeBundleEvent(_ event: BundleEvent) throws {
    if case .member(let member) = event, member.kind == .export, pendingHeader != nil || elementsWritten == 0 {
      sideLines.exportMember = member
      return
    }
    sideLines.append(event, to: &sideOut)
    try flushSideLines()
  }

  private func flushSideLines() throws {
    guard sideOut.count >= OutputStream.blockSize else { return }
    try writeSideLines()
  }

  private func writeSideLines() throws {
    if let header = pendingHeader {
      pendingHeader = nil
      writeHeader(header, exportDate: nil)
    }
    emitter.out.append(bytes: sideOut)
    sideOut.removeAll(keepingCapacity: true)
    try flush()
  }

  package func end(_ report: ReadReport) throws {
    if !sideOut.isEmpty { try writeSideLines() }
    if let header = pendingHeader {
      pendingHeader = nil
      writeHeader(header, exportDate: nil)
    }
    if style == .document { emitter.out.append("]}\n") }
    try flush()
  }

  private func writeHeader(_ header: ExportHeader, exportDate: String?) {
    var out: [UInt8] = []
    if style == .document {
      out.append(contentsOf: Array(#"{"format":"healthport-json","version":1,"header":"#.utf8))
    }
    out.append(contentsOf: Array(#"{"kind":"header","format":"healthport-jsonl","version":1,"root":"#.utf8))
    JSONEscaping.appendString(header.rootName, to: &out)
    out.append(contentsOf: Array(#","attributes":{"#.utf8))
    for (index, attribute) in header.rootAttributes.enumerated() {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      JSONEscaping.appendString(attribute.name, to: &out)
      out.append(UInt8(ascii: ":"))
      JSONEscaping.appendString(attribute.value, to: &out)
    }
    out.append(contentsOf: Array(#"},"exportVersion":"#.utf8))
    if let version = header.exportVersion {
      JSONEscaping.appendInteger(version, to: &out)
    } else {
      out.append(contentsOf: Array("null".utf8))
    }
    out.append(contentsOf: Array(#","exportDate":"#.utf8))
    JSONEscaping.appendOptional(exportDate, to: &out)
    let prolog = String(decoding: header.prolog, as: UTF8.self)
    if Array(prolog.utf8) == header.prolog {
      out.append(contentsOf: Array(#","prolog":"#.utf8))
      JSONEscaping.appendString(prolog, to: &out)
    } else {
      out.append(contentsOf: Array(#","prologBase64":"#.utf8))
      JSONEscaping.appendString(Data(header.prolog).base64EncodedString(), to: &out)
    }
    sideLines.headerMember(to: &out)
    out.append(UInt8(ascii: "}"))
    if style == .document { out.append(contentsOf: Array(#","elements":["#.utf8)) }
    out.append(0x0A)
    emitter.out.append(bytes: out)
  }

  private func flush() throws {
    try output.write(emitter.out)
    emitter.out.removeAll()
  }
}

extension JSONLinesWriter: RangeWorkSharing {
  /// Lines are encoded on the parsing threads; this thread writes them after the header.
  func makeRangeWorker() -> (any RangeWorker)? { Worker(style: style, spares: encodedRows) }

  func absorb(_ result: any RangeResult) throws {
    let result = result as! EncodedRows
    guard result.rows > 0 else { return }
    if let header = pendingHeader {
      pendingHeader = nil
      writeHeader(header, exportDate: result.leadingExportDate)
    }
    if style == .document && elementsWritten > 0 { emitter.out.append(UInt8(ascii: ",")) }
    try result.write(after: &emitter.out, to: output)
    elementsWritten += result.rows
    result.giveBack(to: encodedRows)
  }

  private final class Worker: RangeWorker {
    let style: Style
    let spares: Spares<EncodedRows>
    var emitter = JSONEmitter()
    var result: EncodedRows

    init(style: Style, spares: Spares<EncodedRows>) {
      self.style = style
      self.spares = spares
      result = EncodedRows.take(from: spares)
    }

    /// As ``JSONLinesWriter/consume(_:)``, but for the first element's comma (the writer's).
    func process(_ element: consuming ExportElement) throws {
      if result.rows == 0, case .exportDate(let date) = element { result.leadingExportDate = date.value }
      if style == .document && result.rows > 0 { emitter.out.append(UInt8(ascii: ",")) }
      emitter.emit(element)
      emitter.out.append(0x0A)
      result.rowEnds.append(emitter.out.count)
    }

    func finishRange() -> any RangeResult {
      swap(&emitter.out, &result.bytes)
      defer { result = EncodedRows.take(from: spares) }
      return result
    }

    var takesRecordTags: Bool { true }

    func startRecord(_ tag: borrowing RecordTag) throws {
      if style == .document && result.rows > 0 { emitter.out.append(UInt8(ascii: ",")) }
      emitter.beginRecord(tag)
    }

    func endRecord(children: borrowing RecordChildren, text: String?) throws {
      emitter.finishRecord(children, text: text)
      emitter.out.append(0x0A)
      result.rowEnds.append(emitter.out.count)
    }
  }
}

/// Appends elements as JSON objects: `{"element":…,"attributes":{…},"numbers":{…},"text":…,"children":[…]}`.
struct JSONEmitter: ElementEmitter, ~Copyable {
  var out = ByteBuffer(capacity: OutputStream.blockSize + 64 << 10)
  /// For each open `children` array: whether it is still empty.
  private var childrenEmpty: [Bool] = []
  private var firstAttribute = true
  /// The numeric attributes of the open element: name, and where its value's text is in `out`.
  private var numbers: [(Name, Range<Int>)] = []
  /// How many entries of `numbers` belong to the open element (the array is reused).
  private var numberCount = 0
  /// The open element's first numeric attribute when its name is a literal and its text a JSON
  /// number (a Record's value, a beat's bpm), kept apart from `numbers`, which costs more.
  private var quickNumber: (name: StaticString, range: Range<Int>)?
  private var strings = EscapedStringCache()
  private var dates = ExportDateFormatter()
  private var deviceRest = EncodedBytesCache()

  init() {
    childrenEmpty.reserveCapacity(8)
    numbers.reserveCapacity(8)
  }

  mutating func begin(_ name: Name) {
    if let last = childrenEmpty.indices.last {
      if !childrenEmpty[last] { out.append(UInt8(ascii: ",")) }
      childrenEmpty[last] = false
    }
    out.append(#"{"element":"#)
    name.appendJSON(to: &out)
    out.append(#","attributes":{"#)
    firstAttribute = true
  }

  @inline(__always)
  private mutating func key(_ name: Name) {
    name.appendJSONKey(to: &out, comma: !firstAttribute, quote: true)
    firstAttribute = false
  }

  @inline(__always)
  static func escape(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout ByteBuffer) {
    JSONEscaping.appendEscaped(bytes, to: &out)
  }

  mutating func attribute(_ name: Name, _ value: String) {
    key(name)
    strings.append(value, to: &out, encode: Self.escape)
    out.append(UInt8(ascii: "\""))
  }

  mutating func attribute(_ name: Name, _ date: HealthDate) {
    key(name)
    dates.append(date, to: &out, trailer: UInt8(ascii: "\""))
  }

  mutating func attribute(_ name: Name, _ device: DeviceString) {
    device.rest.withUTF8Bytes { deviceAttribute(name, address: device.address, zeros: device.addressZeros, rest: $0) }
  }

  /// A device string from its address and the bytes of its rest, the rest's escaping kept while
  /// the next Records' rests have the same bytes.
  @inline(__always)
  private mutating func deviceAttribute(
    _ name: Name, address: UInt64?, zeros: UInt8, rest: UnsafeBufferPointer<UInt8>
  ) {
    key(name)
    if let address {
      out.append("<<HKDevice: 0x")
      DeviceString.appendHex(address, zeros: zeros, to: &out)
    }
    if deviceRest.holds(rest) {
      deviceRest.append(to: &out)
    } else {
      let start = out.count
      Self.escape(rest, to: &out)
      deviceRest.store(rest, encoded: out.bytes(in: start..<out.count))
    }
    out.append(UInt8(ascii: "\""))
  }

  /// A built Record, written as its start tag (``Record/withTag(_:)``): one Record encoder.
  mutating func beginRecord(_ record: Record) {
    record.withTag { beginRecord($0) }
  }

  /// A Record from its start tag (``RecordTag``), its attributes written and the element left
  /// open for ``finishRecord(_:text:)`` with its children.
  mutating func beginRecord(_ tag: borrowing RecordTag) {
    begin("Record")
    attribute("type", bytes: tag.type)
    attribute("sourceName", bytes: tag.sourceName)
    if let version = tag.sourceVersion { attribute("sourceVersion", bytes: version) }
    if let rest = tag.deviceRest {
      deviceAttribute("device", address: tag.deviceAddress, zeros: tag.deviceZeros, rest: rest)
    }
    if let unit = tag.unit { attribute("unit", bytes: unit) }
    attribute("creationDate", tag.creationDate)
    attribute("startDate", tag.startDate)
    attribute("endDate", tag.endDate)
    if let value = tag.value { numericAttribute("value", bytes: value) }
    extras(tag.extraAttributes)
  }

  @inline(__always)
  private mutating func attribute(_ name: Name, bytes: UnsafeBufferPointer<UInt8>) {
    key(name)
    Self.escape(bytes, to: &out)
    out.append(UInt8(ascii: "\""))
  }

  mutating func numericAttribute(_ name: Name, _ value: String) {
    value.withUTF8Bytes { numericAttribute(name, bytes: $0) }
  }

  mutating func numericAttribute(_ name: Name, bytes value: UnsafeBufferPointer<UInt8>) {
    key(name)
    let start = out.count
    JSONEscaping.appendEscaped(value, to: &out)
    let range = start..<out.count
    out.append(UInt8(ascii: "\""))
    // The common case (a Record's value): the first number, a literal name, JSON-number text.
    if numberCount == 0, quickNumber == nil, case .literal(let text) = name.storage,
      JSONNumber.isJSONNumber(out.bytes(in: range))
    {
      quickNumber = (text, range)
      return
    }
    if numberCount < numbers.count {
      numbers[numberCount] = (name, range)
    } else {
      numbers.append((name, range))
    }
    numberCount += 1
  }

  private mutating func closeAttributes() {
    out.append(UInt8(ascii: "}"))
    guard quickNumber != nil || numberCount > 0 else { return }
    out.append(#","numbers":{"#)
    var first = true
    if let (name, range) = quickNumber {
      Name(stringLiteral: name).appendJSONKey(to: &out, comma: false, quote: false)
      out.appendCopy(of: range)
      quickNumber = nil
      first = false
    }
    for index in 0..<numberCount {
      let (name, range) = numbers[index]
      if JSONNumber.append(range, of: &out, key: name, first: first) { first = false }
    }
    out.append(UInt8(ascii: "}"))
    numberCount = 0
  }

  mutating func endEmpty() {
    closeAttributes()
    out.append(UInt8(ascii: "}"))
  }

  mutating func beginContent(text: String?) {
    closeAttributes()
    if let text {
      out.append(#","text":"#)
      JSONEscaping.appendString(text, to: &out)
    }
    out.append(#","children":["#)
    childrenEmpty.append(true)
  }

  mutating func endContent(_ name: Name) {
    childrenEmpty.removeLast()
    out.append("]}")
  }
}

/// Numbers written as text, turned into JSON numbers.
extension JSONNumber {
  /// Appends `"key":number` (preceded by a comma unless `first`) when the text in `range` of
  /// `out` (an attribute value written as a JSON string's contents) is a finite number; returns
  /// whether it did. Text that already is a JSON number is copied as it is.
  static func append(_ range: Range<Int>, of out: inout ByteBuffer, key: Name, first: Bool) -> Bool {
    let isJSON = isJSONNumber(out.bytes(in: range))
    var value = 0.0
    if !isJSON {
      // A number has no byte that JSON escapes, so the text in `out` is the attribute's text.
      let bytes = out.bytes(in: range)
      guard !bytes.contains(UInt8(ascii: "\\")),
        let parsed = Double(String(decoding: bytes, as: UTF8.self).trimmingBlanks()), parsed.isFinite
      else { return false }
      value = parsed
    }
    key.appendJSONKey(to: &out, comma: !first, quote: false)
    if isJSON {
      out.appendCopy(of: range)
    } else {
      JSONEscaping.appendNumber(value, to: &out)
    }
    return true
  }
}

extension String {
  fileprivate func trimmingBlanks() -> String {
    var slice = Substring(self)
    while slice.first == " " { slice.removeFirst() }
    while slice.last == " " { slice.removeLast() }
    return String(slice)
  }
}
