/// Captures the bytes before the root element: byte-order mark, XML declaration, comments,
/// processing instructions and the DOCTYPE with its internal subset.
///
/// The end of the internal subset is the first `]` followed (after optional blanks) by `>`
/// outside comments, processing instructions and quoted literals; the broken iOS 16.0 DTD still
/// ends with it.
struct PrologScanner {
  static let limit = 4 << 20

  enum Result { case needMore, complete, tooLarge }

  private var pending: [UInt8] = []
  private(set) var isComplete = false
  private var rootStart = 0
  private var doctype: Range<Int>?
  /// Where the next scan resumes: the start of the first construct not yet complete, so that the
  /// prolog is scanned once, not again from its start for every block (blank lines included).
  private var resume = 0

  /// The prolog, once complete.
  var captured: [UInt8] { isComplete ? Array(pending[0..<rootStart]) : pending }

  /// Lines seen so far, for an error about an endless prolog.
  var lineCount: Int { pending.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) } }

  mutating func consume(_ bytes: UnsafeRawBufferPointer) -> Result {
    pending.append(contentsOf: bytes)
    if let root = Self.scan(pending, from: &resume, doctype: &doctype) {
      // The cap holds however the bytes come: in small blocks, or a whole range at once (the
      // parallel reader's first parser), blank lines and comments included.
      guard root <= Self.limit else { return .tooLarge }
      isComplete = true
      rootStart = root
      return .complete
    }
    return pending.count > Self.limit ? .tooLarge : .needMore
  }

  /// The prolog as libxml2 should see it: the DOCTYPE replaced by spaces (line breaks kept,
  /// so that libxml2's line and column numbers stay those of the file).
  func maskedForParser() -> [UInt8] {
    var bytes = Array(pending[0..<rootStart])
    if let doctype {
      for index in doctype where bytes[index] != 0x0A && bytes[index] != 0x0D { bytes[index] = 0x20 }
    }
    return bytes
  }

  /// What followed the prolog in the bytes consumed so far; the scanner keeps only the prolog.
  mutating func takeRemainder() -> [UInt8] {
    guard isComplete else {
      defer { pending = [] }
      return pending
    }
    let rest = Array(pending[rootStart...])
    pending.removeSubrange(rootStart...)
    return rest
  }

  /// Returns where the root element starts and the DOCTYPE's range, or nil if more bytes are needed.
  static func scan(_ bytes: [UInt8]) -> (Int, Range<Int>?)? {
    var index = 0
    var doctype: Range<Int>?
    return scan(bytes, from: &index, doctype: &doctype).map { ($0, doctype) }
  }

  /// The same from `index` (the start of a construct, or of the bytes), with the DOCTYPE found
  /// before it in `doctype`. When more bytes are needed, `index` is left at the construct that
  /// is not complete yet.
  static func scan(_ bytes: [UInt8], from index: inout Int, doctype: inout Range<Int>?) -> Int? {
    if index == 0, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    while true {
      while index < bytes.count, isBlank(bytes[index]) { index += 1 }
      guard index + 1 < bytes.count else { return nil }
      guard bytes[index] == UInt8(ascii: "<") else { return index }
      if bytes[index + 1] == UInt8(ascii: "?") {
        guard let end = find([0x3F, 0x3E], in: bytes, from: index + 2) else { return nil }
        index = end + 2
      } else if hasPrefix("<!--", bytes, at: index) {
        guard let end = find([0x2D, 0x2D, 0x3E], in: bytes, from: index + 4) else { return nil }
        index = end + 3
      } else if hasPrefix("<!DOCTYPE", bytes, at: index) {
        guard let end = doctypeEnd(bytes, from: index + 9) else { return nil }
        doctype = index..<(end + 1)
        index = end + 1
      } else if bytes.count - index < 9 && bytes[index + 1] == UInt8(ascii: "!") {
        return nil  // maybe a DOCTYPE or comment still arriving
      } else {
        return index
      }
    }
  }

  /// Index of the `>` that closes a DOCTYPE whose name starts at `from`: the first `>` outside
  /// the internal subset and quoted literals, the subset ending at the first `]` (then blanks and
  /// `>`) outside its comments, processing instructions and quoted literals (`"…]>…"` in a
  /// default value, `<!-- ]> -->` in a comment, as xmllint accepts them). The broken iOS 16.0 DTD
  /// (a declaration without its `>`, a stray `>`) still ends there.
  private static func doctypeEnd(_ bytes: [UInt8], from: Int) -> Int? {
    var index = from
    var inSubset = false
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "'"):
        guard let close = bytes[(index + 1)...].firstIndex(of: byte) else { return nil }
        index = close + 1
      case UInt8(ascii: ">") where !inSubset: return index
      case UInt8(ascii: "[") where !inSubset:
        inSubset = true
        index += 1
      case UInt8(ascii: "<") where inSubset && hasPrefix("<!--", bytes, at: index):
        guard let end = find([0x2D, 0x2D, 0x3E], in: bytes, from: index + 4) else { return nil }
        index = end + 3
      case UInt8(ascii: "<") where inSubset && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "?"):
        guard let end = find([0x3F, 0x3E], in: bytes, from: index + 2) else { return nil }
        index = end + 2
      case UInt8(ascii: "<") where inSubset && index + 4 > bytes.count:
        return nil  // maybe a comment still arriving
      case UInt8(ascii: "]") where inSubset:
        var after = index + 1
        while after < bytes.count, isBlank(bytes[after]) { after += 1 }
        if after >= bytes.count { return nil }
        if bytes[after] == UInt8(ascii: ">") { return after }
        index += 1
      default: index += 1
      }
    }
    return nil
  }

  private static func isBlank(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
  }

  private static func hasPrefix(_ prefix: StaticString, _ bytes: [UInt8], at index: Int) -> Bool {
    let count = prefix.utf8CodeUnitCount
    guard index + count <= bytes.count else { return false }
    let start = prefix.utf8Start
    for offset in 0..<count where bytes[index + offset] != start[offset] { return false }
    return true
  }

  private static func find(_ needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
    guard bytes.count >= needle.count, from <= bytes.count - needle.count else { return nil }
    var index = from
    while index <= bytes.count - needle.count {
      if bytes[index] == needle[0], Array(bytes[index..<(index + needle.count)]) == needle { return index }
      index += 1
    }
    return nil
  }
}
