/// Formats numbers for tables and CSV: integers without a fraction, others with at most
/// `decimals` decimals, trailing zeros trimmed.
public enum NumberText {
  /// `1234567` as `1,234,567` (summaries and tables).
  public static func grouped(_ value: Int) -> String {
    let digits = Array(String(value))
    var result = ""
    for (index, digit) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
      result.append(digit)
    }
    return result
  }

  public static func format(_ value: Double, decimals: Int = 3) -> String {
    guard value.isFinite else { return "" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
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
