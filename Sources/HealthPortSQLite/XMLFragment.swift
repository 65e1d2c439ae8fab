import HealthPort

/// Serializes a generic element back to XML text, for `other_elements` and `extras`.
enum XMLFragment {
  static func string(_ node: ElementNode) -> String {
    var out: [UInt8] = []
    append(node, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  static func append(_ node: ElementNode, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "<"))
    out.append(contentsOf: node.name.utf8)
    for attribute in node.attributes {
      out.append(UInt8(ascii: " "))
      out.append(contentsOf: attribute.name.utf8)
      out.append(contentsOf: "=\"".utf8)
      XMLEscaping.appendEscaped(attribute.value, to: &out, form: .fragment)
      out.append(UInt8(ascii: "\""))
    }
    if node.children.isEmpty && node.text == nil {
      out.append(contentsOf: "/>".utf8)
      return
    }
    out.append(UInt8(ascii: ">"))
    if let text = node.text { XMLEscaping.appendEscaped(text, to: &out, isText: true, form: .fragment) }
    for child in node.children { append(child, to: &out) }
    out.append(contentsOf: "</".utf8)
    out.append(contentsOf: node.name.utf8)
    out.append(UInt8(ascii: ">"))
  }
}
