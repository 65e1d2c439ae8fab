import HealthPort

/// Writes a ``HealthDate`` as `YYYY-MM-DD HH:MM:SS ±HHMM` straight into memory: the same bytes as
/// `HealthDate.append(to:)`, without growing an array byte by byte. Every record binds three
/// dates, and consecutive dates nearly always fall on the same day, so the day's ten bytes are
/// kept from the previous call.
struct DateWriter {
  private var lastDay = Int.min
  private var dayText: (UInt64, UInt16) = (0, 0)

  /// The length of the text.
  static let count = 25

  /// Writes the 25 bytes at `out`.
  @inline(__always)
  mutating func write(_ date: HealthDate, to out: UnsafeMutablePointer<UInt8>) {
    let local = date.secondsSince1970 + Int64(date.offsetSeconds)
    let days = Int(local >= 0 ? local / 86_400 : (local - 86_399) / 86_400)
    if days != lastDay { setDay(days) }
    UnsafeMutableRawPointer(out).storeBytes(of: dayText.0, as: UInt64.self)
    UnsafeMutableRawPointer(out + 8).storeBytes(of: dayText.1, as: UInt16.self)
    let secondOfDay = Int(local - Int64(days) * 86_400)
    out[10] = 0x20
    Self.two(secondOfDay / 3600, out + 11)
    out[13] = 0x3A
    Self.two(secondOfDay / 60 % 60, out + 14)
    out[16] = 0x3A
    Self.two(secondOfDay % 60, out + 17)
    out[19] = 0x20
    let offset = Int(date.offsetSeconds)
    out[20] = offset < 0 ? 0x2D : 0x2B
    Self.two(abs(offset) / 3600, out + 21)
    Self.two(abs(offset) / 60 % 60, out + 23)
  }

  private mutating func setDay(_ days: Int) {
    let (year, month, day) = HealthDate.civil(fromDays: days)
    var bytes: (UInt64, UInt16) = (0, 0)
    withUnsafeMutableBytes(of: &bytes) { raw in
      let out = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
      Self.two(year / 100 % 100, out)
      Self.two(year % 100, out + 2)
      out[4] = 0x2D
      Self.two(month, out + 5)
      out[7] = 0x2D
      Self.two(day, out + 8)
    }
    dayText = bytes
    lastDay = days
  }

  @inline(__always)
  private static func two(_ value: Int, _ out: UnsafeMutablePointer<UInt8>) {
    out[0] = UInt8(truncatingIfNeeded: 48 + value / 10)
    out[1] = UInt8(truncatingIfNeeded: 48 + value % 10)
  }
}

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
