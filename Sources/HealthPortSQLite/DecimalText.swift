import HealthPort

/// `Double(text)` for the values records carry, with an exact shortcut for plain decimals.
enum DecimalText {
  /// Powers of ten that a Double holds exactly.
  private static let exactPowers: [Double] = (0...22).map { exponent in
    var value = 1.0
    for _ in 0..<exponent { value *= 10 }
    return value
  }

  /// The same value as `Double(text)`. Text of the form `[-]digits[.digits]` with at most 15
  /// digits in all is computed as integer ÷ 10^k: both operands are exact in a Double, and one
  /// IEEE division is correctly rounded, so the result is the correctly rounded value that
  /// `Double(String)` (strtod) gives. Anything else goes to `Double(String)`.
  static func double(_ text: String) -> Double? {
    var text = text
    let fast: Double? = text.withUTF8 { bytes in
      var index = 0
      var negative = false
      if bytes.count > 0, bytes[0] == UInt8(ascii: "-") {
        negative = true
        index = 1
      }
      var mantissa: Int64 = 0
      var digits = 0
      var fractionDigits = 0
      var sawPoint = false
      var digitsAfterPoint = false
      while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: ".") {
          if sawPoint { return nil }
          sawPoint = true
        } else {
          let digit = byte &- 48
          guard digit < 10 else { return nil }
          mantissa = mantissa * 10 + Int64(digit)
          digits += 1
          if sawPoint {
            fractionDigits += 1
            digitsAfterPoint = true
          }
          if digits > 15 { return nil }
        }
        index += 1
      }
      // "", "-", "." and "5." / ".5" shapes are left to Double(String).
      guard digits > 0, !sawPoint || digitsAfterPoint, bytes[negative ? 1 : 0] != UInt8(ascii: ".") else {
        return nil
      }
      let magnitude = Double(mantissa) / exactPowers[fractionDigits]
      return negative ? -magnitude : magnitude
    }
    return fast ?? Double(text)
  }
}
