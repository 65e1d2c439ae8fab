/// Writes an export in the Health app's own `export.xml` layout (FORMAT.md §2, §13).
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
///   else is raw UTF-8. Control characters that XML 1.0 forbids cannot be written and are dropped.
/// - An element holding text (never in Apple exports) is written on one line, its children
///   included, so that the text reads back exactly.
public final class XMLExportWriter: ExportSink {
  private let output: OutputStream
  private var emitter = XMLEmitter()
  private var rootName = "HealthData"

  /// Writes into `output`; the caller commits or aborts it.
  public init(output: OutputStream) {
    self.output = output
  }

  public func begin(_ header: ExportHeader) throws {
    rootName = header.rootName
    if header.prolog.isEmpty {
      emitter.out.append(contentsOf: HealthKitExportDTD.prolog.utf8)
    } else {
      emitter.out.append(contentsOf: header.prolog)
    }
    emitter.out.append(UInt8(ascii: "<"))
    emitter.out.append(contentsOf: header.rootName.utf8)
    for attribute in header.rootAttributes { emitter.attribute(Name(attribute.name), attribute.value) }
    emitter.out.append(contentsOf: [UInt8(ascii: ">"), 0x0A])
    try flushIfNeeded()
  }

  public func consume(_ element: ExportElement) throws {
    emitter.emit(element)
    try flushIfNeeded()
  }

  public func end(_ report: ReadReport) throws {
    emitter.out.append(contentsOf: Array("</\(rootName)>\n".utf8))
    try flush()
  }

  @inline(__always)
  private func flushIfNeeded() throws {
    if emitter.out.count >= OutputStream.blockSize { try flush() }
  }

  /// Hands the buffer to the output without copying it.
  private func flush() throws {
    swap(&emitter.out, &output.buffer)
    defer { swap(&emitter.out, &output.buffer) }
    try output.flush()
  }
}

/// Appends elements as export XML to a byte buffer.
struct XMLEmitter: ElementEmitter {
  var out: [UInt8] = []
  /// Nesting depth below the root (top-level elements are at 1).
  private var depth = 1
  /// > 0 inside an element written on one line because it holds text.
  private var inlineDepth = 0
  private var deviceCache = EscapedStringCache()

  init() { out.reserveCapacity(OutputStream.blockSize * 2) }

  @inline(__always)
  private mutating func indent() {
    for _ in 0..<depth { out.append(0x20) }
  }

  mutating func begin(_ name: Name) {
    if inlineDepth == 0 { indent() }
    out.append(UInt8(ascii: "<"))
    name.append(to: &out)
  }

  @inline(__always)
  mutating func attribute(_ name: Name, _ value: String) {
    out.append(0x20)
    name.append(to: &out)
    out.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "\"")])
    XMLEscaping.appendEscaped(value, to: &out)
    out.append(UInt8(ascii: "\""))
  }

  @inline(__always)
  mutating func attribute(_ name: Name, _ date: HealthDate) {
    out.append(0x20)
    name.append(to: &out)
    out.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "\"")])
    date.append(to: &out)
    out.append(UInt8(ascii: "\""))
  }

  mutating func attribute(_ name: Name, _ device: DeviceString) {
    out.append(0x20)
    name.append(to: &out)
    out.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "\"")])
    if let address = device.address {
      let head: StaticString = "&lt;&lt;HKDevice: 0x"
      out.append(contentsOf: UnsafeBufferPointer(start: head.utf8Start, count: head.utf8CodeUnitCount))
      DeviceString.appendHex(address, to: &out)
    }
    deviceCache.append(device.rest, to: &out) { XMLEscaping.appendEscaped($0, to: &$1) }
    out.append(UInt8(ascii: "\""))
  }

  @inline(__always)
  mutating func numericAttribute(_ name: Name, _ value: String) { attribute(name, value) }

  mutating func endEmpty() {
    out.append(contentsOf: [UInt8(ascii: "/"), UInt8(ascii: ">")])
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
    out.append(contentsOf: [UInt8(ascii: "<"), UInt8(ascii: "/")])
    name.append(to: &out)
    out.append(UInt8(ascii: ">"))
    if inlineDepth == 0 { out.append(0x0A) }
  }
}

/// XML escaping on bytes: unescaped runs are copied in one go.
enum XMLEscaping {
  /// Bytes below 0x40 that need work: control characters (escaped or dropped), `"`, `&`, `<`, `>`.
  static let specialMask: UInt64 = 0x5000_0044_FFFF_FFFF

  @inline(__always)
  static func isSpecial(_ byte: UInt8) -> Bool { byte < 0x40 && (specialMask >> UInt64(byte)) & 1 != 0 }

  /// Appends `text` escaped for an attribute value (or, with `isText`, for character data, where
  /// line feeds and tabs stay raw).
  @inline(__always)
  static func appendEscaped(_ text: String, to out: inout [UInt8], isText: Bool = false) {
    // Native strings are contiguous UTF-8: read them in place, without a copy.
    if text.utf8.withContiguousStorageIfAvailable({ appendEscaped(bytes: $0, to: &out, isText: isText) }) == nil {
      var copy = text
      copy.withUTF8 { appendEscaped(bytes: $0, to: &out, isText: isText) }
    }
  }

  @inline(__always)
  static func appendEscaped(bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8], isText: Bool) {
    var runStart = 0
    var index = 0
    let count = bytes.count
    while index < count {
      let byte = bytes[index]
      if !isSpecial(byte) {
        index += 1
        continue
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
      index += 1
      runStart = index
      switch byte {
      case 0x22: out.append(contentsOf: [0x26, 0x71, 0x75, 0x6F, 0x74, 0x3B])  // &quot;
      case 0x26: out.append(contentsOf: [0x26, 0x61, 0x6D, 0x70, 0x3B])  // &amp;
      case 0x3C: out.append(contentsOf: [0x26, 0x6C, 0x74, 0x3B])  // &lt;
      case 0x3E: out.append(contentsOf: [0x26, 0x67, 0x74, 0x3B])  // &gt;
      case 0x0A: if isText { out.append(0x0A) } else { out.append(contentsOf: [0x26, 0x23, 0x31, 0x30, 0x3B]) }
      case 0x09: if isText { out.append(0x09) } else { out.append(contentsOf: [0x26, 0x23, 0x39, 0x3B]) }
      case 0x0D: out.append(contentsOf: [0x26, 0x23, 0x31, 0x33, 0x3B])  // &#13;
      default: break  // forbidden control character: dropped
      }
    }
    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
  }
}
