import HealthPort

/// Serializes a generic element back to XML text, for `other_elements` and `extras`.
enum XMLText {
  static func string(_ node: ElementNode) -> String {
    var out = ""
    append(node, to: &out)
    return out
  }

  static func append(_ node: ElementNode, to out: inout String) {
    out += "<" + node.name
    for attribute in node.attributes {
      out += " " + attribute.name + "=\""
      escape(attribute.value, attribute: true, to: &out)
      out += "\""
    }
    if node.children.isEmpty && node.text == nil {
      out += "/>"
      return
    }
    out += ">"
    if let text = node.text { escape(text, attribute: false, to: &out) }
    for child in node.children { append(child, to: &out) }
    out += "</" + node.name + ">"
  }

  static func escape(_ text: String, attribute: Bool, to out: inout String) {
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
}
