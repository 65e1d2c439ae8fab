import XMLStream

/// `--skip-invalid` for damage that stops libxml2 (truncation, mismatched tags, binary garbage,
/// invalid UTF-8): the element in progress is dropped, the input is searched for the next
/// top-level element, and a new parser continues there, so that everything outside the damage
/// is still read.
///
/// The next top-level element is found by layout: a line feed, the indentation the file uses
/// for top-level elements (learnt from the line after `<HealthData …>`; one space in the Health
/// app's layout), then `<` and a capital letter — or `</HealthData` at the start of a line.
/// The restarted parser is given a `<HealthData>` start tag of its own, which the builder does
/// not report, and a line offset so that its messages name the file's lines.
final class DamageRecovery {
  private(set) var parser: XMLPushParser
  private let builder: ElementBuilder
  private let documentName: String
  private var searching = false
  /// Bytes still to search, kept across chunks, and the line of their first byte.
  private var carry: [UInt8] = []
  private var carryFirstLine = 1
  /// Line feeds in all the bytes fed so far.
  private var linesFed = 0
  private var indent: [UInt8]?
  private var head: [UInt8] = []
  private(set) var removedControlCharacters = 0
  private(set) var firstControlCharacterOffset: Int?

  init(parser: XMLPushParser, builder: ElementBuilder) {
    self.parser = parser
    self.builder = builder
    documentName = parser.documentName
  }

  func feed(_ chunk: UnsafeRawBufferPointer, skip: (String) -> Void) throws {
    learnIndent(chunk)
    let firstLine = linesFed + 1
    linesFed += Self.lineFeeds(chunk)
    if searching {
      let line = carry.isEmpty ? firstLine : carryFirstLine
      carry.append(contentsOf: chunk)
      let bytes = carry
      carry = []
      try bytes.withUnsafeBytes { try process($0, firstLine: line, skip: skip) }
    } else {
      try process(chunk, firstLine: firstLine, skip: skip)
    }
  }

  func finish(skip: (String) -> Void) throws {
    totalUp(parser)
    if searching { return }  // the damaged part runs to the end of the input
    do {
      try parser.finish()
    } catch let error as XMLStreamError where error.underlying == nil && builder.hasRoot {
      skip(Self.describe(error))
    }
  }

  /// Feeds `bytes` (whose first byte is on `firstLine`), recovering from damage as often as needed.
  private func process(_ bytes: UnsafeRawBufferPointer, firstLine: Int, skip: (String) -> Void) throws {
    var start = 0
    var line = firstLine
    while true {
      if searching {
        guard let (offset, offsetLine) = findNextElement(bytes, from: start, line: line) else {
          // Keep a tail that may hold the beginning of a match.
          let keep = min(bytes.count - start, (indent?.count ?? 1) + 16)
          let kept = bytes.count - keep
          carryFirstLine = line + Self.lineFeeds(UnsafeRawBufferPointer(rebasing: bytes[start..<kept]))
          carry = Array(bytes[kept...])
          return
        }
        restart(atLine: offsetLine)
        start = offset
        line = offsetLine
        searching = false
      }
      do {
        try parser.feed(UnsafeRawBufferPointer(rebasing: bytes[start...]))
        return
      } catch let error as XMLStreamError where error.underlying == nil && builder.hasRoot {
        skip(Self.describe(error))
        searching = true
        // Search from the start of the line where libxml2 stopped (or from here, if earlier).
        while line < error.line, start < bytes.count {
          guard let feed = bytes[start...].firstIndex(of: 0x0A) else {
            start = bytes.count
            break
          }
          start = feed + 1
          line += 1
        }
      }
    }
  }

  /// The offset of the line feed before the next top-level element, and that line feed's line.
  private func findNextElement(_ bytes: UnsafeRawBufferPointer, from: Int, line: Int) -> (Int, Int)? {
    let indent = self.indent ?? [0x20]
    var index = from
    var currentLine = line
    while index < bytes.count {
      guard let feed = bytes[index...].firstIndex(of: 0x0A) else { return nil }
      currentLine += Self.lineFeeds(UnsafeRawBufferPointer(rebasing: bytes[index..<feed]))
      let after = feed + 1
      if after + indent.count + 1 < bytes.count {
        if bytes[after..<(after + indent.count)].elementsEqual(indent),
          bytes[after + indent.count] == UInt8(ascii: "<"),
          (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[after + indent.count + 1])
        {
          return (feed, currentLine)
        }
        if bytes[after] == UInt8(ascii: "<"), bytes[after + 1] == UInt8(ascii: "/") { return (feed, currentLine) }
      } else if after < bytes.count {
        return nil  // too close to the end to tell: the caller keeps the tail
      }
      index = after
      currentLine += 1
    }
    return nil
  }

  /// A new parser that continues at the line feed on `line`.
  private func restart(atLine line: Int) {
    totalUp(parser)
    builder.resumeAfterDamage()
    let fresh = XMLPushParser(
      documentName: documentName, handler: XMLElementFeed(builder), concurrent: parser.isConcurrent)
    // The restarted parser's line 1 is its own `<HealthData>`; its line 2 is the file's line + 1.
    fresh.lineOffset = line - 1
    let root = Array("<HealthData>".utf8)
    try? root.withUnsafeBytes { try fresh.feed($0) }
    parser = fresh
  }

  private func totalUp(_ old: XMLPushParser) {
    if firstControlCharacterOffset == nil { firstControlCharacterOffset = old.firstControlCharacterOffset }
    removedControlCharacters += old.removedControlCharacters
  }

  /// Learns the top-level indentation from the line after the root's start tag.
  private func learnIndent(_ chunk: UnsafeRawBufferPointer) {
    guard indent == nil, head.count < 8 << 20 else { return }
    head.append(contentsOf: chunk.prefix(1 << 20))
    let root = Array("<HealthData".utf8)
    guard let rootAt = head.firstRange(of: root),
      let close = head[rootAt.upperBound...].firstIndex(of: UInt8(ascii: ">")),
      let feed = head[close...].firstIndex(of: 0x0A)
    else { return }
    var end = feed + 1
    while end < head.count, head[end] == 0x20 || head[end] == 0x09 { end += 1 }
    guard end < head.count else { return }
    indent = Array(head[(feed + 1)..<end])
    head = []
  }

  static func lineFeeds(_ bytes: UnsafeRawBufferPointer) -> Int {
    var count = 0
    for byte in bytes where byte == 0x0A { count += 1 }
    return count
  }

  static func describe(_ error: XMLStreamError) -> String {
    "\(error.documentName):\(error.line):\(error.column): error: \(error.message); skipped the damaged element"
  }
}
