import XMLStream

#if canImport(Glibc)
  import Glibc
#endif

/// Receives an export as it streams: the header, then each top-level element in document order.
///
/// Calls come one at a time, but with ``ReadOptions/concurrent`` (the default on machines with
/// more than one processor) they come from a thread of the reader's own, not the caller's;
/// ``ExportReader/read(into:)`` returns after the last one.
public protocol ExportSink: AnyObject {
  /// The top-level elements this sink needs built (see ``ElementInterest``).
  var interest: ElementInterest { get }
  func begin(_ header: ExportHeader) throws
  func consume(_ element: ExportElement) throws
  func end(_ report: ReadReport) throws
}

/// What a read saw besides the elements: sizes and the warnings for known quirks.
public struct ReadReport: Sendable {
  public var documentName: String
  public var format: InputFormat
  /// Bytes of the export document (uncompressed).
  public var documentBytes: Int64 = 0
  /// Control characters that XML forbids, removed before parsing (some exports hold `\u{0B}`).
  public var removedControlCharacters = 0
  public var firstControlCharacterOffset: Int?
  /// Elements in places healthport does not know (kept generically).
  public var unknownElements = 0
  /// Elements holding character data (kept, but Apple writes none).
  public var textNodes = 0
  /// True when the prolog's DTD was one that strict parsers reject (iOS 16.0).
  public var hasBrokenDTD = false
  /// Other notes for stderr (e.g. a CSV input with a header but no rows).
  public var notes: [String] = []
  /// With `--skip-invalid`: each damaged element passed over, as `path:line:col: error: …`.
  public var skipped: [String] = []
  /// Workouts whose metadata block is written twice (v13/v14 exports; both copies are kept).
  public var duplicatedWorkoutMetadata = 0
  /// Records without a `value` (not-applicable category samples of 2019–2023 exports).
  public var recordsWithoutValue = 0
  /// Attributes healthport does not know, kept on their elements.
  public var unknownAttributes = 0

  /// Human-readable warnings, one per kind, with counts.
  public var warnings: [String] {
    var result: [String] = []
    if removedControlCharacters > 0 {
      let at = firstControlCharacterOffset.map { " (first at byte \($0))" } ?? ""
      result.append("removed \(removedControlCharacters) control character(s) that XML does not allow\(at)")
    }
    if hasBrokenDTD { result.append("the DTD is the malformed one of iOS 16.0 exports; it was skipped as always") }
    if unknownElements > 0 { result.append("\(unknownElements) unknown element(s) kept as they are") }
    if unknownAttributes > 0 { result.append("\(unknownAttributes) unknown attribute(s) on Records kept as they are") }
    if duplicatedWorkoutMetadata > 0 {
      result.append(
        "\(duplicatedWorkoutMetadata) workout(s) with their metadata block written twice (an Apple quirk; both copies kept)"
      )
    }
    if recordsWithoutValue > 0 {
      result.append("\(recordsWithoutValue) record(s) without a value (not-applicable categories; kept without one)")
    }
    if textNodes > 0 { result.append("\(textNodes) text node(s) in elements (not written by the Health app)") }
    result.append(contentsOf: notes)
    if !skipped.isEmpty {
      result.append("skipped \(skipped.count) damaged element(s) (--skip-invalid); everything else was read")
    }
    return result
  }
}

/// Options for ``ExportReader``.
public struct ReadOptions: Sendable {
  /// Bytes read and parsed at a time.
  public var chunkSize = 1 << 20
  /// Called after each chunk with the input bytes consumed and the input's size when known.
  public var progress: (@Sendable (Int64, Int64?) -> Void)?
  /// CSV input: the type of every row of a file without a `type` column (`--type`).
  public var csvDefaultType: String?
  /// CSV input: the source name of rows without one (default: the file's base name).
  public var csvDefaultSourceName: String?
  /// Pass over damaged top-level elements (reported through `onSkip` and
  /// ``ReadReport/skipped``) instead of stopping at the first.
  public var skipInvalid = false
  /// Called with each skip as it happens (`path:line:col: error: …`).
  public var onSkip: (@Sendable (String) -> Void)?
  /// Build elements and run the sink on a second thread while libxml2 parses (XML inputs): the
  /// two then share the cores instead of taking turns. On by default when the machine has more
  /// than one processor; the environment variable `HEALTHPORT_THREADS` overrides that (`1`: one
  /// thread, `2`: two). The sink is still called from one thread at a time, in document order.
  public var concurrent = ReadOptions.concurrentByDefault

  static let concurrentByDefault: Bool = {
    if let threads = getenv("HEALTHPORT_THREADS"), let count = Int(String(cString: threads)), count > 0 {
      return count > 1
    }
    return sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1
  }()

  public init() {}
}

/// Reads an Apple Health export as a stream through libxml2's SAX2 push parser, handing each
/// top-level element to a sink as soon as its end tag is read. Memory stays flat whatever the
/// input size.
public final class ExportReader {
  public let path: String?
  public var options: ReadOptions

  /// `path` may name an `export.xml`, an `export.zip`, an unzipped export folder, a JSON Lines or
  /// JSON file written by healthport (``JSONLinesWriter``), or be nil or `-` for stdin. Zip, XML
  /// and JSON are told apart by their first bytes (``InputKind``), never by the file name.
  public init(path: String?, options: ReadOptions = ReadOptions()) {
    self.path = path
    self.options = options
    memory = nil
  }

  /// Reads an export (XML, or healthport's JSON Lines / JSON) held in memory; `name` is used in
  /// messages. For library users and the fuzz targets.
  public init(bytes: [UInt8], name: String, options: ReadOptions = ReadOptions()) {
    path = nil
    self.options = options
    memory = (bytes, name)
  }

  private let memory: (bytes: [UInt8], name: String)?

  /// Reads the whole export into `sink`; returns what was seen. Throws ``HealthPortError``.
  @discardableResult
  public func read(into sink: ExportSink) throws -> ReadReport {
    if let memory {
      let (kind, source) = try InputKind.sniff(MemoryByteSource(bytes: memory.bytes, name: memory.name))
      return try read(source, kind: kind, format: .xml, into: sink)
    }
    // CSV inputs (one table or a `--split` folder), told apart by content.
    if let path, path != "-", let kind = CSVInput.detect(path: path) {
      return try CSVExportReader(path: path, kind: kind, options: options).read(into: sink)
    }
    let (opened, format) = try InputOpener.open(path)
    // A plain file or stdin is told apart by its first bytes (stdin may be CSV too).
    guard format == .xml else { return try readXML(opened, format: format, into: sink) }
    let (kind, source) = try InputKind.sniff(opened)
    return try read(source, kind: kind, format: format, into: sink)
  }

  private func read(_ source: ByteSource, kind: InputKind, format: InputFormat, into sink: ExportSink) throws
    -> ReadReport
  {
    switch kind {
    case .xml: return try readXML(source, format: format, into: sink)
    case .json: return try JSONLinesReader(source: source, options: options).read(into: sink)
    case .csv: return try CSVRecordsReader(source: source, options: options).read(into: sink)
    }
  }

  private func readXML(_ source: ByteSource, format: InputFormat, into sink: ExportSink) throws -> ReadReport {
    let builder = ElementBuilder()
    builder.interest = sink.interest
    let parser = XMLPushParser(
      documentName: source.displayName, handler: XMLElementFeed(builder), concurrent: options.concurrent)
    var report = ReadReport(documentName: source.displayName, format: format)
    // Set from the builder's callbacks, which may run on the handler thread while this one
    // updates `report`: kept apart, and read after the parser has finished.
    var hasBrokenDTD = false
    var skipped: [String] = []
    builder.onRoot = { name, attributes in
      guard name == "HealthData" else {
        throw ExportDataError(
          message: "not an Apple Health export: the root element is <\(name)>, expected <HealthData>")
      }
      let prolog = parser.prologBytes
      hasBrokenDTD = ExportReader.isBrokenDTD(prolog)
      try sink.begin(ExportHeader(prolog: prolog, rootAttributes: attributes, rootName: name))
    }
    builder.onElement = { try sink.consume($0) }
    // The closures capture the parser, which holds the builder: break the cycle so that the
    // parser and the sink are released, also when the read fails.
    defer {
      builder.onRoot = { _, _ in }
      builder.onElement = { _ in }
    }

    let recovery = options.skipInvalid ? DamageRecovery(parser: parser, builder: builder) : nil
    if let recovery {
      builder.skipInvalid = true
      builder.onSkip = { [options] message in
        let current = recovery.parser
        let located = "\(source.displayName):\(current.line):\(current.column): error: \(message); skipped the element"
        skipped.append(located)
        options.onSkip?(located)
      }
    }
    defer { builder.onSkip = { _ in } }
    // Runs first on the way out: no callback may still be running when the closures are reset.
    defer {
      recovery?.parser.waitForHandler()
      parser.waitForHandler()
    }

    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: options.chunkSize, alignment: 64)
    defer { buffer.deallocate() }
    do {
      while true {
        let count = try source.read(into: buffer)
        if count == 0 { break }
        report.documentBytes += Int64(count)
        let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
        if let recovery {
          try recovery.feed(chunk) {
            skipped.append($0)
            self.options.onSkip?($0)
          }
        } else {
          try parser.feed(chunk)
        }
        options.progress?(source.bytesConsumed, source.totalBytes)
      }
      if let recovery {
        try recovery.finish {
          skipped.append($0)
          self.options.onSkip?($0)
        }
      } else {
        try parser.finish()
      }
    } catch let error as XMLStreamError {
      if let underlying = error.underlying, !(underlying is ExportDataError || underlying is ExportLimitError) {
        throw underlying
      }
      throw HealthPortError.malformed(error.documentName, line: error.line, column: error.column, error.message)
    }
    report.hasBrokenDTD = hasBrokenDTD
    report.skipped = skipped
    report.removedControlCharacters = recovery?.removedControlCharacters ?? parser.removedControlCharacters
    report.firstControlCharacterOffset = recovery?.firstControlCharacterOffset ?? parser.firstControlCharacterOffset
    report.unknownElements = builder.unknownElementCount
    report.textNodes = builder.ignoredTextCount
    report.duplicatedWorkoutMetadata = builder.duplicatedWorkoutMetadata
    report.recordsWithoutValue = builder.recordsWithoutValue
    report.unknownAttributes = builder.unknownAttributeCount
    try sink.end(report)
    return report
  }

  /// The iOS 16.0 DTD leaves `VisionPrescription`'s ATTLIST unclosed, so `<!ELEMENT RightEye`
  /// follows an attribute line instead of a `>` (README, "How the reader treats Apple's quirks").
  static func isBrokenDTD(_ prolog: [UInt8]) -> Bool {
    let needle = Array("<!ELEMENT RightEye".utf8)
    guard prolog.count >= needle.count else { return false }
    for start in 0...(prolog.count - needle.count)
    where prolog[start] == needle[0] && prolog[start..<(start + needle.count)].elementsEqual(needle) {
      var before = start - 1
      while before >= 0, [0x20, 0x0A, 0x0D, 0x09].contains(prolog[before]) { before -= 1 }
      return before >= 0 && prolog[before] != UInt8(ascii: ">")
    }
    return false
  }
}
