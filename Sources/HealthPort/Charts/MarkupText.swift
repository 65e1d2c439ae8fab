/// Escaping for text and attribute values in SVG (XML) and HTML: the export writer's escaper
/// (``XMLEscaping``), which also drops the control characters XML 1.0 forbids.
enum MarkupText {
  static func escaped(_ text: String) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    XMLEscaping.appendEscaped(text, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}
