/// Terminal display width, for aligning tables whose cells hold emoji, CJK text or combining marks.
///
/// Per grapheme cluster (what a terminal draws as one character): 2 columns for East Asian wide
/// and fullwidth characters and for emoji shown as emoji (emoji presentation, or an emoji followed
/// by the variation selector U+FE0F); 0 for a cluster that is only combining marks, format
/// characters (zero-width space, joiners) or control characters; else 1.
extension String {
  package var displayWidth: Int {
    if let width = printableASCIIWidth { return width }
    var width = 0
    for character in self { width += character.displayWidth }
    return width
  }

  /// The byte count when every byte is printable ASCII (one column each, each its own cluster),
  /// else nil: a table of long escaped names is measured without walking its clusters.
  private var printableASCIIWidth: Int? {
    var text = self
    return text.withUTF8 { bytes in
      for byte in bytes where byte &- 0x20 > 0x5E { return nil }
      return bytes.count
    }
  }

  /// The most terminal columns a table gives one cell: a longer one is cut to its first 199
  /// columns and `…` (docs/filters.md). Tables are for people; CSV and JSON keep every value whole.
  package static let tableCellColumns = 200

  /// The most UTF-8 bytes of a cell that a table looks at: past them the cell is cut too, so that
  /// a text of zero-width marks costs no more than a wide one.
  package static let tableCellBytes = 4096

  /// For tables: ``shownToPeople``, cut to at most ``tableCellColumns`` terminal columns (the
  /// last of them `…`). Only the first ``tableCellBytes`` are looked at, so a cell of megabytes
  /// costs no more than a short one.
  package var shownInTable: String {
    if utf8.count <= Self.tableCellBytes {
      let shown = shownToPeople
      if shown.displayWidth <= Self.tableCellColumns { return shown }
    }
    let head = headForTable
    let whole = utf8.count <= Self.tableCellBytes
    // The characters whose shown width fits in the cell beside the `…`.
    var width = 0
    var end = head.startIndex
    var ends: [String.Index] = []
    for index in head.indices {
      let character = head[index]
      let shown =
        character.unicodeScalars.contains(where: Self.isShownOtherwise)
        ? String(character).shownToPeople.displayWidth : character.displayWidth
      if width + shown > Self.tableCellColumns - 1 { break }
      width += shown
      end = head.index(after: index)
      ends.append(end)
    }
    // Cut by bytes, not by width: the last character looked at may be the start of a longer one.
    if !whole, end == head.endIndex { end = ends.count > 1 ? ends[ends.count - 2] : head.startIndex }
    return String(head[..<end]).shownToPeople + "…"
  }

  /// The first ``tableCellBytes`` (and a few more, up to a character boundary) of the text, or
  /// all of it when shorter: what ``shownInTable`` looks at, so that `"\(name.headForTable) …"`
  /// shows in a table as `"\(name) …"` would without copying a long name.
  package var headForTable: String {
    let most = Self.tableCellBytes + 4
    guard utf8.count > most else { return self }
    var text = self
    return text.withUTF8 { bytes in
      var end = most
      while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
      return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
    }
  }

  /// A scalar that ``shownToPeople`` shows otherwise: a control character or a no-break space.
  private static func isShownOtherwise(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{A0}" || scalar == "\u{202F}"
  }

  /// For tables and messages: control characters shown as escapes
  /// (``escapingControls(keepingNewlines:)``) and a non-breaking space (U+00A0, or the narrow
  /// U+202F) as `⍽`, so that two names that differ only by one are told apart. Whole, however
  /// long (``shownInTable`` cuts it). Data outputs (CSV, JSON) keep them as written.
  package var shownToPeople: String {
    let escaped = escapingControls(keepingNewlines: false)
    guard escaped.unicodeScalars.contains(where: { $0 == "\u{A0}" || $0 == "\u{202F}" }) else { return escaped }
    // Built as UTF-8 bytes and decoded once: appending to `unicodeScalars` copies the whole
    // string every time (a 1 MB name took seconds).
    var bytes: [UInt8] = []
    bytes.reserveCapacity(escaped.utf8.count + 16)
    for scalar in escaped.unicodeScalars {
      bytes.append(contentsOf: UTF8.encode(scalar == "\u{A0}" || scalar == "\u{202F}" ? "⍽" : scalar)!)
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Control characters (C0, DEL, C1) as `\x1b`-style escapes, so that a name taken from an
  /// export can neither move a terminal's cursor nor recolour it, nor hide in a message.
  /// Linear in the length (names come from the input, up to its 16 MiB field cap).
  package func escapingControls(keepingNewlines: Bool) -> String {
    func isControl(_ scalar: Unicode.Scalar) -> Bool {
      (scalar.value < 0x20 && !(keepingNewlines && scalar == "\n")) || (0x7F...0x9F).contains(scalar.value)
    }
    guard unicodeScalars.contains(where: isControl) else { return self }
    let hex = Array("0123456789abcdef".utf8)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count + 16)
    for scalar in unicodeScalars {
      if isControl(scalar) {
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(UInt8(ascii: "x"))
        bytes.append(hex[Int(scalar.value >> 4)])
        bytes.append(hex[Int(scalar.value & 15)])
      } else {
        bytes.append(contentsOf: UTF8.encode(scalar)!)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension Character {
  package var displayWidth: Int {
    let scalars = unicodeScalars
    guard let first = scalars.first else { return 0 }
    if scalars.contains(where: { $0.properties.isEmojiPresentation })
      || (scalars.contains("\u{FE0F}") && first.properties.isEmoji)
    {
      return 2
    }
    if first.isEastAsianWide { return 2 }
    switch first.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format, .control: return 0
    default: return 1
    }
  }
}

extension Unicode.Scalar {
  /// East Asian Wide (W) and Fullwidth (F) ranges of Unicode's EastAsianWidth.txt, main blocks.
  package var isEastAsianWide: Bool {
    switch value {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
      0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60,
      0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
      true
    default: false
    }
  }
}

extension String {
  /// Padded with spaces to `width` terminal columns (``displayWidth``).
  package func rightPadded(to width: Int) -> String {
    let own = displayWidth
    return own >= width ? self : self + String(repeating: " ", count: width - own)
  }

  /// Padded on the left to `width` terminal columns (``displayWidth``).
  package func leftPadded(to width: Int) -> String {
    let own = displayWidth
    return own >= width ? self : String(repeating: " ", count: width - own) + self
  }

  /// Padded with spaces to `width` terminal columns (``displayWidth``), at least one space after.
  package func padding(to width: Int) -> String {
    let own = displayWidth
    return own >= width ? self + " " : self + String(repeating: " ", count: width - own)
  }

  /// Without the spaces at its end.
  package func trimmingTrailingSpaces() -> String {
    var text = Substring(self)
    while text.last == " " { text.removeLast() }
    return String(text)
  }
}
