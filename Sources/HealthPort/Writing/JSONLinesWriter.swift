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
public final class JSONLinesWriter: ExportSink {
  public enum Style: Sendable {
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

  public init(output: OutputStream, style: Style = .lines) {
    self.output = output
    self.style = style
  }

  public func begin(_ header: ExportHeader) throws {
    // Held back until the first element, so that the header line can show the export date.
    pendingHeader = header
  }

  public func consume(_ element: ExportElement) throws {
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

  public func end(_ report: ReadReport) throws {
    if let header = pendingHeader {
      pendingHeader = nil
      writeHeader(header, exportDate: nil)
    }
    if style == .document { emitter.out.append(contentsOf: Array("]}\n".utf8)) }
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
    out.append(UInt8(ascii: "}"))
    if style == .document { out.append(contentsOf: Array(#","elements":["#.utf8)) }
    out.append(0x0A)
    emitter.out.append(contentsOf: out)
  }

  /// Hands the buffer to the output without copying it.
  private func flush() throws {
    swap(&emitter.out, &output.buffer)
    defer { swap(&emitter.out, &output.buffer) }
    try output.flush()
  }
}

/// Appends elements as JSON objects: `{"element":…,"attributes":{…},"numbers":{…},"text":…,"children":[…]}`.
struct JSONEmitter: ElementEmitter {
  var out: [UInt8] = []
  /// For each open `children` array: whether it is still empty.
  private var childrenEmpty: [Bool] = []
  private var firstAttribute = true
  private var numbers: [(Name, String)] = []
  private var deviceCache = EscapedStringCache()

  init() {
    out.reserveCapacity(OutputStream.blockSize * 2)
    childrenEmpty.reserveCapacity(8)
  }

  mutating func begin(_ name: Name) {
    if let last = childrenEmpty.indices.last {
      if !childrenEmpty[last] { out.append(UInt8(ascii: ",")) }
      childrenEmpty[last] = false
    }
    append(Self.elementKey)
    name.appendJSON(to: &out)
    append(Self.attributesKey)
    firstAttribute = true
  }

  @inline(__always)
  private mutating func key(_ name: Name) {
    if firstAttribute {
      firstAttribute = false
    } else {
      out.append(UInt8(ascii: ","))
    }
    name.appendJSON(to: &out)
    out.append(UInt8(ascii: ":"))
  }

  mutating func attribute(_ name: Name, _ value: String) {
    key(name)
    JSONEscaping.appendString(value, to: &out)
  }

  mutating func attribute(_ name: Name, _ date: HealthDate) {
    key(name)
    out.append(UInt8(ascii: "\""))
    date.append(to: &out)
    out.append(UInt8(ascii: "\""))
  }

  mutating func attribute(_ name: Name, _ device: DeviceString) {
    key(name)
    if let address = device.address {
      out.append(UInt8(ascii: "\""))
      let head: StaticString = "<<HKDevice: 0x"
      out.append(contentsOf: UnsafeBufferPointer(start: head.utf8Start, count: head.utf8CodeUnitCount))
      DeviceString.appendHex(address, to: &out)
      deviceCache.append(device.rest, to: &out) { JSONEscaping.appendContents($0, to: &$1) }
      out.append(UInt8(ascii: "\""))
    } else {
      JSONEscaping.appendString(device.rest, to: &out)
    }
  }

  mutating func numericAttribute(_ name: Name, _ value: String) {
    attribute(name, value)
    numbers.append((name, value))
  }

  private mutating func closeAttributes() {
    out.append(UInt8(ascii: "}"))
    guard !numbers.isEmpty else { return }
    append(Self.numbersKey)
    var first = true
    for (name, value) in numbers where JSONNumber.append(value, to: &out, key: name, first: first) {
      first = false
    }
    out.append(UInt8(ascii: "}"))
    numbers.removeAll(keepingCapacity: true)
  }

  mutating func endEmpty() {
    closeAttributes()
    out.append(UInt8(ascii: "}"))
  }

  mutating func beginContent(text: String?) {
    closeAttributes()
    if let text {
      append(Self.textKey)
      JSONEscaping.appendString(text, to: &out)
    }
    append(Self.childrenKey)
    childrenEmpty.append(true)
  }

  mutating func endContent(_ name: Name) {
    childrenEmpty.removeLast()
    out.append(contentsOf: [UInt8(ascii: "]"), UInt8(ascii: "}")])
  }

  static let elementKey: StaticString = #"{"element":"#
  static let attributesKey: StaticString = #","attributes":{"#
  static let numbersKey: StaticString = #","numbers":{"#
  static let textKey: StaticString = #","text":"#
  static let childrenKey: StaticString = #","children":["#

  @inline(__always)
  private mutating func append(_ text: StaticString) {
    out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }
}

/// Numbers written as text, turned into JSON numbers.
enum JSONNumber {
  /// Appends `"key":number` (preceded by a comma unless `first`) when `text` is a finite number;
  /// returns whether it did. Text that already is a JSON number is copied as it is.
  static func append(_ text: String, to out: inout [UInt8], key: Name, first: Bool) -> Bool {
    var text = text
    let isJSON = text.withUTF8 { isJSONNumber($0) }
    var value = 0.0
    if !isJSON {
      guard let parsed = Double(text.trimmingBlanks()), parsed.isFinite else { return false }
      value = parsed
    }
    if !first { out.append(UInt8(ascii: ",")) }
    key.appendJSON(to: &out)
    out.append(UInt8(ascii: ":"))
    if isJSON {
      out.append(contentsOf: text.utf8)
    } else {
      JSONEscaping.appendNumber(value, to: &out)
    }
    return true
  }

  /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
  static func isJSONNumber(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
    var i = 0
    let n = b.count
    @inline(__always) func isDigit(_ i: Int) -> Bool { i < n && b[i] >= 0x30 && b[i] <= 0x39 }
    if i < n && b[i] == UInt8(ascii: "-") { i += 1 }
    guard isDigit(i) else { return false }
    if b[i] == 0x30 {
      i += 1
    } else {
      while isDigit(i) { i += 1 }
    }
    if i < n && b[i] == UInt8(ascii: ".") {
      i += 1
      guard isDigit(i) else { return false }
      while isDigit(i) { i += 1 }
    }
    if i < n && (b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E")) {
      i += 1
      if i < n && (b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-")) { i += 1 }
      guard isDigit(i) else { return false }
      while isDigit(i) { i += 1 }
    }
    return i == n
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
