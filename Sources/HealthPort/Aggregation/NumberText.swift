/// Numbers as text. Two rules, each written once:
///
/// - ``exact(_:)`` for data (CSV and JSON of the answer commands): the shortest decimal that reads
///   back as the same `Double`, as precise as the data.
/// - `format(_:decimals:)` for people (tables): rounded to at most `decimals` decimals.
///
/// Both write integers without a fraction (`12559`, not `12559.0`).
public enum NumberText {
  /// `1234567` as `1,234,567` (summaries and tables).
  package static func grouped(_ value: Int) -> String { grouped(String(value)) }

  /// A number's text with thousands separators in its whole part: `-12345.5` as `-12,345.5`.
  package static func grouped(_ number: String) -> String {
    var whole = Substring(number)
    var rest = Substring("")
    if let dot = number.firstIndex(of: ".") {
      whole = number[..<dot]
      rest = number[dot...]
    }
    var sign = ""
    if whole.first == "-" {
      sign = "-"
      whole = whole.dropFirst()
    }
    let digits = Array(whole)
    var result = sign
    for (index, digit) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
      result.append(digit)
    }
    return result + rest
  }

  /// 2^53: every integer up to it is a `Double`, and no `Double` beyond it has a fraction.
  static let exactIntegers = 9_007_199_254_740_992.0

  /// The shortest decimal that reads back as the same `Double` (the digits of Swift's
  /// `description`), without an exponent: `12559`, `0.30000000000000004` (for `0.1 + 0.2`), `0.0000001` (for
  /// `1e-7`). Integral values up to 2^53 are written as integers; beyond 2^53, where no value has
  /// a fraction and a row of digits makes pandas read a column as text, Swift's exponent form
  /// (`1e+21`), a number for JSON, pandas and DuckDB alike. `-0` is `0`; NaN and infinities are ""
  /// (the caller writes an empty cell or `null`).
  public static func exact(_ value: Double) -> String {
    guard value.isFinite else { return "" }
    if value.magnitude <= exactIntegers, value.rounded(.towardZero) == value { return String(Int64(value)) }
    let text = value.description
    // Below 2^53 Swift uses an exponent only under 1e-4 (`1.5e-07`): the same digits moved behind
    // the point.
    guard value.magnitude < 1, let e = text.firstIndex(of: "e"), let exponent = Int(text[text.index(after: e)...])
    else { return text }
    let digits = text[..<e].filter(\.isNumber)
    return (value < 0 ? "-" : "") + "0." + String(repeating: "0", count: -exponent - 1) + digits
  }

  /// For tables: at most `decimals` decimals, rounded half away from zero, trailing zeros trimmed.
  /// Magnitudes too large for that many decimals are written as ``exact(_:)``.
  package static func format(_ value: Double, decimals: Int = 3) -> String {
    guard value.isFinite else { return "" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    guard (value * scale).magnitude < 1e18 else { return exact(value) }
    let rounded = (value * scale).rounded() / scale
    if rounded == rounded.rounded(), abs(rounded) < 1e15 {
      let integer = Int64(rounded)
      return integer == 0 ? "0" : String(integer)
    }
    let negative = rounded < 0
    let scaled = Int64((abs(value) * scale).rounded())
    var whole = String(scaled / Int64(scale))
    var fraction = String(scaled % Int64(scale))
    fraction = String(repeating: "0", count: decimals - fraction.count) + fraction
    while fraction.last == "0" { fraction.removeLast() }
    if negative { whole = "-" + whole }
    return fraction.isEmpty ? whole : whole + "." + fraction
  }
}
