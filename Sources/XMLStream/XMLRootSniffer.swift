/// Tells what a document's root element is from its first bytes, skipping the prolog the same
/// way ``XMLPushParser`` does. Used to find the export inside a zip or folder by content.
public enum XMLRootSniffer {
  public enum Result: Equatable, Sendable {
    /// The root element's name.
    case root(String)
    /// The bytes end before the root element: read more.
    case needMore
    /// Not an XML document.
    case notXML
  }

  public static func sniff(_ bytes: [UInt8]) -> Result {
    guard let (start, _) = PrologScanner.scan(bytes) else {
      return bytes.count > PrologScanner.limit ? .notXML : .needMore
    }
    guard start < bytes.count, bytes[start] == UInt8(ascii: "<") else { return .notXML }
    var end = start + 1
    while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
    if end == bytes.count { return .needMore }
    guard end > start + 1 else { return .notXML }
    return .root(String(decoding: bytes[(start + 1)..<end], as: UTF8.self))
  }

  private static func isNameByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."),
      UInt8(ascii: ":"), 0x80...0xFF:
      return true
    default: return false
    }
  }
}
