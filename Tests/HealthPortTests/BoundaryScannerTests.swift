import Testing

@testable import HealthPort

/// Where a parallel read may cut: the first line feed at or after an offset that is followed by
/// one space, `<` and a letter, found through small reads first and whole blocks after.
@Suite("Boundary scanner")
struct BoundaryScannerTests {
  /// Elements of every length around the scanner's read sizes (4 KiB first, then 64 KiB), with
  /// line feeds that are not boundaries (two spaces, `</`, a digit) and one at the very end.
  static func document() -> [UInt8] {
    var text = "<HealthData locale=\"en_US\">\n"
    let lengths = [10, 300, 4_090, 4_093, 4_096, 5_000, 65_533, 65_536, 70_000, 130_000, 7]
    for (index, length) in lengths.enumerated() {
      text += " <Record type=\"T\" value=\"" + String(repeating: "x", count: length) + "\">\n"
      text += "  <MetadataEntry key=\"k\" value=\"\(index)\"/>\n <!-- \n 1 not a boundary -->\n </Record>\n"
    }
    text += "</HealthData>\n <a"
    return Array(text.utf8)
  }

  /// The same rule, byte by byte.
  static func naiveBoundary(_ bytes: [UInt8], atOrAfter offset: Int) -> Int {
    var at = offset
    while at + 3 < bytes.count {
      if bytes[at] == 0x0A, bytes[at + 1] == 0x20, bytes[at + 2] == 0x3C, BoundaryScanner.isLetter(bytes[at + 3]) {
        return at
      }
      at += 1
    }
    return bytes.count
  }

  @Test("finds the boundary a byte-by-byte scan finds, from every offset near the reads' edges")
  func matchesNaiveScan() throws {
    let bytes = Self.document()
    let scanner = BoundaryScanner(document: MemoryDocument(bytes: bytes, name: "boundaries.xml"))
    var offsets = Set<Int>()
    var start = 0
    while start < bytes.count {
      for delta in -8...8 { offsets.insert(max(0, min(bytes.count, start + delta))) }
      start += 1_021
    }
    for offset in offsets.sorted() {
      #expect(try scanner.boundary(atOrAfter: offset) == Self.naiveBoundary(bytes, atOrAfter: offset), "at \(offset)")
    }
  }
}
