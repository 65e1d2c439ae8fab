import HealthPort
import Testing

@testable import HealthPortSQLite

/// The XML text of `other_elements` and `extras`, now written through the shared ``XMLEscaping``.
@Suite("SQLite XML fragments")
struct SQLiteFragmentTests {
  /// The loader's own serializer before it shared ``XMLEscaping`` (scalar by scalar, on a String):
  /// the reference the stored bytes must keep matching.
  static func reference(_ node: ElementNode) -> String {
    func escape(_ text: String, attribute: Bool, to out: inout String) {
      for scalar in text.unicodeScalars {
        switch scalar {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"" where attribute: out += "&quot;"
        case "\n" where attribute: out += "&#10;"
        case "\t" where attribute: out += "&#9;"
        case "\r": out += "&#13;"
        default: out.unicodeScalars.append(scalar)
        }
      }
    }
    var out = "<" + node.name
    for attribute in node.attributes {
      out += " " + attribute.name + "=\""
      escape(attribute.value, attribute: true, to: &out)
      out += "\""
    }
    if node.children.isEmpty && node.text == nil { return out + "/>" }
    out += ">"
    if let text = node.text { escape(text, attribute: false, to: &out) }
    for child in node.children { out += reference(child) }
    return out + "</" + node.name + ">"
  }

  static let probes: [String] = {
    let specials = ["\"", "&", "<", ">", "\n", "\r", "\t", "\r\n", "\u{01}", "\u{0B}", "\u{1F}", "\u{7F}", "'"]
    let others = ["", "a", "é", "❤️", "0123456789abcdef", "Mikian’s Apple Watch", "<<HKDevice: 0x1>, name:W>"]
    var texts = others + specials
    for a in specials { for b in others { texts += [a + b, b + a + b, b + a + a + b + b] } }
    return texts
  }()

  @Test("attribute values and text are escaped exactly as before, control characters and quotes in text kept")
  func sameBytes() {
    for text in Self.probes {
      let node = ElementNode(
        name: "Unknown", attributes: [Attribute("a", text), Attribute("b", "x" + text)],
        children: [ElementNode(name: "Child", attributes: [Attribute("c", text)], text: text)], text: text)
      #expect(XMLFragment.string(node) == Self.reference(node), "\(text.debugDescription)")
      let empty = ElementNode(name: "E", attributes: [Attribute("v", text)])
      #expect(XMLFragment.string(empty) == Self.reference(empty), "\(text.debugDescription)")
    }
  }

  @Test("a few fragments spelled out")
  func examples() {
    let node = ElementNode(
      name: "X", attributes: [Attribute("a", "1\"2\n3\u{01}")], children: [ElementNode(name: "Y")], text: "t\"\n\r&")
    #expect(XMLFragment.string(node) == "<X a=\"1&quot;2&#10;3\u{01}\">t\"\n&#13;&amp;<Y/></X>")
  }
}
