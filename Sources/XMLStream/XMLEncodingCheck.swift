/// Tells an export in UTF-16 from its first bytes, so that the user reads what it is and how to
/// convert it, not libxml2's "Document is empty" (a byte-order mark) or "Document labelled
/// UTF-16 but has UTF-8 content". The Health app writes UTF-8; a UTF-16 file comes from an
/// editor or a conversion.
enum XMLEncodingCheck {
  /// The message for a document healthport cannot read as UTF-8, nil for any other.
  static func problem(in bytes: UnsafeRawBufferPointer, name: String) -> String? {
    let head = Array(bytes.prefix(1024))
    func convert(_ encoding: String) -> String {
      "convert it first: iconv -f \(encoding) -t UTF-8 '\(name)' > export-utf8.xml"
    }
    if head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) {
      let order = head[0] == 0xFF ? "little-endian" : "big-endian"
      return
        "the document is UTF-16 (\(order), with a byte-order mark); healthport reads UTF-8, as the Health app writes it: \(convert("UTF-16"))"
    }
    if head.starts(with: [0x3C, 0x00, 0x3F, 0x00]) || head.starts(with: [0x00, 0x3C, 0x00, 0x3F]) {
      let (order, encoding) = head[0] == 0x3C ? ("little-endian", "UTF-16LE") : ("big-endian", "UTF-16BE")
      return
        "the document is UTF-16 (\(order), no byte-order mark); healthport reads UTF-8, as the Health app writes it: \(convert(encoding))"
    }
    // A UTF-8 document whose declaration says UTF-16 (converted without its declaration).
    var start = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    while start < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[start]) { start += 1 }
    guard head[start...].starts(with: Array("<?xml".utf8)),
      let end = head[start...].firstRange(of: Array("?>".utf8))?.lowerBound
    else { return nil }
    let declaration = String(decoding: head[start..<end], as: UTF8.self).lowercased()
    guard let label = declaration.firstRange(of: "encoding") else { return nil }
    let value = declaration[label.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
    guard value.hasPrefix("utf-16") || value.hasPrefix("utf16") || value.hasPrefix("ucs-2") else { return nil }
    return "the XML declaration says the document is UTF-16, but its bytes are UTF-8 (converted, its declaration "
      + "left as it was): correct the declaration to encoding=\"UTF-8\", e.g. sed -i '1s/UTF-16/UTF-8/' '\(name)'"
  }
}
