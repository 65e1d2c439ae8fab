#if canImport(Glibc)
  import Glibc
#endif

/// The one JSON scanner: byte-level reading of JSON values in a buffer, position passed as
/// `inout Int`, errors as ``JSONSyntaxError`` at a byte offset. The JSON Lines reader parses
/// with it; the JSON in CSV cells uses its blanks and the string codec (``JSONEscaping``).
enum JSONScanner {
  /// Arrays and objects nest at most this deep (the elements' own limit), so that a value such
  /// as `[[[[…]]]]` is an error instead of a stack overflow.
  static let maximumDepth = ElementBuilder.maximumDepth

  /// The end of the value starting at `start` (the index just after it), or nil when it is
  /// not complete in `b` yet. Strings and nesting are followed, not checked: the parse does that.
  /// A scalar ends at a delimiter, or at the end of `b` when `atEnd`.
  static func valueEnd(_ b: UnsafeBufferPointer<UInt8>, from start: Int, atEnd: Bool) -> Int? {
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

  @inline(__always)
  static func skipBlank(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) {
    while p < b.count {
      switch b[p] {
      case 0x20, 0x0A, 0x0D, 0x09: p += 1
      default: return
      }
    }
  }

  static func colon(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws {
    skipBlank(b, &p)
    guard p < b.count, b[p] == UInt8(ascii: ":") else { throw JSONSyntaxError(p, "expected ':' after a key") }
    p += 1
  }

  static func literal(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ word: StaticString) throws {
    let count = word.utf8CodeUnitCount
    guard p + count <= b.count, memcmp(b.baseAddress! + p, word.utf8Start, count) == 0 else {
      throw JSONSyntaxError(p, "invalid JSON value")
    }
    p += count
  }

  static func string(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws -> String {
    skipBlank(b, &p)
    var bytes: [UInt8] = []
    p = try decodeString(b, p, into: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  static func attributeValue(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws -> String? {
    skipBlank(b, &p)
    guard p < b.count else { throw JSONSyntaxError(p, "unexpected end of input") }
    if b[p] == UInt8(ascii: "\"") { return try string(b, &p) }
    if b[p] == UInt8(ascii: "n") {
      try literal(b, &p, "null")
      return nil
    }
    let start = p
    var scratch: [UInt8] = []
    try skip(b, &p, scratch: &scratch)
    return String(decoding: UnsafeBufferPointer(rebasing: b[start..<p]), as: UTF8.self)
  }

  /// Consumes `close` when it comes next after blanks (an empty array or object); true then.
  @inline(__always)
  static func closes(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ close: UInt8) -> Bool {
    skipBlank(b, &p)
    guard p < b.count, b[p] == close else { return false }
    p += 1
    return true
  }

  /// After an item of an array or object: skips blanks, then consumes `close` (true: the list
  /// ended) or `,` (false: another item follows). The messages are the list's own.
  @inline(__always)
  static func nextItem(
    _ b: UnsafeBufferPointer<UInt8>, _ p: inout Int, close: UInt8, cutShort: String, expected: String
  ) throws -> Bool {
    skipBlank(b, &p)
    guard p < b.count else { throw JSONSyntaxError(p, cutShort) }
    if b[p] == close {
      p += 1
      return true
    }
    guard b[p] == UInt8(ascii: ",") else { throw JSONSyntaxError(p, expected) }
    p += 1
    return false
  }

  /// Iterates the keys of an object, calling `body` with the position at the value.
  static func object(
    _ b: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ body: (String, inout Int) throws -> Void
  ) throws {
    skipBlank(b, &p)
    guard p < b.count, b[p] == UInt8(ascii: "{") else { throw JSONSyntaxError(p, "expected a JSON object") }
    p += 1
    if closes(b, &p, UInt8(ascii: "}")) { return }
    while true {
      let key = try string(b, &p)
      try colon(b, &p)
      try body(key, &p)
      if try nextItem(
        b, &p, close: UInt8(ascii: "}"), cutShort: "unexpected end of the object",
        expected: "expected ',' or '}' in the object")
      {
        return
      }
    }
  }

  /// Skips any JSON value, checking its syntax. `depth` is the number of arrays and objects it
  /// sits in: the recursion stops at the elements' nesting limit, so that a value such as
  /// `[[[[…]]]]` is an error instead of a stack overflow.
  static func skip(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int, scratch: inout [UInt8], depth: Int = 0) throws {
    skipBlank(b, &p)
    guard p < b.count else { throw JSONSyntaxError(p, "unexpected end of input") }
    if b[p] == UInt8(ascii: "{") || b[p] == UInt8(ascii: "["), depth >= maximumDepth {
      throw JSONSyntaxError(p, "JSON values are nested deeper than \(maximumDepth) levels")
    }
    switch b[p] {
    case UInt8(ascii: "\""):
      scratch.removeAll(keepingCapacity: true)
      p = try decodeString(b, p, into: &scratch)
    case UInt8(ascii: "{"):
      try object(b, &p) { _, p in try skip(b, &p, scratch: &scratch, depth: depth + 1) }
    case UInt8(ascii: "["):
      p += 1
      if closes(b, &p, UInt8(ascii: "]")) { return }
      while true {
        try skip(b, &p, scratch: &scratch, depth: depth + 1)
        if try nextItem(
          b, &p, close: UInt8(ascii: "]"), cutShort: "unexpected end of the array",
          expected: "expected ',' or ']' in the array")
        {
          return
        }
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
  @inline(__always)
  static func decodeString(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, into out: inout [UInt8]) throws -> Int {
    do {
      return try JSONEscaping.decodeString(b, at: start, into: &out)
    } catch {
      throw JSONSyntaxError(error.offset, error.message)
    }
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
