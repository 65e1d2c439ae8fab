#if canImport(Glibc)
  import Glibc
#endif

/// The first bytes of a stream, read once so that each input format can recognise itself.
struct InputHead: Sendable {
  enum Recognition: Sendable { case yes, no, needMore }

  /// The bytes read so far, from the stream's first.
  var bytes: [UInt8] = []
  /// True when no more bytes will come: the stream ended, or the head reached its limit.
  var isComplete = false
  /// The path of a regular file given by path; nil for stdin, a pipe or bytes in memory. Only
  /// the CSV rule for a file named `*.csv` looks at it.
  var fileName: String?

  /// `.needMore`, or `.no` once no more bytes will come.
  var undecided: Recognition { isComplete ? .no : .needMore }

  /// Where the text starts: after a UTF-8 byte order mark, if any.
  var textStart: Int { bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0 }

  /// The index of the first byte after the byte order mark that is not a space, tab or line break.
  var firstNonBlankIndex: Int? {
    var index = textStart
    while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    return index < bytes.count ? index : nil
  }

  var firstNonBlankByte: UInt8? { firstNonBlankIndex.map { bytes[$0] } }
}

/// A stream whose format was recognised.
struct RecognisedStream {
  let head: InputHead
  /// The stream from its first byte: the head served again, then the rest.
  let source: ByteSource
  /// The path it was opened from; nil for stdin or bytes in memory.
  let path: String?
  /// The descriptor it is read from when it has no path (stdin), for a zip read as a stream.
  let fileDescriptor: Int32?
  /// The input's size when known (for progress).
  let size: Int64?
}

/// An input, opened and recognised once.
enum RecognisedInput {
  case stream(StreamInputFormat, RecognisedStream)
  /// A folder, opened: its reader.
  case folder(FolderInputFormat, FolderInputFormat.Read)

  func read(options: ReadOptions, into sink: ExportSink) throws -> ReadReport {
    switch self {
    case .stream(let format, let stream): return try format.read(stream, options, sink)
    case .folder(_, let read): return try read(options, sink)
    }
  }
}

/// Recognises every input in one place, by content, through the formats of
/// ``FormatRegistry/standard``: a path (a folder by its content; a file is a stream) or a
/// stream's first bytes, the same for a file, stdin and bytes in memory.
enum InputRecognizer {
  /// At most this much is read to recognise a stream.
  static let headLimit = 4 << 20

  /// Opens `path` (nil or `-`: stdin) and recognises it.
  static func open(_ path: String?) throws -> RecognisedInput {
    guard let path, path != "-" else {
      let stdin = FileByteSource(
        fileDescriptor: 0, ownsDescriptor: false, prefix: [], displayName: "<stdin>", totalBytes: nil)
      let (format, stream) = try recognise(stdin, path: nil, fileDescriptor: 0, fileName: nil)
      return .stream(format, stream)
    }
    var info = stat()
    guard stat(path, &info) == 0 else { throw cannotOpen(path) }
    if (info.st_mode & S_IFMT) == S_IFDIR {
      let format = folderFormat(of: path)
      return .folder(format, try format.open(path))
    }
    let fileDescriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
    guard fileDescriptor >= 0 else { throw cannotOpen(path) }
    let file = FileByteSource(
      fileDescriptor: fileDescriptor, ownsDescriptor: true, prefix: [], displayName: path,
      totalBytes: Int64(info.st_size))
    let isRegular = (info.st_mode & S_IFMT) == S_IFREG
    // A pipe or device given by path (`<(cat export.zip)`) cannot be reopened or seeked: it is read
    // as a stream, like stdin.
    let (format, stream) = try recognise(
      file, path: isRegular ? path : nil, fileDescriptor: isRegular ? nil : fileDescriptor,
      fileName: isRegular ? path : nil)
    return .stream(format, stream)
  }

  /// Recognises bytes held in memory (any format but a container).
  static func recognise(bytes: [UInt8], name: String) throws -> RecognisedInput {
    let (format, stream) = try recognise(
      MemoryByteSource(bytes: bytes, name: name), path: nil, fileDescriptor: nil, fileName: nil,
      formats: FormatRegistry.standard.streamInputs.filter { !$0.isContainer })
    return .stream(format, stream)
  }

  /// What the input at `path` is, from its content, without reading past its head; nil when it
  /// cannot be opened. A folder is `.csvSplit` or `.folder` (whether it holds an export or not).
  static func format(ofPath path: String) -> InputFormat? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    if (info.st_mode & S_IFMT) == S_IFDIR { return folderFormat(of: path).format }
    guard case .stream(let format, _)? = try? open(path) else { return nil }
    return format.format
  }

  /// The first folder format that recognises the folder at `path`; the last takes any folder.
  static func folderFormat(of path: String) -> FolderInputFormat {
    let formats = FormatRegistry.standard.folderInputs
    return formats.first { $0.recognise(path) } ?? formats[formats.count - 1]
  }

  /// Reads `source`'s head until one of `formats` recognises it (or none can), and returns that
  /// format with the stream from its first byte.
  static func recognise(
    _ source: ByteSource, path: String?, fileDescriptor: Int32?, fileName: String?,
    formats: [StreamInputFormat] = FormatRegistry.standard.streamInputs
  ) throws -> (StreamInputFormat, RecognisedStream) {
    var head = InputHead(fileName: fileName)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    defer { buffer.deallocate() }
    var found: StreamInputFormat?
    asking: while true {
      for format in formats {
        switch format.recognise(head) {
        case .yes:
          found = format
          break asking
        case .needMore where !head.isComplete:
          let count = try source.read(into: buffer)
          head.bytes.append(contentsOf: buffer[0..<count])
          head.isComplete = count == 0 || head.bytes.count >= headLimit
          continue asking
        case .no, .needMore: continue
        }
      }
      break
    }
    let stream = RecognisedStream(
      head: head, source: PrefixedByteSource(prefix: head.bytes, base: source), path: path,
      fileDescriptor: fileDescriptor, size: source.totalBytes)
    return (found ?? FormatRegistry.standard.streamInputs[FormatRegistry.standard.streamInputs.count - 1], stream)
  }

  static func cannotOpen(_ path: String) -> HealthPortError {
    HealthPortError(.failure, file: path, message: "cannot open: \(String(cString: strerror(errno)))")
  }
}
