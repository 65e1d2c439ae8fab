/// What kind of document a byte stream holds, told apart by content.
///
/// A zip is recognised by its signature before this (``InputOpener``); a file given by its path
/// may also be a CSV table by its name (``CSVInput/detect(path:)``). A stream (stdin) has only
/// its first bytes, read once here: `<` is XML, `{` healthport's JSON Lines or JSON, and a first
/// line that is a CSV header naming a type or start-date column a CSV table.
enum InputKind: Equatable {
  /// Apple's export XML (or anything else: the XML parser names the problem).
  case xml
  /// healthport's JSON Lines or JSON document (starts with `{`).
  case json
  /// A CSV table: healthport's single table or CSV from another tool.
  case csv

  /// Looks at the first byte that is not white space (a UTF-8 byte order mark is skipped) and,
  /// when it starts neither XML nor JSON, at the first line.
  static func sniff(_ head: [UInt8]) -> InputKind {
    var index = 0
    if head.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    while index < head.count, [0x20, 0x0A, 0x0D, 0x09].contains(head[index]) { index += 1 }
    guard index < head.count else { return .xml }
    switch head[index] {
    case UInt8(ascii: "{"): return .json
    case UInt8(ascii: "<"): return .xml
    default:
      var line = head[index...]
      if let end = line.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) { line = line[..<end] }
      return CSVInput.isTableHeader(line) ? .csv : .xml
    }
  }

  /// Reads from `source` until the first non-blank byte and, unless it is `<` or `{`, to the end
  /// of the first line (at most 4 MiB, or the end), and returns the kind and a source that
  /// serves those bytes again.
  static func sniff(_ source: ByteSource) throws -> (InputKind, ByteSource) {
    var head: [UInt8] = []
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    defer { buffer.deallocate() }
    while head.count < 4 << 20 {
      let count = try source.read(into: buffer)
      if count == 0 { break }
      head.append(contentsOf: buffer[0..<count])
      if isEnough(head) { break }
    }
    return (sniff(head), PrefixedByteSource(prefix: head, base: source))
  }

  /// True when `head` decides: its first non-blank byte is `<` or `{`, or a line has ended.
  private static func isEnough(_ head: [UInt8]) -> Bool {
    var index = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    while index < head.count, [0x20, 0x0A, 0x0D, 0x09].contains(head[index]) { index += 1 }
    guard index < head.count else { return false }
    if head[index] == UInt8(ascii: "<") || head[index] == UInt8(ascii: "{") { return true }
    return head[index...].contains(where: { $0 == 0x0A || $0 == 0x0D })
  }
}

/// Serves bytes that were read ahead, then the rest of the underlying source.
final class PrefixedByteSource: ByteSource {
  private var prefix: [UInt8]
  private var prefixOffset = 0
  private let base: ByteSource

  init(prefix: [UInt8], base: ByteSource) {
    self.prefix = prefix
    self.base = base
  }

  var displayName: String { base.displayName }
  var totalBytes: Int64? { base.totalBytes }
  var bytesConsumed: Int64 { base.bytesConsumed }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    if prefixOffset < prefix.count {
      let count = min(prefix.count - prefixOffset, buffer.count)
      prefix.withUnsafeBytes {
        buffer.baseAddress!.copyMemory(from: $0.baseAddress! + prefixOffset, byteCount: count)
      }
      prefixOffset += count
      if prefixOffset == prefix.count { prefix = [] }
      return count
    }
    return try base.read(into: buffer)
  }
}
