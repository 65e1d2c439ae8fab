/// XML escaping on bytes, for the export writer and the SQLite store's XML fragments: unescaped
/// runs are copied in one go.
package enum XMLEscaping {
  /// Which escaping rules apply beyond `&` `<` `>` and carriage return, which are always escaped.
  package enum Form: Sendable {
    /// The export writer's: `"` everywhere, line feed and tab in attribute values (so that they
    /// survive attribute normalisation); control characters XML 1.0 forbids are dropped.
    case export
    /// The SQLite store's `other_elements` and `extras` columns: `"`, line feed and tab in
    /// attribute values only; every other character is kept as read (the stored bytes stay as
    /// earlier versions wrote them).
    case fragment
  }

  /// Bytes below 0x40 that need work: control characters (escaped or dropped), `"`, `&`, `<`, `>`.
  static let specialMask: UInt64 = 0x5000_0044_FFFF_FFFF

  @inline(__always)
  static func isSpecial(_ byte: UInt8) -> Bool { byte < 0x40 && (specialMask >> UInt64(byte)) & 1 != 0 }

  /// Appends `text` escaped for an attribute value (or, with `isText`, for character data, where
  /// line feeds and tabs stay raw).
  @inline(__always)
  package static func appendEscaped<Out: ByteAppender & ~Copyable>(
    _ text: String, to out: inout Out, isText: Bool = false, form: Form = .export
  ) {
    text.withUTF8Bytes { appendEscaped(bytes: $0, to: &out, isText: isText, form: form) }
  }

  /// True when a byte needs work. Word at a time: "has a byte less than 0x20" for the control
  /// characters, "has a zero byte" on the word XORed with each other special byte's pattern.
  @inline(__always)
  static func hasSpecial(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let count = bytes.count
    guard let base = bytes.baseAddress else { return false }
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    @inline(__always) func hasZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
    var index = 0
    while index + 8 <= count {
      let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
      if (word &- ones &* 0x20) & ~word & highs != 0 || hasZero(word ^ (ones &* 0x22))
        || hasZero(word ^ (ones &* 0x26)) || hasZero(word ^ (ones &* 0x3C)) || hasZero(word ^ (ones &* 0x3E))
      {
        return true
      }
      index += 8
    }
    while index < count {
      if isSpecial(base[index]) { return true }
      index += 1
    }
    return false
  }

  @inline(__always)
  static func appendEscaped<Out: ByteAppender & ~Copyable>(
    bytes: UnsafeBufferPointer<UInt8>, to out: inout Out, isText: Bool, form: Form = .export
  ) {
    if hasSpecial(bytes) {
      appendEscapedSlowly(bytes: bytes, to: &out, isText: isText, form: form)
    } else {
      out.append(bytes: bytes)
    }
  }

  @inline(never)
  static func appendEscapedSlowly<Out: ByteAppender & ~Copyable>(
    bytes: UnsafeBufferPointer<UInt8>, to out: inout Out, isText: Bool, form: Form
  ) {
    var runStart = 0
    var index = 0
    let count = bytes.count
    while index < count {
      let byte = bytes[index]
      if !isSpecial(byte) {
        index += 1
        continue
      }
      out.append(bytes: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
      index += 1
      runStart = index
      switch byte {
      case 0x22: if isText && form == .fragment { out.append(0x22) } else { out.append("&quot;") }
      case 0x26: out.append("&amp;")
      case 0x3C: out.append("&lt;")
      case 0x3E: out.append("&gt;")
      case 0x0A: if isText { out.append(0x0A) } else { out.append("&#10;") }
      case 0x09: if isText { out.append(0x09) } else { out.append("&#9;") }
      case 0x0D: out.append("&#13;")
      default:
        // A control character XML 1.0 forbids: dropped from export XML, and counted for a warning.
        if form == .fragment { out.append(byte) } else { out.noteRemovedCharacter() }
      }
    }
    out.append(bytes: UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
  }
}
