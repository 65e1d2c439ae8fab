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

  /// True when a byte needs work (``ByteScan``).
  @inline(__always)
  static func hasSpecial(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    ByteScan.contains(
      bytes,
      word: {
        ByteScan.hasControl($0) || ByteScan.has(0x22, in: $0) || ByteScan.has(0x26, in: $0)
          || ByteScan.has(0x3C, in: $0) || ByteScan.has(0x3E, in: $0)
      }, byte: isSpecial)
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
