/// Appends JSON text to byte buffers: the shared primitive of every JSON output.
public enum JSONEscaping {
  /// Appends `text` as a JSON string literal, copying runs that need no escape in one go.
  @inline(__always)
  public static func appendString<Out: ByteAppender & ~Copyable>(_ text: String, to out: inout Out) {
    out.append(UInt8(ascii: "\""))
    appendContents(text, to: &out)
    out.append(UInt8(ascii: "\""))
  }

  /// Appends `text` escaped for the inside of a JSON string literal (without the quotes).
  @inline(__always)
  public static func appendContents<Out: ByteAppender & ~Copyable>(_ text: String, to out: inout Out) {
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

  /// True when a byte is a control character (< 0x20), `"` or `\`. Word at a time: the "has a
  /// byte less than n" bit trick for the controls, "has a zero byte" on the word XORed with
  /// each special byte's pattern for the others.
  @inline(__always)
  static func needsEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let count = bytes.count
    guard let base = bytes.baseAddress else { return false }
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    @inline(__always) func hasZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
    @inline(__always) func isSpecial(_ word: UInt64) -> Bool {
      (word &- ones &* 0x20) & ~word & highs != 0 || hasZero(word ^ (ones &* 0x22)) || hasZero(word ^ (ones &* 0x5C))
    }
    var index = 0
    while index + 8 <= count {
      if isSpecial(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) { return true }
      index += 8
    }
    while index < count {
      let byte = base[index]
      if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
      index += 1
    }
    return false
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
  public static func appendOptional<Out: ByteAppender & ~Copyable>(_ text: String?, to out: inout Out) {
    if let text { appendString(text, to: &out) } else { out.append("null") }
  }

  /// Appends a number: integers without a fraction, others in the shortest form that reads back.
  public static func appendNumber<Out: ByteAppender & ~Copyable>(_ value: Double, to out: inout Out) {
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

  public static func appendInteger<Out: ByteAppender & ~Copyable>(_ value: Int, to out: inout Out) {
    CSVEncoding.appendInteger(value, to: &out)
  }
}
