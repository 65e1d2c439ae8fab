/// Appends JSON text to byte buffers: the shared primitive of every JSON output.
public enum JSONEscaping {
  /// Appends `text` as a JSON string literal, copying runs that need no escape in one go.
  public static func appendString(_ text: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    appendContents(text, to: &out)
    out.append(UInt8(ascii: "\""))
  }

  /// Appends `text` escaped for the inside of a JSON string literal (without the quotes).
  @inline(__always)
  public static func appendContents(_ text: String, to out: inout [UInt8]) {
    // Native strings are contiguous UTF-8: read them in place, without a copy.
    if text.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &out) }) == nil {
      var copy = text
      copy.withUTF8 { appendEscaped($0, to: &out) }
    }
  }

  @inline(__always)
  static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
    var runStart = 0
    for index in 0..<bytes.count {
      let byte = bytes[index]
      guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
      runStart = index + 1
      switch byte {
      case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
      case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
      case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
      case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
      case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
      default:
        let hex = Array("0123456789abcdef".utf8)
        out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
      }
    }
    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
  }

  /// Appends a string literal, or `null`.
  public static func appendOptional(_ text: String?, to out: inout [UInt8]) {
    if let text { appendString(text, to: &out) } else { out.append(contentsOf: Array("null".utf8)) }
  }

  /// Appends a number: integers without a fraction, others in the shortest form that reads back.
  public static func appendNumber(_ value: Double, to out: inout [UInt8]) {
    guard value.isFinite else {
      out.append(contentsOf: Array("null".utf8))
      return
    }
    if value == value.rounded(), abs(value) < 1e15 {
      out.append(contentsOf: Array(String(Int64(value)).utf8))
    } else {
      out.append(contentsOf: Array(value.description.utf8))
    }
  }

  public static func appendInteger(_ value: Int, to out: inout [UInt8]) {
    out.append(contentsOf: Array(String(value).utf8))
  }
}
