#if canImport(Glibc)
  import Glibc
#endif

/// Reads RFC 4180 rows from a file or another byte source (stdin), lazily, one at a time: fields separated by a delimiter,
/// optionally quoted (`""` inside quotes is a quote; quoted fields may hold delimiters and line
/// breaks), rows ended by LF or CRLF. A UTF-8 BOM at the start is skipped; blank lines are
/// skipped. Each field remembers whether it was quoted, so that `,,` (absent) and `,"",`
/// (present, empty) can be told apart. With ``backslashEscapes`` (tdda/applehealthdata's dialect),
/// `\"` and `\\` inside a quoted field are also a quote and a backslash.
///
/// Errors are located as `path:LINE:FIELD`: the line where the row starts (1-based, counting
/// line breaks inside quoted fields) and the field number in the row (1-based).
final class CSVRowReader {
  let path: String
  var delimiter = UInt8(ascii: ",")
  /// Inside a quoted field, a backslash before a quote or a backslash stands for that byte (any
  /// other backslash is itself); `""` is still a quote. Off: RFC 4180 only.
  var backslashEscapes = false
  /// The line on which the current row starts.
  private(set) var line = 0
  /// The unescaped bytes of the current row's fields, one after another, in a buffer the reader
  /// owns: they stay where they are, unchanged, until the next row is read (so a cell may be
  /// borrowed until then, ``OwnedAttributes/appendBorrowed(_:value:)``). It grows as rows need;
  /// after a row over ``longestKeptRow`` it goes back to its first size.
  private var row: UnsafeMutableRawBufferPointer
  private(set) var ends: [Int] = []
  private(set) var quoted: [Bool] = []

  private let source: ByteSource
  private let chunk: UnsafeMutableRawBufferPointer
  private var position = 0
  private var limit = 0
  private var atEnd = false
  private var nextLine = 1
  private var skipLineFeed = false
  private(set) var bytesRead: Int64 = 0

  convenience init(path: String, bufferSize: Int = 64 << 10) throws {
    let fileDescriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard fileDescriptor >= 0 else {
      throw HealthPortError(.failure, file: path, message: "cannot open: \(String(cString: strerror(errno)))")
    }
    let source = FileByteSource(
      fileDescriptor: fileDescriptor, ownsDescriptor: true, prefix: [], displayName: path, totalBytes: nil)
    try self.init(source: source, bufferSize: bufferSize)
  }

  /// Reads `source` (named in messages by its display name).
  init(source: ByteSource, bufferSize: Int = 64 << 10) throws {
    self.source = source
    path = source.displayName
    chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
    row = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.firstRowCapacity, alignment: 16)
    try fill()
    if limit - position >= 3, chunk[0] == 0xEF, chunk[1] == 0xBB, chunk[2] == 0xBF { position = 3 }
  }

  deinit {
    chunk.deallocate()
    row.deallocate()
  }

  var fieldCount: Int { ends.count }

  /// The longest field read (unescaped bytes): longer is an error at its row and field, so that
  /// time and memory stay bounded on any input.
  static let maximumFieldBytes = 16 << 20
  private let maximumFieldBytes = CSVRowReader.maximumFieldBytes

  private func fieldTooLarge(column: Int) -> HealthPortError {
    error(column: column, "a field over \(Self.maximumFieldBytes >> 20) MiB (healthport's limit)")
  }

  /// The bytes of the first line as read so far (for delimiter detection), without the BOM.
  var firstLinePreview: ArraySlice<UInt8> {
    let buffer = UnsafeRawBufferPointer(rebasing: chunk[position..<limit])
    var end = 0
    while end < buffer.count, buffer[end] != 0x0A, buffer[end] != 0x0D { end += 1 }
    return Array(buffer[0..<end])[...]
  }

  /// True when the file holds nothing but white space (after a BOM).
  var isBlank: Bool {
    guard atEnd else { return false }
    return chunk[position..<limit].allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
  }

  private func fill() throws {
    if position < limit {
      let remaining = limit - position
      chunk.baseAddress!.copyMemory(from: chunk.baseAddress! + position, byteCount: remaining)
      limit = remaining
    } else {
      limit = 0
    }
    position = 0
    while limit < chunk.count {
      let n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: chunk[limit...]))
      if n == 0 {
        atEnd = true
        break
      }
      limit += n
      bytesRead += Int64(n)
    }
  }

  func error(column: Int, _ message: String) -> HealthPortError {
    HealthPortError.malformed(path, line: line, column: column, message)
  }

  func error(column: Int, _ reason: HealthPortError.Reason) -> HealthPortError {
    HealthPortError(reason, file: path, line: line, column: column)
  }

  /// The most row buffer kept from one row to the next, and the row buffer's first size.
  private static let longestKeptRow = 1 << 20
  private static let firstRowCapacity = 1024

  /// The row buffer while ``next()`` fills it: a local value, so that an append pays no
  /// exclusivity check (a property of the reader, or a local captured by a local function, pays
  /// one per append in a debug build).
  private struct RowWriter {
    private(set) var buffer: UnsafeMutableRawBufferPointer
    private var base: UnsafeMutablePointer<UInt8>
    var count = 0

    init(_ buffer: UnsafeMutableRawBufferPointer) {
      self.buffer = buffer
      base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
      if count == buffer.count { grow(1) }
      base[count] = byte
      count += 1
    }

    @inline(__always)
    mutating func append(_ from: UnsafePointer<UInt8>, count extra: Int) {
      if count + extra > buffer.count { grow(extra) }
      (base + count).update(from: from, count: extra)
      count += extra
    }

    /// A buffer at least twice as large for `extra` more bytes: the row copied, the old one
    /// freed (no cell of the row being read is borrowed yet).
    @inline(never)
    private mutating func grow(_ extra: Int) {
      var capacity = max(buffer.count * 2, CSVRowReader.firstRowCapacity)
      while capacity < count + extra { capacity *= 2 }
      let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
      if count > 0 { grown.baseAddress!.copyMemory(from: base, byteCount: count) }
      buffer.deallocate()
      buffer = grown
      base = grown.baseAddress!.assumingMemoryBound(to: UInt8.self)
    }
  }

  private enum State { case fieldStart, unquoted, quoted, quoteSeen, escapeSeen }

  /// Reads the next row; false at the end of the file.
  ///
  /// The state lives in locals while bytes are scanned (class properties would pay for an
  /// exclusivity check on every byte) and is stored back before refills and on return.
  func next() throws -> Bool {
    // A long row's buffer is not kept for the rows after it.
    if self.row.count > Self.longestKeptRow {
      self.row.deallocate()
      self.row = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.firstRowCapacity, alignment: 16)
    }
    var row = RowWriter(self.row)
    var ends = self.ends
    var quoted = self.quoted
    self.ends = []
    self.quoted = []
    defer {
      self.row = row.buffer
      self.ends = ends
      self.quoted = quoted
    }
    let delimiter = self.delimiter
    let quote = CSVEncoding.quote
    // The byte that starts an escape inside quotes: the quote itself when there are no backslash
    // escapes, so that the scan of a quoted run tests the same byte twice and nothing else.
    let escape = backslashEscapes ? UInt8(ascii: "\\") : quote
    var position = self.position
    var limit = self.limit
    var nextLine = self.nextLine
    var skipLineFeed = self.skipLineFeed
    defer {
      self.position = position
      self.nextLine = nextLine
      self.skipLineFeed = skipLineFeed
    }
    while true {
      row.count = 0
      ends.removeAll(keepingCapacity: true)
      quoted.removeAll(keepingCapacity: true)
      var state = State.fieldStart
      var fieldQuoted = false
      line = nextLine
      var done = false
      while !done {
        if position == limit {
          if atEnd { break }
          self.position = position
          try fill()
          position = self.position
          limit = self.limit
          continue
        }
        let base = chunk.baseAddress!.assumingMemoryBound(to: UInt8.self)
        if skipLineFeed {
          skipLineFeed = false
          if base[position] == 0x0A {
            position += 1
            nextLine += 1
            line = nextLine
            continue
          }
        }
        // Scan the rest of the chunk without leaving the loop.
        while position < limit {
          let byte = base[position]
          position += 1
          switch state {
          case .fieldStart, .unquoted:
            if byte == delimiter {
              ends.append(row.count)
              quoted.append(fieldQuoted)
              fieldQuoted = false
              state = .fieldStart
            } else if byte == 0x0A || byte == 0x0D {
              if byte == 0x0A { nextLine += 1 } else { skipLineFeed = true }
              ends.append(row.count)
              quoted.append(fieldQuoted)
              done = true
            } else if byte == quote, state == .fieldStart {
              fieldQuoted = true
              state = .quoted
            } else {
              // Copy the run up to the next special byte at once.
              var end = position
              while end < limit {
                let next = base[end]
                if next == delimiter || next == 0x0A || next == 0x0D { break }
                end += 1
              }
              row.append(byte)
              if end > position { row.append(base + position, count: end - position) }
              position = end
              state = .unquoted
              if row.count - (ends.last ?? 0) > maximumFieldBytes {
                self.nextLine = nextLine
                throw fieldTooLarge(column: ends.count + 1)
              }
            }
          case .quoted:
            if byte == quote {
              state = .quoteSeen
            } else if byte == escape {
              state = .escapeSeen
            } else {
              var end = position
              while end < limit, base[end] != quote, base[end] != escape, base[end] != 0x0A { end += 1 }
              if byte == 0x0A { nextLine += 1 }
              row.append(byte)
              if end > position { row.append(base + position, count: end - position) }
              position = end
              if row.count - (ends.last ?? 0) > maximumFieldBytes {
                self.nextLine = nextLine
                throw fieldTooLarge(column: ends.count + 1)
              }
            }
          case .escapeSeen:
            if byte != quote && byte != escape {
              // Not an escape: the backslash is itself, and the byte is read as any in quotes.
              row.append(escape)
              position -= 1
            } else {
              row.append(byte)
            }
            state = .quoted
            if row.count - (ends.last ?? 0) > maximumFieldBytes {
              self.nextLine = nextLine
              throw fieldTooLarge(column: ends.count + 1)
            }
          case .quoteSeen:
            if byte == quote {
              row.append(byte)
              state = .quoted
              if row.count - (ends.last ?? 0) > maximumFieldBytes {
                self.nextLine = nextLine
                throw fieldTooLarge(column: ends.count + 1)
              }
            } else if byte == delimiter {
              ends.append(row.count)
              quoted.append(true)
              fieldQuoted = false
              state = .fieldStart
            } else if byte == 0x0A || byte == 0x0D {
              if byte == 0x0A { nextLine += 1 } else { skipLineFeed = true }
              ends.append(row.count)
              quoted.append(true)
              done = true
            } else {
              self.nextLine = nextLine
              throw error(
                column: ends.count + 1,
                "unexpected character after a closing quote (a quote inside a quoted field must be "
                  + (backslashEscapes ? "written \\\" or doubled)" : "doubled)"))
            }
          }
          if done { break }
        }
      }
      if !done {
        // End of file.
        if state == .quoted || state == .escapeSeen {
          throw error(
            column: ends.count + 1, "a quoted field that starts on this row is never closed (unbalanced quote)")
        }
        if state == .fieldStart && ends.isEmpty && !fieldQuoted { return false }
        ends.append(row.count)
        quoted.append(fieldQuoted || state == .quoteSeen)
      }
      // Skip blank lines.
      if ends.count == 1, ends[0] == 0, !quoted[0] { continue }
      return true
    }
  }

  @inline(__always)
  func start(_ index: Int) -> Int { index == 0 ? 0 : ends[index - 1] }

  /// True when field `index` is an empty unquoted field (an absent value).
  @inline(__always)
  func isAbsent(_ index: Int) -> Bool { start(index) == ends[index] && !quoted[index] }

  @inline(__always)
  func isEmpty(_ index: Int) -> Bool { start(index) == ends[index] }

  /// Field `index`'s bytes, where they stay until the next row is read.
  @inline(__always)
  private func field(_ index: Int) -> UnsafeBufferPointer<UInt8> {
    let start = start(index)
    let base = UnsafePointer(row.baseAddress!.assumingMemoryBound(to: UInt8.self))
    return UnsafeBufferPointer(start: base + start, count: ends[index] - start)
  }

  func string(_ index: Int) -> String { String(decoding: field(index), as: UTF8.self) }

  /// The field, or nil when it is absent (empty and unquoted).
  func optional(_ index: Int) -> String? { isAbsent(index) ? nil : string(index) }

  func fieldBytes(_ index: Int) -> [UInt8] { Array(field(index)) }

  /// Field `index`'s bytes for `body`; they stay valid, unchanged, until the next row is read.
  func withField<T>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
    try body(field(index))
  }

  /// Field `index` as a non-negative integer (ids).
  func integer(_ index: Int) -> Int? {
    guard !isEmpty(index) else { return nil }
    var value = 0
    for byte in field(index) {
      let digit = Int(byte) &- 48
      guard (0...9).contains(digit), value < Int.max / 10 - 10 else { return nil }
      value = value * 10 + digit
    }
    return value
  }
}
