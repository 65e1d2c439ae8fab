/// The numbers records carry, read from their text: the one scanner behind SQLite's `value` column
/// and Parquet's `DOUBLE` columns, with an exact shortcut for plain decimals.
package enum DecimalText {
  /// The same value as `Double(text)`, for anything `Double(String)` takes (`nan`, `inf`, `0x1p3`
  /// included): SQLite binds every number the export holds.
  package static func double(_ text: String) -> Double? {
    scan(text).exact ?? Double(text)
  }

  /// The value of a decimal number as the export writes it (`77.1003`, `-3`, `812.`, `1.5e-05`),
  /// the same as `Double(text)`; nil for anything else, so that words such as `nan` or `inf` keep
  /// their text in a Parquet file.
  package static func decimal(_ text: String) -> Double? {
    let result = scan(text)
    return result.exact ?? (result.isDecimal ? Double(text) : nil)
  }

  private static func scan(_ text: String) -> (isDecimal: Bool, exact: Double?) {
    if let result = text.utf8.withContiguousStorageIfAvailable({ scan(bytes: $0) }) { return result }
    var copy = text
    return copy.withUTF8 { scan(bytes: $0) }
  }

  /// Powers of ten that a `Double` holds exactly.
  private static let powersOfTen: [Double] = (0...22).map { exponent in
    var value = 1.0
    for _ in 0..<exponent { value *= 10 }
    return value
  }

  /// Whether the bytes are a decimal number (`[+-]digits[.digits][e[+-]digits]`, either side of the
  /// point may be empty) and, for up to 15 significant digits and no exponent, its value: an exact
  /// integer divided by an exact power of ten, which one IEEE division rounds correctly, as
  /// `strtod` does.
  private static func scan(bytes: UnsafeBufferPointer<UInt8>) -> (isDecimal: Bool, exact: Double?) {
    var digits = 0
    var fractionDigits = 0
    var mantissa: UInt64 = 0
    var negative = false
    var seenPoint = false
    var seenExponent = false
    var exponentDigits = 0
    for index in 0..<bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"):
        if seenExponent {
          exponentDigits += 1
        } else {
          digits += 1
          if seenPoint { fractionDigits += 1 }
          if digits <= 19 { mantissa = mantissa &* 10 &+ UInt64(byte &- 48) }
        }
      case UInt8(ascii: "-"), UInt8(ascii: "+"):
        if index == 0 {
          negative = byte == UInt8(ascii: "-")
        } else if !(seenExponent && exponentDigits == 0 && bytes[index - 1] | 0x20 == UInt8(ascii: "e")) {
          return (false, nil)
        }
      case UInt8(ascii: "."):
        if seenPoint || seenExponent { return (false, nil) }
        seenPoint = true
      case UInt8(ascii: "e"), UInt8(ascii: "E"):
        if seenExponent || digits == 0 { return (false, nil) }
        seenExponent = true
      default: return (false, nil)
      }
    }
    guard digits > 0, !seenExponent || exponentDigits > 0 else { return (false, nil) }
    guard !seenExponent, digits <= 15, fractionDigits <= 22 else { return (true, nil) }
    let magnitude = Double(mantissa) / powersOfTen[fractionDigits]
    return (true, negative ? -magnitude : magnitude)
  }
}
