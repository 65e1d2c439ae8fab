/// The one JSON string codec: writes JSON text to byte buffers (the shared primitive of every
/// JSON output) and decodes JSON string literals (`decodeString(_:at:into:lenient:)`) for
/// every JSON input: JSON Lines, and the JSON inside CSV cells.
package enum JSONEscaping {
  /// Appends `text` as a JSON string literal, copying runs that need no escape in one go.
  @inline(__always)
  package static func appendString<Out: ByteAppender & ~Copyable>(_ text: String, to out: inout Out) {
    out.append(UInt8(ascii: "\""))
    appendContents(text, to: &out)
    out.append(UInt8(ascii: "\""))
  }

  /// Appends `text` escaped for the inside of a JSON string literal (without the quotes).
  @inline(__always)
  package static func appendContents<Out: ByteAppender & ~Copyable>(_ text: String, to out: inout Out) {
    text.withUTF8Bytes { appendEscaped($0, to: &out) }
  }

  /// Appends the bytes escaped: in one copy when none needs escaping (the common case, checked
  /// eight bytes at a time), else run by run.
  @inline(__always)
  static func appendEscaped<Out: ByteAppender & ~Copyable>(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout Out) {
    if needsEscaping(bytes) {
      appendEscapedSlowly(bytes, to: &out)
    } else {
      out.append(bytes: bytes)
    }
  }

  /// True when a byte is a control character (< 0x20), `"` or `\` (``ByteScan``).
  @inline(__always)
  static func needsEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    ByteScan.contains(
      bytes, word: { ByteScan.hasControl($0) || ByteScan.has(0x22, in: $0) || ByteScan.has(0x5C, in: $0) },
      byte: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
  }

  @inline(never)
  static func appendEscapedSlowly<Out: ByteAppender & ~Copyable>(
    _ bytes: UnsafeBufferPointer<UInt8>, to out: inout Out
  ) {
    var runStart = 0
    for index in 0..<bytes.count {
      let byte = bytes[index]
      guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
      out.append(bytes: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
      runStart = index + 1
      out.append(0x5C)
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
      case 0x0A: out.append(UInt8(ascii: "n"))
      case 0x0D: out.append(UInt8(ascii: "r"))
      case 0x09: out.append(UInt8(ascii: "t"))
      default:
        let hex: StaticString = "0123456789abcdef"
        out.append("u00")
        out.append(hex.utf8Start[Int(byte >> 4)])
        out.append(hex.utf8Start[Int(byte & 15)])
      }
    }
    out.append(bytes: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
  }

  /// Appends a string literal, or `null`.
  package static func appendOptional<Out: ByteAppender & ~Copyable>(_ text: String?, to out: inout Out) {
    if let text { appendString(text, to: &out) } else { out.append("null") }
  }

  /// Appends a number: integers without a fraction, others in the shortest form that reads back.
  package static func appendNumber<Out: ByteAppender & ~Copyable>(_ value: Double, to out: inout Out) {
    guard value.isFinite else {
      out.append("null")
      return
    }
    if value == value.rounded(), abs(value) < 1e15 {
      CSVEncoding.appendInteger(Int(value), to: &out)
    } else {
      value.description.withUTF8Bytes { out.append(bytes: $0) }
    }
  }

  package static func appendInteger<Out: ByteAppender & ~Copyable>(_ value: Int, to out: inout Out) {
    CSVEncoding.appendInteger(value, to: &out)
  }
}

// MARK: Decoding

/// What is wrong with a JSON string literal, at a byte offset of the buffer being decoded.
struct JSONStringError: Error {
  enum Problem {
    case notAString, unterminated, invalidEscape, controlCharacter
    case unicodeEscapeCutShort, unicodeEscapeNotHex, loneHighSurrogate, invalidLowSurrogate, notAScalar
  }

  let problem: Problem
  let offset: Int

  /// The message JSON Lines input reports.
  var message: String {
    switch problem {
    case .notAString: "expected a string"
    case .unterminated: "unterminated string"
    case .invalidEscape: "invalid escape in a string"
    case .controlCharacter: "a control character inside a string must be escaped"
    case .unicodeEscapeCutShort, .unicodeEscapeNotHex: "a \\u escape needs four hex digits"
    case .loneHighSurrogate: "a high surrogate \\u escape without its low surrogate"
    case .invalidLowSurrogate: "invalid low surrogate in a \\u escape"
    case .notAScalar: "a \\u escape that is not a Unicode scalar"
    }
  }
}

extension JSONEscaping {
  /// Decodes the JSON string literal at `start` (which must be `"`) into `out`; returns the
  /// index after its closing quote. Runs without escapes are copied in one go.
  ///
  /// `lenient` is for JSON inside CSV cells, which other tools may have written loosely: an
  /// unknown escape stands for its character, control characters are kept, and a surrogate
  /// without its pair becomes U+FFFD, instead of each being an error.
  static func decodeString(
    _ b: UnsafeBufferPointer<UInt8>, at start: Int, into out: inout [UInt8], lenient: Bool = false
  ) throws(JSONStringError) -> Int {
    guard start < b.count, b[start] == UInt8(ascii: "\"") else {
      throw JSONStringError(problem: .notAString, offset: start)
    }
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
            if index + 6 <= count, b[index] == UInt8(ascii: "\\"), b[index + 1] == UInt8(ascii: "u") {
              let low = try hex4(b, index + 2)
              if (0xDC00..<0xE000).contains(low) {
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                index += 6
              } else if !lenient {
                throw JSONStringError(problem: .invalidLowSurrogate, offset: index)
              }
            } else if !lenient {
              throw JSONStringError(problem: .loneHighSurrogate, offset: index - 6)
            }
          }
          if let unicode = Unicode.Scalar(scalar) {
            out.append(contentsOf: UTF8.encode(unicode)!)
          } else if lenient {
            out.append(contentsOf: [0xEF, 0xBF, 0xBD])  // U+FFFD
          } else {
            throw JSONStringError(problem: .notAScalar, offset: index - 6)
          }
        default:
          guard lenient else { throw JSONStringError(problem: .invalidEscape, offset: index - 2) }
          out.append(escape)
        }
        runStart = index
        continue
      }
      if byte < 0x20, !lenient { throw JSONStringError(problem: .controlCharacter, offset: index) }
      index += 1
    }
    throw JSONStringError(problem: .unterminated, offset: start)
  }

  private static func hex4(_ b: UnsafeBufferPointer<UInt8>, _ index: Int) throws(JSONStringError) -> UInt32 {
    guard index + 4 <= b.count else { throw JSONStringError(problem: .unicodeEscapeCutShort, offset: index) }
    var value: UInt32 = 0
    for offset in 0..<4 {
      let byte = b[index + offset]
      let digit: UInt32
      switch byte {
      case 0x30...0x39: digit = UInt32(byte - 0x30)
      case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
      case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
      default: throw JSONStringError(problem: .unicodeEscapeNotHex, offset: index + offset)
      }
      value = value << 4 | digit
    }
    return value
  }
}

// MARK: Numbers

/// JSON numbers: recognised by the reader when it checks a value and by the writer when it
/// decides whether an attribute's text can be written as a number as it is.
enum JSONNumber {
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

extension OutputStream {
  /// Writes `text` as a JSON string literal, escaped a block at a time and flushed as it goes, so
  /// that a string of megabytes (a name at the 16 MiB field cap) is never held a second time.
  package func writeJSONString(_ text: String) throws {
    buffer.append(UInt8(ascii: "\""))
    try text.withUTF8Bytes { bytes in
      var start = 0
      while start < bytes.count {
        let end = min(start + Self.blockSize, bytes.count)
        JSONEscaping.appendEscaped(UnsafeBufferPointer(rebasing: bytes[start..<end]), to: &buffer)
        try flushIfNeeded()
        start = end
      }
    }
    buffer.append(UInt8(ascii: "\""))
  }
}
