/// Writes an export in the Health app's own `export.xml` layout: one space of indentation per level, `/>`
/// without a space, attributes in the app's order (README, "--to xml").
///
/// - The header's prolog is written verbatim (DTD included, a broken iOS 16.0 one too). When the
///   source had none (JSON Lines or CSV written by another tool), an XML declaration and
///   healthport's own DTD (``HealthKitExportDTD``) are written instead.
/// - `<HealthData …>` with the root's attributes in order, one space of indentation per nesting
///   level, LF line ends, `<Tag a="…"/>` for childless elements, `</HealthData>` + LF at the end.
/// - Typed elements: the attributes in the order the Health app writes them (absent ones are
///   omitted), then the unknown ones in their input order. Generic elements (`Me`,
///   `ActivitySummary`, …): the stored order. Children in model order.
/// - Attribute values escape `&` `<` `>` `"` and, so that they survive XML's attribute
///   normalisation, line feed, carriage return and tab as `&#10;` `&#13;` `&#9;`; everything
///   else is raw UTF-8. Control characters that XML 1.0 forbids cannot be written: they are
///   dropped, and counted for a warning (``removedControlCharacters``).
/// - An element holding text (never in Apple exports) is written on one line, its children
///   included, so that the text reads back exactly.
package final class XMLExportWriter: ExportSink, WriterWarnings {
  private let output: OutputStream
  private var emitter = XMLEmitter()
  private var rootName = "HealthData"

  /// Writes into `output`; the caller commits or aborts it.
  package init(output: OutputStream) {
    self.output = output
  }

  package func begin(_ header: ExportHeader) throws {
    rootName = header.rootName
    if header.prolog.isEmpty {
      emitter.out.append(bytes: Array(HealthKitExportDTD.prolog.utf8))
    } else {
      emitter.out.append(bytes: header.prolog)
    }
    emitter.out.append(UInt8(ascii: "<"))
    Name(header.rootName).append(to: &emitter.out)
    for attribute in header.rootAttributes { emitter.attribute(Name(attribute.name), attribute.value) }
    emitter.out.append(">\n")
    try flushIfNeeded()
  }

  package func consume(_ element: ExportElement) throws {
    emitter.emit(element)
    try flushIfNeeded()
  }

  /// Control characters left out of what was written so far, because XML 1.0 forbids them.
  package var removedControlCharacters: Int { emitter.out.removedCharacters }

  package func end(_ report: ReadReport) throws {
    emitter.out.append(bytes: Array("</\(rootName)>\n".utf8))
    try flush()
  }

  var writerWarnings: [String] {
    let removed = removedControlCharacters
    return removed == 0 ? [] : ["removed \(removed) control character(s) that XML 1.0 forbids"]
  }

  @inline(__always)
  private func flushIfNeeded() throws {
    if emitter.out.count >= OutputStream.blockSize { try flush() }
  }

  private func flush() throws {
    try output.write(emitter.out)
    emitter.out.removeAll()
  }
}

/// Appends elements as export XML to a byte buffer.
struct XMLEmitter: ElementEmitter, ~Copyable {
  var out = ByteBuffer(capacity: OutputStream.blockSize + 64 << 10)
  /// Nesting depth below the root (top-level elements are at 1).
  private var depth = 1
  /// > 0 inside an element written on one line because it holds text.
  private var inlineDepth = 0
  private var strings = EscapedStringCache()
  private var dates = ExportDateFormatter()
  private var head = RecordHeadCache()

  init() {}

  mutating func recordHead(_ record: Record, _ write: (inout XMLEmitter, Record) -> Void) {
    if head.replay(record, to: &out) { return }
    let start = out.count
    let removedBefore = out.removedCharacters
    write(&self, record)
    head.store(record, bytes: out.bytes(in: start..<out.count), removed: out.removedCharacters &- removedBefore)
  }

  @inline(__always)
  private mutating func indent() {
    for _ in 0..<depth { out.append(0x20) }
  }

  mutating func begin(_ name: Name) {
    if inlineDepth == 0 { indent() }
    out.append(UInt8(ascii: "<"))
    name.append(to: &out)
  }

  /// Appends ` name="`.
  @inline(__always)
  private mutating func open(_ name: Name) {
    name.appendXMLAttributeStart(to: &out)
  }

  @inline(__always)
  static func escape(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout ByteBuffer) {
    XMLEscaping.appendEscaped(bytes: bytes, to: &out, isText: false)
  }

  @inline(__always)
  mutating func attribute(_ name: Name, _ value: String) {
    open(name)
    strings.append(value, to: &out, encode: Self.escape)
    out.append(UInt8(ascii: "\""))
  }

  @inline(__always)
  mutating func attribute(_ name: Name, _ date: HealthDate) {
    open(name)
    dates.append(date, to: &out, trailer: UInt8(ascii: "\""))
  }

  mutating func attribute(_ name: Name, _ device: DeviceString) {
    open(name)
    if let address = device.address {
      out.append("&lt;&lt;HKDevice: 0x")
      DeviceString.appendHex(address, zeros: device.addressZeros, to: &out)
    }
    strings.append(device.rest, to: &out, encode: Self.escape)
    out.append(UInt8(ascii: "\""))
  }

  /// Numbers vary from element to element: escaped directly, not through the cache.
  @inline(__always)
  mutating func numericAttribute(_ name: Name, _ value: String) {
    name.appendXMLAttributeStart(to: &out)
    value.withUTF8Bytes { Self.escape($0, to: &out) }
    out.append(UInt8(ascii: "\""))
  }

  mutating func endEmpty() {
    out.append("/>")
    if inlineDepth == 0 { out.append(0x0A) }
  }

  mutating func beginContent(text: String?) {
    out.append(UInt8(ascii: ">"))
    if inlineDepth > 0 {
      inlineDepth += 1
    } else if text != nil {
      inlineDepth = 1
    } else {
      out.append(0x0A)
      depth += 1
      return
    }
    if let text { XMLEscaping.appendEscaped(text, to: &out, isText: true) }
  }

  mutating func endContent(_ name: Name) {
    if inlineDepth > 0 {
      inlineDepth -= 1
    } else {
      depth -= 1
      indent()
    }
    out.append("</")
    name.append(to: &out)
    out.append(UInt8(ascii: ">"))
    if inlineDepth == 0 { out.append(0x0A) }
  }
}
