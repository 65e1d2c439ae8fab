import Testing

@testable import HealthPort

@Suite("Answer tables")
struct TabularOutputTests {
  @Test("printable ASCII is one column a byte; anything else is measured by its clusters")
  func displayWidthOfASCII() {
    let printable = String(decoding: Array(UInt8(0x20)...UInt8(0x7E)), as: UTF8.self)
    #expect(printable.displayWidth == 95)
    #expect(String(repeating: "abcdefghi\\x0a", count: 100_000).displayWidth == 1_300_000)
    // A combining mark, a control, DEL and CRLF leave the byte count.
    #expect("e\u{301}".displayWidth == 1)
    #expect("a\tb".displayWidth == 2)
    #expect("a\u{7F}".displayWidth == 1)
    #expect("a\r\nb".displayWidth == 2)
  }

  @Test("a table aligns by terminal columns (CJK and emoji are two wide); CSV and JSON give exact numbers")
  func renders() {
    var output = TabularOutput(columns: ["name", "value"])
    output.rows = [[.text("日本"), .number(0.1 + 0.2)], [.text("👍x"), .count(12_345)], [.text("ab"), .empty]]
    output.groupsThousands = true
    #expect(output.table() == "name   value\n日本     0.3\n👍x   12,345\nab\n")
    #expect(
      String(decoding: output.csv(), as: UTF8.self)
        == "\"name\",\"value\"\n日本,0.30000000000000004\n👍x,12345\nab,\n")
    output.rows[2][1] = .number(.nan)
    #expect(
      String(decoding: output.json(), as: UTF8.self)
        == "[\n  {\"name\": \"日本\", \"value\": 0.30000000000000004},\n  {\"name\": \"👍x\", \"value\": 12345},\n"
        + "  {\"name\": \"ab\", \"value\": null}\n]\n")
  }
}
