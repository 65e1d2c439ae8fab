import HealthPort
import Testing

/// The two number rules: exact text for data, rounded text for tables.
@Suite("NumberText")
struct NumberTextTests {
  @Test(
    "exact: the shortest text that reads back as the same double, without an exponent below 2^53",
    arguments: [
      (12559, "12559"), (0.1 + 0.2, "0.30000000000000004"), (0.15157, "0.15157"), (1e-7, "0.0000001"),
      (1.5e-7, "0.00000015"), (-2.5e-5, "-0.000025"), (0.0001, "0.0001"), (-0.0, "0"), (-42, "-42"),
      (123_456_789_012_345.67, "123456789012345.67"), (9_007_199_254_740_992, "9007199254740992"),
      (1e21, "1e+21"), (-9.1e15, "-9.1e+15"),
    ] as [(Double, String)])
  func exact(value: Double, text: String) {
    #expect(NumberText.exact(value) == text)
    #expect(Double(text) == value)
  }

  @Test("exact: no text for what is not a number")
  func notFinite() {
    #expect(NumberText.exact(.nan) == "")
    #expect(NumberText.exact(.infinity) == "")
  }

  @Test(
    "format: at most the decimals asked, half away from zero, trailing zeros trimmed",
    arguments: [
      (10.5, 0, "11"), (1.25, 1, "1.3"), (-10.5, 0, "-11"), (68.038_855_5, 2, "68.04"), (15.143_4, 3, "15.143"),
      (2.000_4, 3, "2"), (1e21, 3, "1e+21"), (12_559, 0, "12559"),
    ] as [(Double, Int, String)])
  func format(value: Double, decimals: Int, text: String) {
    #expect(NumberText.format(value, decimals: decimals) == text)
  }

  @Test(
    "grouped: thousands separators in the whole part of a number's text, sign and decimals kept",
    arguments: [
      ("0", "0"), ("999", "999"), ("1000", "1,000"), ("1234567", "1,234,567"), ("-123", "-123"),
      ("-123456.75", "-123,456.75"), ("12345.5", "12,345.5"), ("100000.125", "100,000.125"),
    ])
  func groupedText(text: String, grouped: String) {
    #expect(NumberText.grouped(text) == grouped)
    if let whole = Int(text) { #expect(NumberText.grouped(whole) == grouped) }
  }
}
