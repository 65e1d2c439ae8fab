/// Reads an ECG recording's CSV as a stream: the block of `key,value` header
/// lines (values with commas double-quoted: `"Jan 8, 2002"`, `"Watch7,12"`), then one voltage per
/// line. The decimal separator is the file's own, never the machine's locale: `-265,868` is read
/// when the samples use `,`; a file whose samples mix `.` and `,` is refused. Samples go to
/// `onSamples` in batches of ``SideFileEvent/batchSize``, with `.` as the separator.
struct ECGReader {
  let options: ReadOptions

  /// Reads `source`. `onBegin` gets the recording (its header, and the separator once the first
  /// batch shows it) before the first batch; returns the number of samples.
  @discardableResult
  func read(
    _ source: ByteSource, recording: ECGRecording, onBegin: (ECGRecording) throws -> Void,
    onSamples: ([String]) throws -> Void
  ) throws -> Int {
    var verbatim = false
    return try read(source, recording: recording, verbatim: &verbatim, onBegin: onBegin, onSamples: onSamples)
  }

  /// The same, telling in `verbatim` whether ``ECGLayout`` gives the file back byte for byte
  /// (its header block as read, then every sample on a line of its own with the file's separator).
  func read(
    _ source: ByteSource, recording: ECGRecording, verbatim: inout Bool, onBegin: (ECGRecording) throws -> Void,
    onSamples: ([String]) throws -> Void
  ) throws -> Int {
    var state = ECGLineState(recording: recording)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    defer { buffer.deallocate() }
    var line: [UInt8] = []
    func deliver() throws {
      if !state.begun {
        state.begun = true
        try onBegin(state.recording)
      }
      if !state.batch.isEmpty { try onSamples(state.batch) }
      state.batch.removeAll(keepingCapacity: true)
    }
    while true {
      let count = try source.read(into: buffer)
      if count == 0 { break }
      var start = 0
      for index in 0..<count where buffer[index] == 0x0A {
        try checkLength(line.count + index - start, state.lineNumber + 1, recording)
        line.append(contentsOf: buffer[start..<index])
        try state.take(line)
        line.removeAll(keepingCapacity: true)
        start = index + 1
        if state.batch.count == SideFileEvent.batchSize { try deliver() }
      }
      try checkLength(line.count + count - start, state.lineNumber + 1, recording)
      line.append(contentsOf: buffer[start..<count])
    }
    if !line.isEmpty {
      try state.take(line)
      state.verbatim = false
    }
    try state.requireHeader()
    try deliver()
    verbatim = state.verbatim
    return state.samples
  }

  /// The longest line read, in bytes (docs/errors.md).
  static let maximumLineBytes = 16 << 20

  /// Checked before the bytes are kept: a line over the cap is never held.
  @inline(__always)
  private func checkLength(_ length: Int, _ lineNumber: Int, _ recording: ECGRecording) throws {
    guard length > Self.maximumLineBytes else { return }
    throw HealthPortError.malformed(
      recording.displayName, line: lineNumber, column: 1,
      "a line over \(Self.maximumLineBytes >> 20) MiB (healthport's limit)")
  }

  /// Recognised by its first line, `Name` (alone, or `Name,…`), and a `Recorded Date,` or
  /// `Sample Rate,` line among the first ones.
  static func recognise(_ head: InputHead) -> InputHead.Recognition {
    let bytes = head.bytes[head.textStart...]
    guard let newline = bytes.firstIndex(of: 0x0A) else {
      return bytes.count < 4 || "Name".utf8.starts(with: bytes) ? head.undecided : .no
    }
    var first = bytes[bytes.startIndex..<newline]
    if first.last == 0x0D { first = first.dropLast() }
    guard first.elementsEqual("Name".utf8) || first.starts(with: "Name,".utf8) else { return .no }
    let text = String(decoding: bytes.prefix(4096), as: UTF8.self)
    if text.contains("\nRecorded Date,") || text.contains("\nSample Rate,") { return .yes }
    return bytes.count >= 4096 ? .no : head.undecided
  }
}

/// A file in an `electrocardiograms/` folder that does not begin with an ECG header (a block of
/// `key,value` lines before the samples): not a recording. Thrown before any of it is handed on;
/// the reader leaves the file out with a warning (a bundle written back copies it as it is).
struct NotAnECG: Error {
  /// Where it was read.
  let displayName: String
}

/// The line-by-line state of an ECG file.
private struct ECGLineState {
  var recording: ECGRecording
  var begun = false
  var inSamples = false
  var lineNumber = 0
  var samples = 0
  var batch: [String] = []
  /// The separator seen on a sample line so far, and the first line that showed it.
  var separator: UInt8?
  var separatorLine = 0
  /// False once a line would not come back from ``ECGLayout`` as it was read.
  var verbatim = true
  /// Header lines of the `key,value` form (Apple's files have eight or more; the first, `Name`,
  /// may have no comma).
  var keyValueLines = 0

  init(recording: ECGRecording) {
    self.recording = recording
    batch.reserveCapacity(SideFileEvent.batchSize)
  }

  mutating func take(_ raw: [UInt8]) throws {
    lineNumber += 1
    var line = raw[...]
    if lineNumber == 1, line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
    if line.last == 0x0D { line = line.dropLast() }
    guard !line.isEmpty else {
      if inSamples { verbatim = false } else { recording.headerBytes += raw + [0x0A] }
      return
    }
    guard String(validatingUTF8: line) != nil else {
      // Bytes that are not text before any header line: not an ECG at all.
      if !inSamples, keyValueLines == 0 { throw NotAnECG(displayName: recording.displayName) }
      throw located("the line is not valid UTF-8")
    }
    if let sample = try sampleText(line) {
      if !inSamples { try requireHeader() }
      // A run of digits too long for a Double would be stored as infinity.
      guard Double(sample)?.isFinite == true else {
        throw located("the sample has \(sample.utf8.count) characters: it is too large to be a voltage")
      }
      inSamples = true
      samples += 1
      if verbatim, !ECGLayout.line(sample, separator: separator ?? 0x2E).elementsEqual(raw) { verbatim = false }
      batch.append(sample)
      return
    }
    if !inSamples { recording.headerBytes += raw + [0x0A] }
    guard !inSamples else {
      throw located("'\(String(decoding: line, as: UTF8.self))' is not a sample value (a number)")
    }
    recording.header.append(try headerLine(line))
    if line.contains(0x2C) { keyValueLines += 1 }
  }

  /// Throws ``NotAnECG`` unless the lines read so far began with a header: a file whose first
  /// line is a sample, or whose lines hold no `key,value` pair, is not a recording.
  func requireHeader() throws {
    if keyValueLines == 0 { throw NotAnECG(displayName: recording.displayName) }
  }

  /// The sample on `line` with `.` as its separator, nil when the line is not a number.
  private mutating func sampleText(_ line: ArraySlice<UInt8>) throws -> String? {
    var body = line
    if body.count >= 2, body.first == 0x22, body.last == 0x22 { body = body.dropFirst().dropLast() }
    var index = body.startIndex
    if index < body.endIndex, body[index] == UInt8(ascii: "-") || body[index] == UInt8(ascii: "+") { index += 1 }
    var digits = 0
    var mark: UInt8?
    while index < body.endIndex {
      let byte = body[index]
      if byte >= 0x30 && byte <= 0x39 {
        digits += 1
      } else if (byte == 0x2E || byte == 0x2C), mark == nil, digits > 0, index + 1 < body.endIndex {
        mark = byte
      } else {
        return nil
      }
      index += 1
    }
    guard digits > 0 else { return nil }
    guard let mark else { return String(decoding: body, as: UTF8.self) }
    if let separator, separator != mark {
      throw located(
        "the sample '\(String(decoding: body, as: UTF8.self))' uses '\(Character(UnicodeScalar(mark)))' as its "
          + "decimal separator, but line \(separatorLine) used '\(Character(UnicodeScalar(separator)))'")
    }
    if separator == nil {
      separator = mark
      separatorLine = lineNumber
      recording.decimalSeparator = mark
    }
    return String(decoding: body.map { $0 == 0x2C ? 0x2E : $0 }, as: UTF8.self)
  }

  /// `key,value`, the value unquoted when it is quoted (`"Jan 8, 2002"`; `""` inside is `"`).
  private func headerLine(_ line: ArraySlice<UInt8>) throws -> (key: String, value: String) {
    guard let comma = line.firstIndex(of: 0x2C) else { return (String(decoding: line, as: UTF8.self), "") }
    let key = String(decoding: line[..<comma], as: UTF8.self)
    let rest = line[(comma + 1)...]
    guard rest.first == 0x22 else { return (key, String(decoding: rest, as: UTF8.self)) }
    var value: [UInt8] = []
    var index = rest.startIndex + 1
    while index < rest.endIndex {
      if rest[index] == 0x22 {
        if index + 1 < rest.endIndex, rest[index + 1] == 0x22 {
          value.append(0x22)
          index += 2
          continue
        }
        guard index + 1 == rest.endIndex else { throw located("text after the closing quote of '\(key)'") }
        return (key, String(decoding: value, as: UTF8.self))
      }
      value.append(rest[index])
      index += 1
    }
    throw located("the quoted value of '\(key)' is not closed on its line")
  }

  private func located(_ message: String) -> HealthPortError {
    HealthPortError.malformed(recording.displayName, line: lineNumber, column: 1, message)
  }
}

extension String {
  /// The bytes as a String when they are valid UTF-8, else nil.
  fileprivate init?(validatingUTF8 bytes: ArraySlice<UInt8>) {
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue: continue
      case .emptyInput:
        self = ""
        return
      case .error: return nil
      }
    }
  }
}
