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

  /// For tables: control characters shown as escapes (``escapingControls(keepingNewlines:)``)
  /// and a non-breaking space (U+00A0, or the narrow U+202F) as `⍽`, so that two names that
  /// differ only by one are told apart. Data outputs (CSV, JSON) keep them as written.
  package var shownInTable: String {
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
