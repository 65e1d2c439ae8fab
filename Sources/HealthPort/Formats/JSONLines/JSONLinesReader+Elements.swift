import Foundation

/// The header and element objects of JSON Lines, replayed into the ``ElementBuilder``.
extension JSONLinesReader {
  /// The header object: `root`, `attributes` and `prolog` (or `prologBase64`); other keys are
  /// informational.
  func parseHeader(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws -> (String, [UInt8]) {
    headerLocation = (line, p - lineStart + 1)
    var root = "HealthData"
    var prolog: [UInt8] = []
    var attributes: [Attribute] = []
    try JSONScanner.object(b, &p) { key, p in
      switch key {
      case "root":
        root = try JSONScanner.string(b, &p)
      case "prolog":
        prolog = Array(try JSONScanner.string(b, &p).utf8)
      case "prologBase64":
        let text = try JSONScanner.string(b, &p)
        guard let data = Data(base64Encoded: text) else { throw JSONSyntaxError(p, "prologBase64 is not base64") }
        prolog = [UInt8](data)
      case "attributes":
        try JSONScanner.object(b, &p) { name, p in
          if let value = try JSONScanner.attributeValue(b, &p) { attributes.append(Attribute(name, value)) }
        }
      case "member":
        var member = BundleMember.defaultExport
        try JSONScanner.object(b, &p) { key, p in
          let value = try JSONScanner.attributeValue(b, &p)
          switch key {
          case "index": member.index = value.flatMap { Int($0) } ?? 0
          case "path": member.path = value ?? member.path
          case "modified": member.modified = value.flatMap { Int64($0) }
          default: break
          }
        }
        headerMember = member
      default:
        try JSONScanner.skip(b, &p, scratch: &keyBytes)
      }
    }
    pendingRoot = (root, attributes)
    return (root, prolog)
  }

  /// One element object, replayed as start and end events (recursively for its children).
  func parseElement(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws {
    if !rootStarted { try replayRoot("HealthData", []) }
    JSONScanner.skipBlank(b, &p)
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
    if !JSONScanner.closes(b, &p, UInt8(ascii: "}")) {
      while true {
        JSONScanner.skipBlank(b, &p)
        let keyAt = p
        keyBytes.removeAll(keepingCapacity: true)
        p = try JSONScanner.decodeString(b, p, into: &keyBytes)
        try JSONScanner.colon(b, &p)
        switch Key(keyBytes) {
        case .element:
          if started { throw JSONSyntaxError(keyAt, "\"element\" must come before \"text\" and \"children\"") }
          JSONScanner.skipBlank(b, &p)
          nameStart = strings.count
          p = try JSONScanner.decodeString(b, p, into: &strings)
          nameEnd = strings.count
          strings.append(0)
        case .attributes:
          if started { throw JSONSyntaxError(keyAt, "\"attributes\" must come before \"text\" and \"children\"") }
          try attributesObject(b, &p)
        case .text:
          try start()
          JSONScanner.skipBlank(b, &p)
          let textStart = strings.count
          p = try JSONScanner.decodeString(b, p, into: &strings)
          let textEnd = strings.count
          if textEnd > textStart {
            try strings.withUnsafeBufferPointer { s in
              try builder.text(ByteView(start: s.baseAddress! + textStart, count: textEnd - textStart))
            }
          }
          strings.removeLast(textEnd - textStart)
        case .children:
          try start()
          JSONScanner.skipBlank(b, &p)
          guard p < b.count, b[p] == UInt8(ascii: "[") else {
            throw JSONSyntaxError(p, "expected an array of children")
          }
          p += 1
          if !JSONScanner.closes(b, &p, UInt8(ascii: "]")) {
            while true {
              try parseElement(b, &p)
              if try JSONScanner.nextItem(
                b, &p, close: UInt8(ascii: "]"), cutShort: "unexpected end of the children array",
                expected: "expected ',' or ']' between children")
              {
                break
              }
            }
          }
        case .other:
          try JSONScanner.skip(b, &p, scratch: &keyBytes)
        }
        if try JSONScanner.nextItem(
          b, &p, close: UInt8(ascii: "}"), cutShort: "unexpected end of the element object",
          expected: "expected ',' or '}' in the element object")
        {
          break
        }
      }
    }
    try start()
    try strings.withUnsafeBufferPointer { s in
      try builder.endElement(ByteView(start: s.baseAddress! + nameStart, count: nameEnd - nameStart))
    }
    strings.removeLast(strings.count - mark)
  }

  fileprivate enum Key {
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
  func attributesObject(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws {
    JSONScanner.skipBlank(b, &p)
    guard p < b.count, b[p] == UInt8(ascii: "{") else { throw JSONSyntaxError(p, "expected an attributes object") }
    p += 1
    if JSONScanner.closes(b, &p, UInt8(ascii: "}")) { return }
    while true {
      JSONScanner.skipBlank(b, &p)
      let nameStart = strings.count
      let nameAt = p
      p = try JSONScanner.decodeString(b, p, into: &strings)
      guard let name = try? internName(from: nameStart) else {
        throw JSONSyntaxError(nameAt, "more than \(names.capacityLimit) distinct attribute names")
      }
      let valueStart = strings.count
      try JSONScanner.colon(b, &p)
      JSONScanner.skipBlank(b, &p)
      guard p < b.count else { throw JSONSyntaxError(p, "unexpected end of the attributes") }
      switch b[p] {
      case UInt8(ascii: "\""):
        p = try JSONScanner.decodeString(b, p, into: &strings)
        attributeSpans.append(JSONAttributeSpan(name: name, valueStart: valueStart, valueEnd: strings.count))
      case UInt8(ascii: "n"):
        try JSONScanner.literal(b, &p, "null")
        strings.removeLast(strings.count - nameStart)
      default:
        let tokenStart = p
        try JSONScanner.skip(b, &p, scratch: &keyBytes)
        let token = UnsafeBufferPointer(rebasing: b[tokenStart..<p])
        guard token.first != UInt8(ascii: "{"), token.first != UInt8(ascii: "[") else {
          throw JSONSyntaxError(tokenStart, "an attribute value must be a string, number or boolean")
        }
        strings.append(contentsOf: token)
        attributeSpans.append(JSONAttributeSpan(name: name, valueStart: valueStart, valueEnd: strings.count))
      }
      if try JSONScanner.nextItem(
        b, &p, close: UInt8(ascii: "}"), cutShort: "unexpected end of the attributes",
        expected: "expected ',' or '}' in the attributes")
      {
        return
      }
    }
  }

  /// Moves the name in `strings[start...]` out of the scratch buffer and returns its interned copy.
  func internName(from start: Int) throws -> ByteView {
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
  func startElement(nameStart: Int, nameEnd: Int) throws {
    try strings.withUnsafeBufferPointer { s in
      let base = s.baseAddress!
      try attributeSpans.withUnsafeBufferPointer { spans in
        try builder.startElement(
          ByteView(start: base + nameStart, count: nameEnd - nameStart),
          attributes: JSONElementAttributes(values: base, spans: spans))
      }
    }
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
