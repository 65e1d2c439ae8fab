import Foundation

/// Reads healthport's JSON Lines (and its JSON document form) back into the model, streaming.
///
/// Each element object is parsed from bytes by a small hand-written JSON parser and replayed as
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
  private let source: ByteSource
  private let options: ReadOptions
  private let name: String

  /// Bytes read and not yet consumed: `pending[position...]`.
  private var pending: [UInt8] = []
  private var position = 0
  private var atEnd = false
  /// Line (1-based) and the index in `pending` where it starts, at `position`.
  private var line = 1
  private var lineStart = 0
  private var documentBytes: Int64 = 0

  private let builder = ElementBuilder()
  private var strings: [UInt8] = []
  /// Attributes of the element being started: interned name, value range in `strings`.
  private var attributeSpans: [JSONAttributeSpan] = []
  /// Attribute names, one allocation per distinct name for the whole read: equal names get
  /// equal pointers and a pointer never changes meaning (the builder caches name lookups by
  /// pointer, ``ElementAttributes/nameIdentity(at:)``).
  private var names = ByteKeyedTable<ByteView>()
  private var nameAllocations: [UnsafeMutablePointer<UInt8>] = []
  private var keyBytes: [UInt8] = []
  /// Where the element being started begins (to locate model errors such as a bad date).
  private var elementStart: Int?

  init(source: ByteSource, options: ReadOptions) {
    self.source = source
    self.options = options
    self.name = source.displayName
    strings.reserveCapacity(64 << 10)
  }

  func read(into sink: ExportSink) throws -> ReadReport {
    var prolog: [UInt8] = []
    var isDocument = false
    builder.onRoot = { name, attributes in
      guard name == "HealthData" else {
        throw ExportDataError(
          message: "not an Apple Health export: the root element is <\(name)>, expected <HealthData>")
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
  private var pendingRoot: (name: String, attributes: [Attribute])?
  /// Line and column of the header object (1:1 without one).
  private var headerLocation = (line: 1, column: 1)
  private var rootStarted = false

  private lazy var chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: options.chunkSize, alignment: 16)

  deinit {
    for allocation in nameAllocations { allocation.deallocate() }
    chunk.deallocate()
  }

  private func replayRoot(_ name: String, _ fallback: [Attribute]) throws {
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
      p = try self.decodeString(bytes, p, into: &self.keyBytes)
      return String(decoding: self.keyBytes, as: UTF8.self)
    }
    try expectByte(UInt8(ascii: ":"))
    return key
  }

  /// Finds the end of the JSON value at `position`, reading more input as needed; returns the
  /// index just after it.
  private func frameValue() throws -> Int {
    while true {
      if let end = scanValue(from: position) { return end }
      if try !fill() {
        throw located(pending.count, "unexpected end of input inside a JSON value (truncated file?)")
      }
    }
  }

  /// The end of the value starting at `start`, or nil when it is not complete yet.
  private func scanValue(from start: Int) -> Int? {
    pending.withUnsafeBufferPointer { b -> Int? in
      let count = b.count
      var index = start
      guard index < count else { return nil }
      let first = b[index]
      if first != UInt8(ascii: "{") && first != UInt8(ascii: "[") && first != UInt8(ascii: "\"") {
        // A scalar: up to the next delimiter.
        while index < count {
          switch b[index] {
          case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09: return index
          default: index += 1
          }
        }
        return atEnd ? index : nil
      }
      var depth = 0
      var inString = false
      while index < count {
        let byte = b[index]
        index += 1
        if inString {
          if byte == UInt8(ascii: "\\") {
            index += 1
          } else if byte == UInt8(ascii: "\"") {
            inString = false
            if depth == 0 { return index }
          }
          continue
        }
        switch byte {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
          depth -= 1
          if depth == 0 { return index }
        default: break
        }
      }
      return nil
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

  // MARK: Objects

  /// The header object: `root`, `attributes` and `prolog` (or `prologBase64`); other keys are
  /// informational.
  private func parseHeader(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws -> (String, [UInt8]) {
    headerLocation = (line, p - lineStart + 1)
    var root = "HealthData"
    var prolog: [UInt8] = []
    var attributes: [Attribute] = []
    try object(b, &p) { key, p in
      switch key {
      case "root":
        root = try string(b, &p)
      case "prolog":
        prolog = Array(try string(b, &p).utf8)
      case "prologBase64":
        let text = try string(b, &p)
        guard let data = Data(base64Encoded: text) else { throw JSONSyntaxError(p, "prologBase64 is not base64") }
        prolog = [UInt8](data)
      case "attributes":
        try object(b, &p) { name, p in
          if let value = try attributeValue(b, &p) { attributes.append(Attribute(name, value)) }
        }
      default:
        try skip(b, &p)
      }
    }
    pendingRoot = (root, attributes)
    return (root, prolog)
  }

  /// One element object, replayed as start and end events (recursively for its children).
  private func parseElement(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws {
    if !rootStarted { try replayRoot("HealthData", []) }
    skipBlank(b, &p)
    guard p < b.count, b[p] == UInt8(ascii: "{") else { throw JSONSyntaxError(p, "expected an element object") }
    let elementStart = p
    p += 1
    let mark = strings.count
    attributeSpans.removeAll(keepingCapacity: true)
    var nameStart = -1
    var nameEnd = -1
    var started = false
    func start() throws {
      guard !started else { return }
      guard nameStart >= 0 else { throw JSONSyntaxError(elementStart, "the element object has no \"element\" name") }
      started = true
      self.elementStart = elementStart
      try startElement(nameStart: nameStart, nameEnd: nameEnd)
      attributeSpans.removeAll(keepingCapacity: true)
    }
    skipBlank(b, &p)
    if p < b.count, b[p] == UInt8(ascii: "}") {
      p += 1
    } else {
      while true {
        skipBlank(b, &p)
        let keyAt = p
        keyBytes.removeAll(keepingCapacity: true)
        p = try decodeString(b, p, into: &keyBytes)
        try colon(b, &p)
        switch Key(keyBytes) {
        case .element:
          if started { throw JSONSyntaxError(keyAt, "\"element\" must come before \"text\" and \"children\"") }
          skipBlank(b, &p)
          nameStart = strings.count
          p = try decodeString(b, p, into: &strings)
          nameEnd = strings.count
          strings.append(0)
        case .attributes:
          if started { throw JSONSyntaxError(keyAt, "\"attributes\" must come before \"text\" and \"children\"") }
          try attributesObject(b, &p)
        case .text:
          try start()
          skipBlank(b, &p)
          let textStart = strings.count
          p = try decodeString(b, p, into: &strings)
          let textEnd = strings.count
          if textEnd > textStart {
            try strings.withUnsafeBufferPointer { s in
              try builder.text(ByteView(start: s.baseAddress! + textStart, count: textEnd - textStart))
            }
          }
          strings.removeLast(textEnd - textStart)
        case .children:
          try start()
          skipBlank(b, &p)
          guard p < b.count, b[p] == UInt8(ascii: "[") else {
            throw JSONSyntaxError(p, "expected an array of children")
          }
          p += 1
          skipBlank(b, &p)
          if p < b.count, b[p] == UInt8(ascii: "]") {
            p += 1
          } else {
            while true {
              try parseElement(b, &p)
              skipBlank(b, &p)
              guard p < b.count else { throw JSONSyntaxError(p, "unexpected end of the children array") }
              if b[p] == UInt8(ascii: "]") {
                p += 1
                break
              }
              guard b[p] == UInt8(ascii: ",") else { throw JSONSyntaxError(p, "expected ',' or ']' between children") }
              p += 1
            }
          }
        case .other:
          try skip(b, &p)
        }
        skipBlank(b, &p)
        guard p < b.count else { throw JSONSyntaxError(p, "unexpected end of the element object") }
        if b[p] == UInt8(ascii: "}") {
          p += 1
          break
        }
        guard b[p] == UInt8(ascii: ",") else { throw JSONSyntaxError(p, "expected ',' or '}' in the element object") }
        p += 1
      }
    }
    try start()
    try strings.withUnsafeBufferPointer { s in
      try builder.endElement(ByteView(start: s.baseAddress! + nameStart, count: nameEnd - nameStart))
    }
    strings.removeLast(strings.count - mark)
  }

  private enum Key {
    case element, attributes, text, children, other

    init(_ bytes: [UInt8]) {
      switch bytes.count {
      case 4 where bytes == Self.textBytes: self = .text
      case 7 where bytes == Self.elementBytes: self = .element
      case 8 where bytes == Self.childrenBytes: self = .children
      case 10 where bytes == Self.attributesBytes: self = .attributes
      default: self = .other
      }
    }

    static let textBytes = Array("text".utf8)
    static let elementBytes = Array("element".utf8)
    static let childrenBytes = Array("children".utf8)
    static let attributesBytes = Array("attributes".utf8)
  }

  /// `{"name":"value",…}` into `strings` / `attributeSpans`.
  private func attributesObject(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws {
    skipBlank(b, &p)
    guard p < b.count, b[p] == UInt8(ascii: "{") else { throw JSONSyntaxError(p, "expected an attributes object") }
    p += 1
    skipBlank(b, &p)
    if p < b.count, b[p] == UInt8(ascii: "}") {
      p += 1
      return
    }
    while true {
      skipBlank(b, &p)
      let nameStart = strings.count
      let nameAt = p
      p = try decodeString(b, p, into: &strings)
      guard let name = try? internName(from: nameStart) else {
        throw JSONSyntaxError(nameAt, "more than \(names.capacityLimit) distinct attribute names")
      }
      let valueStart = strings.count
      try colon(b, &p)
      skipBlank(b, &p)
      guard p < b.count else { throw JSONSyntaxError(p, "unexpected end of the attributes") }
      switch b[p] {
      case UInt8(ascii: "\""):
        p = try decodeString(b, p, into: &strings)
        attributeSpans.append(JSONAttributeSpan(name: name, valueStart: valueStart, valueEnd: strings.count))
      case UInt8(ascii: "n"):
        try literal(b, &p, "null")
        strings.removeLast(strings.count - nameStart)
      default:
        let tokenStart = p
        try skip(b, &p)
        let token = UnsafeBufferPointer(rebasing: b[tokenStart..<p])
        guard token.first != UInt8(ascii: "{"), token.first != UInt8(ascii: "[") else {
          throw JSONSyntaxError(tokenStart, "an attribute value must be a string, number or boolean")
        }
        strings.append(contentsOf: token)
        attributeSpans.append(JSONAttributeSpan(name: name, valueStart: valueStart, valueEnd: strings.count))
      }
      skipBlank(b, &p)
      guard p < b.count else { throw JSONSyntaxError(p, "unexpected end of the attributes") }
      if b[p] == UInt8(ascii: "}") {
        p += 1
        return
      }
      guard b[p] == UInt8(ascii: ",") else { throw JSONSyntaxError(p, "expected ',' or '}' in the attributes") }
      p += 1
    }
  }

  /// Moves the name in `strings[start...]` out of the scratch buffer and returns its interned copy.
  private func internName(from start: Int) throws -> ByteView {
    defer { strings.removeLast(strings.count - start) }
    return try strings.withUnsafeBytes { all in
      let bytes = UnsafeRawBufferPointer(rebasing: all[start...])
      let hash = ByteKeyedTable<ByteView>.hash(bytes)
      if let known = names.lookup(bytes, hash: hash) { return known }
      guard names.count < names.capacityLimit else { throw JSONSyntaxError(0, "too many attribute names") }
      // One byte more, so that an empty name has a pointer of its own too.
      let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count + 1)
      copy.initialize(repeating: 0, count: bytes.count + 1)
      if let base = bytes.baseAddress {
        copy.update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
      }
      nameAllocations.append(copy)
      let name = ByteView(start: copy, count: bytes.count)
      names.insert(bytes, hash: hash, value: name)
      return name
    }
  }

  /// Calls the builder with the collected name and attributes.
  private func startElement(nameStart: Int, nameEnd: Int) throws {
    try strings.withUnsafeBufferPointer { s in
      let base = s.baseAddress!
      try attributeSpans.withUnsafeBufferPointer { spans in
        try builder.startElement(
          ByteView(start: base + nameStart, count: nameEnd - nameStart),
          attributes: JSONElementAttributes(values: base, spans: spans))
      }
    }
  }

  // MARK: JSON primitives

  @inline(__always)
  private func skipBlank(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) {
    while p < b.count {
      switch b[p] {
      case 0x20, 0x0A, 0x0D, 0x09: p += 1
      default: return
      }
    }
  }

  private func colon(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws {
    skipBlank(b, &p)
    guard p < b.count, b[p] == UInt8(ascii: ":") else { throw JSONSyntaxError(p, "expected ':' after a key") }
    p += 1
  }

  private func literal(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ word: StaticString) throws {
    let count = word.utf8CodeUnitCount
    guard p + count <= b.count, memcmp(b.baseAddress! + p, word.utf8Start, count) == 0 else {
      throw JSONSyntaxError(p, "invalid JSON value")
    }
    p += count
  }

  private func string(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws -> String {
    skipBlank(b, &p)
    var bytes: [UInt8] = []
    p = try decodeString(b, p, into: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  private func attributeValue(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws -> String? {
    skipBlank(b, &p)
    guard p < b.count else { throw JSONSyntaxError(p, "unexpected end of input") }
    if b[p] == UInt8(ascii: "\"") { return try string(b, &p) }
    if b[p] == UInt8(ascii: "n") {
      try literal(b, &p, "null")
      return nil
    }
    let start = p
    try skip(b, &p)
    return String(decoding: UnsafeBufferPointer(rebasing: b[start..<p]), as: UTF8.self)
  }

  /// Iterates the keys of an object, calling `body` with the position at the value.
  private func object(
    _ b: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ body: (String, inout Int) throws -> Void
  ) throws {
    skipBlank(b, &p)
    guard p < b.count, b[p] == UInt8(ascii: "{") else { throw JSONSyntaxError(p, "expected a JSON object") }
    p += 1
    skipBlank(b, &p)
    if p < b.count, b[p] == UInt8(ascii: "}") {
      p += 1
      return
    }
    while true {
      let key = try string(b, &p)
      try colon(b, &p)
      try body(key, &p)
      skipBlank(b, &p)
      guard p < b.count else { throw JSONSyntaxError(p, "unexpected end of the object") }
      if b[p] == UInt8(ascii: "}") {
        p += 1
        return
      }
      guard b[p] == UInt8(ascii: ",") else { throw JSONSyntaxError(p, "expected ',' or '}' in the object") }
      p += 1
    }
  }

  /// Skips any JSON value, checking its syntax. `depth` is the number of arrays and objects it
  /// sits in: the recursion stops at the elements' nesting limit, so that a value such as
  /// `[[[[…]]]]` is an error instead of a stack overflow.
  private func skip(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int, depth: Int = 0) throws {
    skipBlank(b, &p)
    guard p < b.count else { throw JSONSyntaxError(p, "unexpected end of input") }
    if b[p] == UInt8(ascii: "{") || b[p] == UInt8(ascii: "["), depth >= ElementBuilder.maximumDepth {
      throw JSONSyntaxError(p, "JSON values are nested deeper than \(ElementBuilder.maximumDepth) levels")
    }
    switch b[p] {
    case UInt8(ascii: "\""):
      keyBytes.removeAll(keepingCapacity: true)
      p = try decodeString(b, p, into: &keyBytes)
    case UInt8(ascii: "{"):
      try object(b, &p) { _, p in try skip(b, &p, depth: depth + 1) }
    case UInt8(ascii: "["):
      p += 1
      skipBlank(b, &p)
      if p < b.count, b[p] == UInt8(ascii: "]") {
        p += 1
        return
      }
      while true {
        try skip(b, &p, depth: depth + 1)
        skipBlank(b, &p)
        guard p < b.count else { throw JSONSyntaxError(p, "unexpected end of the array") }
        if b[p] == UInt8(ascii: "]") {
          p += 1
          return
        }
        guard b[p] == UInt8(ascii: ",") else { throw JSONSyntaxError(p, "expected ',' or ']' in the array") }
        p += 1
      }
    case UInt8(ascii: "t"): try literal(b, &p, "true")
    case UInt8(ascii: "f"): try literal(b, &p, "false")
    case UInt8(ascii: "n"): try literal(b, &p, "null")
    default:
      let start = p
      while p < b.count, (b[p] >= 0x30 && b[p] <= 0x39) || [0x2B, 0x2D, 0x2E, 0x45, 0x65].contains(b[p]) { p += 1 }
      guard JSONNumber.isJSONNumber(UnsafeBufferPointer(rebasing: b[start..<p])) else {
        throw JSONSyntaxError(start, "invalid JSON value")
      }
    }
  }

  /// Decodes the JSON string at `start` (which must be `"`) into `out`; returns the index after it.
  private func decodeString(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, into out: inout [UInt8]) throws -> Int {
    guard start < b.count, b[start] == UInt8(ascii: "\"") else { throw JSONSyntaxError(start, "expected a string") }
    var index = start + 1
    var runStart = index
    let count = b.count
    while index < count {
      let byte = b[index]
      if byte == UInt8(ascii: "\"") {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: b[runStart..<index]))
        return index + 1
      }
      if byte == UInt8(ascii: "\\") {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: b[runStart..<index]))
        guard index + 1 < count else { break }
        let escape = b[index + 1]
        index += 2
        switch escape {
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "/"): out.append(0x2F)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
          var scalar = try hex4(b, index)
          index += 4
          if (0xD800..<0xDC00).contains(scalar) {
            guard index + 6 <= count, b[index] == UInt8(ascii: "\\"), b[index + 1] == UInt8(ascii: "u") else {
              throw JSONSyntaxError(index - 6, "a high surrogate \\u escape without its low surrogate")
            }
            let low = try hex4(b, index + 2)
            guard (0xDC00..<0xE000).contains(low) else {
              throw JSONSyntaxError(index, "invalid low surrogate in a \\u escape")
            }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            index += 6
          }
          guard let unicode = Unicode.Scalar(scalar) else {
            throw JSONSyntaxError(index - 6, "a \\u escape that is not a Unicode scalar")
          }
          out.append(contentsOf: UTF8.encode(unicode)!)
        default:
          throw JSONSyntaxError(index - 2, "invalid escape in a string")
        }
        runStart = index
        continue
      }
      if byte < 0x20 { throw JSONSyntaxError(index, "a control character inside a string must be escaped") }
      index += 1
    }
    throw JSONSyntaxError(start, "unterminated string")
  }

  private func hex4(_ b: UnsafeBufferPointer<UInt8>, _ index: Int) throws -> UInt32 {
    guard index + 4 <= b.count else { throw JSONSyntaxError(index, "a \\u escape needs four hex digits") }
    var value: UInt32 = 0
    for offset in 0..<4 {
      let byte = b[index + offset]
      let digit: UInt32
      switch byte {
      case 0x30...0x39: digit = UInt32(byte - 0x30)
      case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
      case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
      default: throw JSONSyntaxError(index + offset, "a \\u escape needs four hex digits")
      }
      value = value << 4 | digit
    }
    return value
  }
}

/// A JSON syntax problem at a byte offset of the reader's buffer.
struct JSONSyntaxError: Error {
  let offset: Int
  let message: String
  init(_ offset: Int, _ message: String) {
    self.offset = offset
    self.message = message
  }
}

/// One attribute of the element being started: its interned name and its value's range in the
/// reader's scratch buffer.
struct JSONAttributeSpan {
  let name: ByteView
  let valueStart: Int
  let valueEnd: Int
}

/// The attributes of a JSON element object as ``ElementAttributes``: values decoded into one
/// buffer, names interned by the reader for the whole read.
struct JSONElementAttributes: ElementAttributes {
  let values: UnsafePointer<UInt8>
  let spans: UnsafeBufferPointer<JSONAttributeSpan>

  @inline(__always) var count: Int { spans.count }
  @inline(__always) func name(at index: Int) -> ByteView { spans[index].name }
  @inline(__always) func nameIdentity(at index: Int) -> UnsafeRawPointer {
    UnsafeRawPointer(spans[index].name.buffer.baseAddress!)
  }
  @inline(__always) func value(at index: Int) -> ByteView {
    let span = spans[index]
    return ByteView(start: values + span.valueStart, count: span.valueEnd - span.valueStart)
  }
}
