import Foundation

/// Reads healthport's JSON Lines (and its JSON document form) back into the model, streaming.
///
/// Each element object is parsed from bytes with ``JSONScanner`` and replayed as
/// start/end events through the same ``ElementBuilder`` that builds the model from XML, so
/// both inputs give identical elements (dates checked, unknown attributes kept, …). Only the
/// top-level element being read is in memory.
///
/// Layout accepted: a first object whose first key is `"kind"` (the header line) or
/// `"element"` (no header: an empty prolog and no root attributes), then one element object per
/// value, separated by white space; or one document `{"header":{…},"elements":[…]}`. In an
/// element object, `"element"` and `"attributes"` come before `"text"` and `"children"`;
/// attribute values are strings (numbers and booleans are taken as written, `null` omits the
/// attribute). Errors name the file, line and column.
final class JSONLinesReader {
  let source: ByteSource
  private let options: ReadOptions
  private let name: String

  /// Bytes read and not yet consumed: `pending[position...]`.
  private var pending: [UInt8] = []
  private var position = 0
  private var atEnd = false
  /// Line (1-based) and the index in `pending` where it starts, at `position`.
  var line = 1
  var lineStart = 0
  var documentBytes: Int64 = 0

  let builder = ElementBuilder()
  var strings: [UInt8] = []
  /// Attributes of the element being started: interned name, value range in `strings`.
  var attributeSpans: [JSONAttributeSpan] = []
  /// Attribute names, one allocation per distinct name for the whole read: equal names get
  /// equal pointers and a pointer never changes meaning (the builder caches name lookups by
  /// pointer, ``ElementAttributes/nameIdentity(at:)``).
  var names = ByteKeyedTable<ByteView>()
  var nameAllocations: [UnsafeMutablePointer<UInt8>] = []
  var keyBytes: [UInt8] = []
  /// Where the element being started begins (to locate model errors such as a bad date).
  var elementStart: Int?
  /// The header's `member` (export.xml's place in its bundle), handed on before `begin`.
  var headerMember: BundleMember?
  /// True once a `{"kind":…}` line of the bundle was read: elements may not follow.
  var readKindLines = false

  init(source: ByteSource, options: ReadOptions) {
    self.source = source
    self.options = options
    self.name = source.displayName
    strings.reserveCapacity(64 << 10)
  }

  func read(into sink: ExportSink) throws -> ReadReport {
    var prolog: [UInt8] = []
    var isDocument = false
    // `unowned`: the builder is the reader's own; a strong self here was a cycle that leaked both.
    builder.onRoot = { [unowned self] name, attributes in
      guard name == "HealthData" else {
        throw ExportDataError(
          message: "not an Apple Health export: the root element is <\(name)>, expected <HealthData>")
      }
      if let member = self.headerMember, sink.capabilities.contains(.bundleMembers) {
        try sink.consumeBundleEvent(.member(member))
      }
      try sink.begin(ExportHeader(prolog: prolog, rootAttributes: attributes, rootName: name))
    }
    builder.onElement = { try sink.consume($0) }

    if try peekNonBlank() == 0xEF, pending.count >= position + 3, pending[position + 1] == 0xBB,
      pending[position + 2] == 0xBF
    {
      position += 3  // a UTF-8 byte order mark
      lineStart = position
    }
    guard let first = try peekNonBlank() else {
      throw HealthPortError.malformed(name, line: 1, column: 1, "the input is empty")
    }
    guard first == UInt8(ascii: "{") else { throw located(position, "expected a JSON object") }
    let firstKind = try classifyFirstObject()
    var rootName = "HealthData"
    if firstKind != .document {
      var sawHeader = false
      while let byte = try peekNonBlank() {
        guard byte == UInt8(ascii: "{") else { throw located(position, "expected a JSON object") }
        let end = try frameValue()
        if !sawHeader {
          sawHeader = true
          if firstKind == .header {
            (rootName, prolog) = try parseValue(end) { try self.parseHeader($0, &$1) }
            continue
          }
          try replayRoot(rootName, [])
        }
        if pending.withUnsafeBufferPointer({ isKindLine($0, at: position) }) {
          readKindLines = true
          if sink.capabilities.contains(.sideFiles) || sink.capabilities.contains(.bundleMembers) {
            try parseValue(end) { try self.parseKindLine($0, &$1, into: sink) }
          } else {
            consume(to: end)
          }
          continue
        }
        if readKindLines {
          throw located(position, "an element after the bundle's lines (route, ecg, member): elements come first")
        }
        try parseValue(end) { try self.parseElement($0, &$1) }
      }
    } else {
      isDocument = true
      try expectByte(UInt8(ascii: "{"))
      var rootReplayed = false
      var empty = try peekNonBlank() == UInt8(ascii: "}")
      if empty { position += 1 }
      while !empty {
        let key = try readKey()
        switch key {
        case "header":
          if rootReplayed { throw located(position, "\"header\" must come before \"elements\"") }
          guard try peekNonBlank() == UInt8(ascii: "{") else { throw located(position, "expected the header object") }
          let end = try frameValue()
          (rootName, prolog) = try parseValue(end) { try self.parseHeader($0, &$1) }
        case "elements":
          if !rootReplayed {
            rootReplayed = true
            try replayRoot(rootName, [])
          }
          try expectByte(UInt8(ascii: "["))
          var next = try peekNonBlank()
          if next == UInt8(ascii: "]") {
            position += 1
          } else {
            while true {
              guard try peekNonBlank() == UInt8(ascii: "{") else {
                throw located(position, "expected an element object")
              }
              let end = try frameValue()
              try parseValue(end) { try self.parseElement($0, &$1) }
              next = try peekNonBlank()
              position += 1
              if next == UInt8(ascii: "]") { break }
              guard next == UInt8(ascii: ",") else {
                throw located(position - 1, "expected ',' or ']' after an element")
              }
            }
          }
        default:
          guard try peekNonBlank() != nil else { throw located(position, "unexpected end of input") }
          let end = try frameValue()
          consume(to: end)
        }
        let separator = try peekNonBlank()
        position += 1
        empty = separator == UInt8(ascii: "}")
        guard empty || separator == UInt8(ascii: ",") else {
          throw located(position - 1, "expected ',' or '}' in the document object")
        }
      }
      if !rootReplayed { try replayRoot(rootName, []) }
      if try peekNonBlank() != nil { throw located(position, "unexpected data after the JSON document") }
    }
    if pendingRoot != nil {
      // Header seen but no element: the root was not started yet.
      try replayRoot(rootName, [])
    }
    try builder.endElement(ByteView(UnsafeBufferPointer(start: nil, count: 0)))
    var report = ReadReport(documentName: name, format: isDocument ? .json : .jsonl)
    report.documentBytes = documentBytes
    report.unknownElements = builder.unknownElementCount
    report.textNodes = builder.ignoredTextCount
    try sink.end(report)
    return report
  }

  // MARK: Root

  /// The header's root attributes, replayed as the root's start tag before the first element.
  var pendingRoot: (name: String, attributes: [Attribute])?
  /// Line and column of the header object (1:1 without one).
  var headerLocation = (line: 1, column: 1)
  var rootStarted = false

  private lazy var chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: options.chunkSize, alignment: 16)

  deinit {
    for allocation in nameAllocations { allocation.deallocate() }
    chunk.deallocate()
  }

  func replayRoot(_ name: String, _ fallback: [Attribute]) throws {
    guard !rootStarted else { return }
    rootStarted = true
    let root = pendingRoot ?? (name, fallback)
    pendingRoot = nil
    strings.removeAll(keepingCapacity: true)
    attributeSpans.removeAll(keepingCapacity: true)
    let nameStart = strings.count
    strings.append(contentsOf: root.name.utf8)
    strings.append(0)
    for attribute in root.attributes {
      let start = strings.count
      strings.append(contentsOf: attribute.name.utf8)
      let name = try internName(from: start)
      let value = strings.count
      strings.append(contentsOf: attribute.value.utf8)
      attributeSpans.append(JSONAttributeSpan(name: name, valueStart: value, valueEnd: strings.count))
    }
    // A root that is not <HealthData> is located at the header that names it, also when the
    // root is started later (by the elements array, or at the end of a header-only input).
    let (line, column) = headerLocation
    do {
      try startElement(nameStart: nameStart, nameEnd: nameStart + root.name.utf8.count)
    } catch let error as ExportDataError {
      throw HealthPortError.malformed(self.name, line: line, column: column, error.message)
    } catch let error as ExportLimitError {
      throw HealthPortError.malformed(self.name, line: line, column: column, error.message)
    }
    strings.removeAll(keepingCapacity: true)
  }

  // MARK: Buffering

  /// Reads more input; false at the end.
  private func fill() throws -> Bool {
    guard !atEnd else { return false }
    if position > 0 && position >= pending.count / 2 {
      pending.removeSubrange(0..<position)
      lineStart -= position
      position = 0
    }
    let count = try source.read(into: chunk)
    pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
    if count == 0 {
      atEnd = true
      return false
    }
    documentBytes += Int64(count)
    options.progress?(source.bytesConsumed, source.totalBytes)
    return true
  }

  /// Skips white space (counting lines) and returns the next byte without consuming it.
  private func peekNonBlank() throws -> UInt8? {
    while true {
      while position < pending.count {
        let byte = pending[position]
        switch byte {
        case 0x0A:
          line += 1
          position += 1
          lineStart = position
        case 0x20, 0x09, 0x0D: position += 1
        default: return byte
        }
      }
      if try !fill() { return nil }
    }
  }

  private func expectByte(_ byte: UInt8) throws {
    guard try peekNonBlank() == byte else {
      throw located(position, "expected '\(Character(Unicode.Scalar(byte)))'")
    }
    position += 1
  }

  private enum FirstObject { case header, element, document }

  /// Tells the JSON Lines header (a `"kind"` key), a headerless JSON Lines element (`"element"`)
  /// and the JSON document (`"header"` or `"elements"`) apart by the keys of the first object,
  /// in any order, without consuming anything.
  private func classifyFirstObject() throws -> FirstObject {
    while true {
      if let kind = scanFirstKeys() { return kind }
      if try !fill() { return .header }
    }
  }

  private func scanFirstKeys() -> FirstObject? {
    pending.withUnsafeBufferPointer { b -> FirstObject? in
      var index = position + 1
      var depth = 1
      var expectKey = true
      while index < b.count {
        let byte = b[index]
        switch byte {
        case UInt8(ascii: "\""):
          let start = index + 1
          index = start
          while index < b.count, b[index] != UInt8(ascii: "\"") {
            index += b[index] == UInt8(ascii: "\\") ? 2 : 1
          }
          guard index < b.count else { return nil }
          if depth == 1 && expectKey {
            switch String(decoding: UnsafeBufferPointer(rebasing: b[start..<index]), as: UTF8.self) {
            case "kind": return .header
            case "element": return .element
            case "header", "elements": return .document
            default: break
            }
          }
          expectKey = false
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
          depth -= 1
          if depth == 0 { return .header }
        case UInt8(ascii: ","): if depth == 1 { expectKey = true }
        default: break
        }
        index += 1
      }
      return nil
    }
  }

  /// Reads `"key":` at the top level of the document object.
  private func readKey() throws -> String {
    guard try peekNonBlank() == UInt8(ascii: "\"") else { throw located(position, "expected a key string") }
    let end = try frameValue()
    let key = try parseValue(end) { bytes, p -> String in
      self.keyBytes.removeAll(keepingCapacity: true)
      p = try JSONScanner.decodeString(bytes, p, into: &self.keyBytes)
      return String(decoding: self.keyBytes, as: UTF8.self)
    }
    try expectByte(UInt8(ascii: ":"))
    return key
  }

  /// Finds the end of the JSON value at `position`, reading more input as needed; returns the
  /// index just after it.
  private func frameValue() throws -> Int {
    while true {
      if let end = pending.withUnsafeBufferPointer({ JSONScanner.valueEnd($0, from: position, atEnd: atEnd) }) {
        return end
      }
      if try !fill() {
        throw located(pending.count, "unexpected end of input inside a JSON value (truncated file?)")
      }
    }
  }

  /// Moves `position` to `end`, counting the lines passed.
  private func consume(to end: Int) {
    pending.withUnsafeBufferPointer { b in
      for index in position..<end where b[index] == 0x0A {
        line += 1
        lineStart = index + 1
      }
    }
    position = end
  }

  /// Parses the complete value `pending[position..<end]` with `body`, then consumes it. Errors
  /// are located in the input.
  private func parseValue<T>(_ end: Int, _ body: (UnsafeBufferPointer<UInt8>, inout Int) throws -> T) throws -> T {
    var p = position
    elementStart = nil
    let result: T
    do {
      result = try pending.withUnsafeBufferPointer { all in
        let b = UnsafeBufferPointer(rebasing: all[0..<end])
        let value = try body(b, &p)
        return value
      }
    } catch let error as JSONSyntaxError {
      throw located(error.offset, error.message)
    } catch let error as ExportDataError {
      throw located(elementStart ?? p, error.message)
    } catch let error as ExportLimitError {
      throw located(elementStart ?? p, error.message)
    }
    consume(to: end)
    return result
  }

  /// A located error for the byte at `offset` in `pending`.
  private func located(_ offset: Int, _ message: String) -> HealthPortError {
    var lineNumber = line
    var start = lineStart
    if offset > position {
      for index in position..<min(offset, pending.count) where pending[index] == 0x0A {
        lineNumber += 1
        start = index + 1
      }
    }
    return HealthPortError.malformed(name, line: lineNumber, column: max(1, offset - start + 1), message)
  }
}
