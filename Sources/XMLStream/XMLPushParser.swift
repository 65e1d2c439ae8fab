import CLibXML2

#if canImport(Glibc)
  import Glibc
#endif

/// Receives the events of an ``XMLPushParser``.
///
/// Names and values are byte views into libxml2's buffers: they are valid only during the
/// call. Copy what you keep. A handler that throws stops the parse; the error is rethrown
/// from ``XMLPushParser/feed(_:)`` or ``XMLPushParser/finish()``.
public protocol XMLEventHandler: AnyObject {
  func startElement(_ name: XMLBytes, attributes: XMLAttributes) throws
  func endElement(_ name: XMLBytes) throws
  /// Character data of text that is not only white space (Apple exports have none), in the
  /// pieces libxml2 delivers; blank pieces are included once the text has begun (and just before
  /// it), so the pieces concatenate to the exact text. Indentation between tags is not delivered.
  func text(_ bytes: XMLBytes) throws
  /// In place of ``text(_:)`` with them: a text begins with `count` bytes of white space, more
  /// than the parser keeps (16 MiB, healthport's cap on the text of one element); its other
  /// pieces follow through ``text(_:)``.
  func overlongBlanks(_ count: Int) throws
}

/// A streaming XML parser over libxml2's SAX2 push interface (`xmlCreatePushParserCtxt`,
/// `xmlParseChunk`).
///
/// Safety and fidelity rules applied to every input:
/// - The prolog (XML declaration, comments, DOCTYPE with its internal subset) is captured
///   verbatim and the DOCTYPE is never shown to libxml2: it is replaced by blanks that keep
///   line and column numbers. iOS 16.0 exports carry a DTD that no strict parser accepts, and
///   without a DTD no entity other than the five predefined ones can ever be expanded.
/// - Control characters that XML 1.0 forbids (`\x00`–`\x08`, `\x0B`, `\x0C`, `\x0E`–`\x1F`)
///   are removed before libxml2 sees them and counted in ``removedControlCharacters``.
/// - Options: `XML_PARSE_NONET`; never `NOENT`, `DTDLOAD` or `RECOVER`. libxml2's default
///   limits on names and values (10 MB) and nesting depth stay on.
public final class XMLPushParser {
  private let box: ParserBox
  private var prolog = PrologScanner()
  private var scratch: [UInt8] = []
  private var finished = false
  /// The first bytes were checked for an encoding healthport does not read (UTF-16).
  private var checkedEncoding = false

  /// The name used in error messages (a path, or `<stdin>`).
  public let documentName: String

  /// The bytes before the root element, exactly as read (empty until the root is reached).
  /// A copy taken before libxml2 sees the root, so that a handler on another thread can read it.
  public private(set) var prologBytes: [UInt8] = []

  /// Number of forbidden control characters removed so far.
  public private(set) var removedControlCharacters = 0
  /// Byte offset (0-based, in the input) of the first removed control character.
  public private(set) var firstControlCharacterOffset: Int?
  private var bytesSeen = 0

  /// With `concurrent`, the handler runs on a thread of its own while libxml2 parses on the
  /// caller's (see ``EventPipeline``); it is called in the same order, with the same bytes and
  /// positions, and every call has returned when ``feed(_:)`` throws or ``finish()`` returns.
  /// Until then the caller must leave the handler's state alone.
  public init(documentName: String, handler: XMLEventHandler, concurrent: Bool = false) {
    self.documentName = documentName
    self.box = ParserBox(handler: handler, concurrent: concurrent)
    box.dispatcher.documentName = documentName
  }

  /// True when the handler runs on a thread of its own.
  public var isConcurrent: Bool { box.pipeline != nil }

  /// Waits until the handler has been given every event parsed so far (the handler thread ends).
  /// For callers that stop reading early; ``finish()`` and a thrown error do this already.
  public func waitForHandler() {
    box.pipeline?.finish()
  }

  deinit {
    // The handler thread replays names that live in the context's dictionary.
    box.pipeline?.finish()
    guard let ctxt = box.ctxt else { return }
    // libxml2 may have started a document of its own (it never should see a DTD; belt and braces).
    if let document = ctxt.pointee.myDoc { xmlFreeDoc(document) }
    xmlFreeParserCtxt(ctxt)
  }

  /// The 1-based line where the event being handed to the handler was read, for locating
  /// problems the handler finds (call it from the handler).
  public var line: Int { Int(box.dispatcher.line) + lineOffset }

  /// Added to every line number this parser reports: a parser restarted in the middle of a
  /// file (after damage, with `--skip-invalid`) still names the file's own lines.
  public var lineOffset: Int {
    get { box.lineOffset }
    set { box.lineOffset = newValue }
  }
  /// For a parser restarted on a copy of the document's root start tag alone on its line 1: the
  /// file's line of the real root tag, which libxml2's messages then name ("Opening and ending
  /// tag mismatch: HealthData line 97 and Record"), instead of the restart's line.
  public var rootLine: Int? {
    get { box.rootLine }
    set { box.rootLine = newValue }
  }
  /// The 1-based column of that event.
  public var column: Int { Int(box.dispatcher.column) }

  /// For bytes fed after ``EntityMarkers/substitute(in:)``: attribute values have their markers
  /// turned back into `<` and `>`, counted in ``restoredEntityMarkers``. Set before feeding.
  public var restoresEntityMarkers: Bool {
    get { box.dispatcher.restoresMarkers }
    set { box.dispatcher.restoresMarkers = newValue }
  }
  /// The markers turned back so far.
  public var restoredEntityMarkers: Int { box.dispatcher.restoredMarkers }

  /// Feeds the next bytes of the document.
  public func feed(_ bytes: UnsafeRawBufferPointer) throws {
    precondition(!finished, "feed after finish")
    guard bytes.count > 0 else { return }
    if !checkedEncoding {
      checkedEncoding = true
      if let problem = XMLEncodingCheck.problem(in: bytes, name: documentName) {
        throw XMLStreamError(documentName: documentName, line: 1, column: 1, message: problem)
      }
    }
    if !prolog.isComplete {
      // The prolog is scanned after the control characters are removed, so that the scanner
      // sees exactly what libxml2 would (a `\x0b<!DOCTYPE` must be found and hidden too).
      let result = try withoutControlCharacters(bytes) { prolog.consume($0) }
      if case .tooLarge = result {
        throw XMLStreamError(
          documentName: documentName, line: prolog.lineCount, column: 1,
          message: "the prolog (XML declaration and DOCTYPE) is larger than \(PrologScanner.limit / 1_048_576) MiB"
        )
      }
      guard prolog.isComplete else { return }
      // Hand libxml2 the prolog with the DOCTYPE blanked out, then what followed it.
      prologBytes = prolog.captured
      let masked = prolog.maskedForParser()
      try masked.withUnsafeBytes { try parse($0, terminate: false) }
      let rest = prolog.takeRemainder()
      try rest.withUnsafeBytes { try parse($0, terminate: false) }
      return
    }
    try feedFiltered(bytes)
  }

  /// Ends the document: reports truncation and any error still pending.
  public func finish() throws {
    guard !finished else { return }
    finished = true
    if !prolog.isComplete {
      // Never reached the root element: feed what there is so libxml2 names the problem.
      let captured = prolog.captured + prolog.takeRemainder()
      if captured.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
        throw XMLStreamError(
          documentName: documentName, line: 1, column: 1, message: "the input is empty")
      }
      // Never let libxml2 see a DOCTYPE, not even an unfinished one.
      if captured.firstRange(of: Array("<!DOCTYPE".utf8)) != nil {
        throw XMLStreamError(
          documentName: documentName, line: captured.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }, column: 1,
          message: "the input ends inside the DOCTYPE, before the root element (truncated file?)")
      }
      prologBytes = prolog.captured
      try captured.withUnsafeBytes { try parse($0, terminate: false) }
    }
    do {
      try parse(UnsafeRawBufferPointer(start: nil, count: 0), terminate: true)
      if let error = box.pendingError(final: true) { throw error }
    } catch let error as XMLStreamError
      where error.underlying == nil && box.sawRoot && box.dispatcher.failure == nil
      && !Self.isEncodingFailure(box.failureCode)
    {
      throw XMLStreamError(
        documentName: error.documentName, line: error.line, column: error.column,
        message: "\(error.message) (the input ends before the document does: truncated file?)")
    }
    if box.depth != 0 || !box.sawRoot {
      throw XMLStreamError(
        documentName: documentName, line: Int(cx_xml_line(box.ctxt)) + lineOffset, column: Int(cx_xml_column(box.ctxt)),
        message: "the document ends before its root element is closed (truncated file?)")
    }
  }

  /// Removes forbidden control characters, then parses.
  private func feedFiltered(_ bytes: UnsafeRawBufferPointer) throws {
    try withoutControlCharacters(bytes) { try parse($0, terminate: false) }
  }

  /// Calls `body` with `bytes` minus the forbidden control characters (counted), copying only
  /// when there are any.
  private func withoutControlCharacters<T>(
    _ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> T
  ) throws -> T {
    let start = bytesSeen
    bytesSeen += bytes.count
    guard let firstBad = ControlCharacters.firstForbidden(in: bytes) else { return try body(bytes) }
    scratch.removeAll(keepingCapacity: true)
    scratch.reserveCapacity(bytes.count)
    scratch.append(contentsOf: bytes[0..<firstBad])
    for index in firstBad..<bytes.count {
      let byte = bytes[index]
      if ControlCharacters.isForbidden(byte) {
        if firstControlCharacterOffset == nil { firstControlCharacterOffset = start + index }
        removedControlCharacters += 1
      } else {
        scratch.append(byte)
      }
    }
    return try scratch.withUnsafeBytes { try body($0) }
  }

  private func parse(_ bytes: UnsafeRawBufferPointer, terminate: Bool) throws {
    let ctxt = try context()
    var offset = 0
    // Slices of 64 KiB: libxml2 copies each chunk into its input buffer before parsing it, and
    // that buffer grows to twice the largest chunk (1 MiB chunks kept 3–6 MB of it); what it
    // has not parsed yet it moves to the front as it goes. Also, xmlParseChunk takes an Int32 size.
    repeat {
      let length = min(bytes.count - offset, 64 << 10)
      let pointer = bytes.baseAddress.map { $0.advanced(by: offset).assumingMemoryBound(to: CChar.self) }
      let isLast = terminate && offset + length == bytes.count
      let rc = xmlParseChunk(ctxt, pointer, Int32(length), isLast ? 1 : 0)
      offset += length
      if let error = box.pendingError(final: rc != 0) { throw error }
      if rc != 0 {
        box.failureCode = rc
        throw XMLStreamError(
          documentName: documentName, line: Int(cx_xml_line(ctxt)) + lineOffset, column: Int(cx_xml_column(ctxt)),
          message: Self.chunkFailure(rc))
      }
    } while offset < bytes.count
  }

  /// libxml2 codes for bytes that do not convert from the declared encoding: the input did not
  /// end early, so such an error is never called a truncated file.
  private static func isEncodingFailure(_ code: Int32) -> Bool {
    [
      XML_ERR_INVALID_ENCODING, XML_ERR_UNKNOWN_ENCODING, XML_ERR_UNSUPPORTED_ENCODING, XML_IO_ENCODER,
      XML_I18N_CONV_FAILED,
    ]
    .contains { Int32($0.rawValue) == code }
  }

  /// What a failed `xmlParseChunk` without an error of its own means.
  private static func chunkFailure(_ rc: Int32) -> String {
    if rc == Int32(XML_ERR_INVALID_ENCODING.rawValue) {
      return "malformed XML: the bytes do not convert from the encoding the document declares"
    }
    return "malformed XML (libxml2 error \(rc))"
  }

  private func context() throws -> xmlParserCtxtPtr {
    if let ctxt = box.ctxt { return ctxt }
    var sax = xmlSAXHandler()
    sax.initialized = UInt32(XML_SAX2_MAGIC)
    // The box outlives the parser (this object holds both): reached without a retain and a
    // release per event, two atomic operations on every callback.
    sax.startElementNs = { userData, localname, _, _, _, _, attributeCount, _, attributes in
      ParserBox.with(userData) { $0.start(localname, attributeCount, attributes) }
    }
    sax.endElementNs = { userData, localname, _, _ in
      ParserBox.with(userData) { $0.end(localname) }
    }
    sax.characters = { userData, bytes, length in
      ParserBox.with(userData) { $0.characters(bytes, length) }
    }
    sax.serror = { userData, error in
      ParserBox.with(userData) { $0.report(error) }
    }
    // No raw libxml2 line on stderr: every error is told once, located, through `report`.
    cx_xml_silence_generic_errors()
    let userData = Unmanaged.passUnretained(box).toOpaque()
    guard let ctxt = xmlCreatePushParserCtxt(&sax, userData, nil, 0, documentName) else {
      throw XMLStreamError(
        documentName: documentName, line: 0, column: 0, message: "cannot create the XML parser")
    }
    xmlCtxtUseOptions(ctxt, Int32(XML_PARSE_NONET.rawValue))
    box.ctxt = ctxt
    box.documentName = documentName
    try box.pipeline?.start()
    return ctxt
  }
}

/// The object libxml2's callbacks reach through their `userData` pointer: it hands each event to
/// the dispatcher, directly or through the pipeline's tape.
private final class ParserBox {
  let dispatcher: EventDispatcher
  let pipeline: EventPipeline?
  var ctxt: xmlParserCtxtPtr?
  var documentName = ""
  /// libxml2's first error.
  var firstError: XMLStreamError?
  /// libxml2's code for it, or the failed chunk's return code.
  var failureCode: Int32 = 0
  var lineOffset: Int {
    get { dispatcher.lineOffset }
    set { dispatcher.lineOffset = newValue }
  }
  var rootLine: Int?
  var depth = 0
  var sawRoot = false

  init(handler: XMLEventHandler, concurrent: Bool) {
    dispatcher = EventDispatcher(handler: handler)
    pipeline = concurrent ? EventPipeline(dispatcher: dispatcher) : nil
  }

  @inline(__always)
  static func with(_ pointer: UnsafeMutableRawPointer?, _ body: (ParserBox) -> Void) {
    Unmanaged<ParserBox>.fromOpaque(pointer!)._withUnsafeGuaranteedRef(body)
  }

  /// The first error: the handler's (which always comes first in the document), else libxml2's.
  /// With a pipeline, waits for the handler to catch up first.
  func pendingError(final: Bool) -> XMLStreamError? {
    if let pipeline, final || firstError != nil || pipeline.handlerFailed {
      pipeline.finish()
    }
    return dispatcher.failure ?? firstError
  }

  func start(
    _ name: UnsafePointer<xmlChar>?, _ count: Int32,
    _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
  ) {
    guard firstError == nil, let name else { return }
    // A tag cut off by the end of the input: libxml2 reports it as unclosed right after this
    // callback, and that error, not one about the attributes it lacks, is the one to tell.
    guard cx_xml_start_tag_closed(ctxt) != 0 else { return }
    depth += 1
    sawRoot = true
    if let pipeline {
      pipeline.recordStart(name, Int(count), attributes, line: cx_xml_line(ctxt), column: cx_xml_column(ctxt))
      if pipeline.handlerFailed { xmlStopParser(ctxt) }
    } else {
      dispatcher.line = cx_xml_line(ctxt)
      dispatcher.column = cx_xml_column(ctxt)
      dispatcher.asWritten = (cx_xml_input_base(ctxt), cx_xml_input_end(ctxt))
      dispatcher.start(name, Int(count), attributes)
      if dispatcher.failure != nil { xmlStopParser(ctxt) }
    }
  }

  func end(_ name: UnsafePointer<xmlChar>?) {
    guard firstError == nil, let name else { return }
    depth -= 1
    if let pipeline {
      pipeline.recordEnd(name, line: cx_xml_line(ctxt), column: cx_xml_column(ctxt))
      if pipeline.handlerFailed { xmlStopParser(ctxt) }
    } else {
      dispatcher.line = cx_xml_line(ctxt)
      dispatcher.column = cx_xml_column(ctxt)
      dispatcher.end(name)
      if dispatcher.failure != nil { xmlStopParser(ctxt) }
    }
  }

  func characters(_ bytes: UnsafePointer<xmlChar>?, _ length: Int32) {
    guard firstError == nil, let bytes, length > 0 else { return }
    if let pipeline {
      pipeline.recordText(bytes, Int(length), line: cx_xml_line(ctxt), column: cx_xml_column(ctxt))
    } else {
      dispatcher.line = cx_xml_line(ctxt)
      dispatcher.column = cx_xml_column(ctxt)
      dispatcher.characters(bytes, Int(length))
      if dispatcher.failure != nil { xmlStopParser(ctxt) }
    }
  }

  func report(_ error: UnsafeMutablePointer<xmlError>?) {
    guard firstError == nil, let error else { return }
    let level = error.pointee.level
    guard level == XML_ERR_ERROR || level == XML_ERR_FATAL else { return }
    var message = error.pointee.message.map { String(cString: $0) } ?? "malformed XML"
    while message.last == "\n" || message.last == " " { message.removeLast() }
    message = message.split(separator: "\n").joined(separator: "; ")
    if message == "Document is empty" || message.hasPrefix("Start tag expected") {
      message = "not an XML document (\(message))"
    } else if message.hasSuffix("Huge input lookup") || message.hasPrefix("AttValue length too long") {
      // libxml2 2.9 stops a tag it must look through 10,000,000 bytes into with this internal error.
      message = "a tag, name or attribute value over 10 MB (libxml2's limit)"
    }
    if lineOffset != 0 || rootLine != nil {
      message = Self.shiftingLineNumbers(in: message, by: lineOffset, lineOne: rootLine)
    }
    failureCode = error.pointee.code
    firstError = XMLStreamError(
      documentName: documentName, line: Int(error.pointee.line) + lineOffset, column: Int(error.pointee.int2),
      message: message)
    if let ctxt { xmlStopParser(ctxt) }
  }

  /// libxml2 names lines inside some messages ("Opening and ending tag mismatch: Record line 152
  /// and HealthData", "Premature end of data in tag Record line 5"); a parser restarted partway
  /// through the file counts them from its restart, so they are moved to true file lines
  /// (`lineOne`, when given, for its line 1).
  static func shiftingLineNumbers(in message: String, by offset: Int, lineOne: Int? = nil) -> String {
    var result = ""
    var rest = Substring(message)
    while let found = rest.firstRange(of: " line ") {
      result += rest[..<found.upperBound]
      rest = rest[found.upperBound...]
      let digits = rest.prefix { $0.isASCII && $0.isNumber }
      if let number = Int(digits), number > 0 {
        result += String(number == 1 ? lineOne ?? number + offset : number + offset)
        rest = rest.dropFirst(digits.count)
      }
    }
    return result + rest
  }
}

/// Hands libxml2's events to the handler: decodes `&#38;` in attribute values, joins text
/// pieces, and turns the handler's first error into a located ``XMLStreamError``. Runs on
/// whichever thread calls the handler (see ``EventPipeline``).
final class EventDispatcher {
  let handler: XMLEventHandler
  var documentName = ""
  var lineOffset = 0
  /// The handler's first error; no event is handed on after it.
  private(set) var failure: XMLStreamError?
  /// Where libxml2 was when it read the event being handed on (its own line numbering).
  var line: Int32 = 0
  var column: Int32 = 0
  /// libxml2's input buffer while its start-tag event is handed on directly (nil through the
  /// pipeline, whose attributes are copies): see ``hasAmpersand(_:_:skipping:)``.
  var asWritten: (UnsafePointer<xmlChar>?, UnsafePointer<xmlChar>?) = (nil, nil)
  /// See ``XMLPushParser/restoresEntityMarkers``.
  var restoresMarkers = false
  private(set) var restoredMarkers = 0

  init(handler: XMLEventHandler) { self.handler = handler }

  func start(_ name: UnsafePointer<xmlChar>, _ count: Int, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?)
  {
    guard failure == nil else { return }
    tagSeen()
    do {
      if restoresMarkers, let attributes, count > 0 { restoreMarkers(attributes, count) }
      if let attributes, count > 0, Self.hasAmpersand(attributes, count, skipping: asWritten) {
        try startDecodingAmpersands(name, count, attributes)
      } else {
        try handler.startElement(XMLBytes(cString: name), attributes: XMLAttributes(raw: attributes, count: count))
      }
    } catch {
      fail(error)
    }
  }

  private var valueScratch: [UInt8] = []
  private var quintupleScratch: [UnsafePointer<xmlChar>?] = []

  /// Without entity substitution (never `XML_PARSE_NOENT`), libxml2 hands every `&` of an
  /// attribute value (`&amp;`, `&#38;`) on as the five bytes `&#38;`, and every other character as
  /// itself. Turning each `&#38;` back into `&` therefore gives the exact value.
  /// Values inside `asWritten` (libxml2's input, when the event comes straight from it) are
  /// text as written without a reference, where `&` cannot be: only the decoded ones are searched.
  private static func hasAmpersand(
    _ raw: UnsafeMutablePointer<UnsafePointer<xmlChar>?>, _ count: Int,
    skipping asWritten: (UnsafePointer<xmlChar>?, UnsafePointer<xmlChar>?)
  ) -> Bool {
    let (low, high) = asWritten
    for index in 0..<count {
      let begin = raw[index * 5 + 3]!
      let end = raw[index * 5 + 4]!
      if let low, let high, begin >= low, end <= high { continue }
      if end > begin, memchr(begin, 0x26, end - begin) != nil { return true }
    }
    return false
  }

  /// Turns the ``EntityMarkers`` in the values back into `<`, `>` and `’` where they lie, each value
  /// moved together and its end pointer moved back: libxml2 never reads a value's bytes again
  /// after this event (it frees a value it made by its start pointer, which stays).
  private func restoreMarkers(_ raw: UnsafeMutablePointer<UnsafePointer<xmlChar>?>, _ count: Int) {
    let delete = Int32(EntityMarkers.delete)
    for index in 0..<count {
      let begin = UnsafeMutablePointer(mutating: raw[index * 5 + 3]!)
      let end = UnsafeMutablePointer(mutating: raw[index * 5 + 4]!)
      guard end > begin, let first = memchr(begin, delete, end - begin)?.assumingMemoryBound(to: UInt8.self)
      else { continue }
      var write = first
      var read = first
      while read < end {
        // `read` is at a DEL: a marker, or (the count then falls short) a DEL kept as it is.
        if let marker = EntityMarkers.marker(at: read, available: end - read) {
          write[0] = marker.value.0
          if marker.count == 3 {
            write[1] = marker.value.1
            write[2] = marker.value.2
          }
          write += marker.count
          read += marker.length
          restoredMarkers += 1
        } else {
          write.pointee = read.pointee
          write += 1
          read += 1
        }
        let next = read < end ? memchr(read, delete, end - read)?.assumingMemoryBound(to: UInt8.self) ?? end : end
        if next > read { memmove(write, read, next - read) }
        write += next - read
        read = next
      }
      raw[index * 5 + 4] = UnsafePointer(write)
    }
  }

  /// The values with each `&#38;` turned back into `&`.
  private func startDecodingAmpersands(
    _ name: UnsafePointer<xmlChar>, _ count: Int, _ raw: UnsafeMutablePointer<UnsafePointer<xmlChar>?>
  ) throws {
    valueScratch.removeAll(keepingCapacity: true)
    spanScratch.removeAll(keepingCapacity: true)
    let (low, high) = asWritten
    for index in 0..<count {
      let begin = raw[index * 5 + 3]!
      let end = raw[index * 5 + 4]!
      var asWritten = false
      if let low, let high, begin >= low, end <= high { asWritten = true }
      let changes = end > begin && !asWritten && memchr(begin, 0x26, end - begin) != nil
      guard changes else {
        spanScratch.append((-1, -1))  // handed on in place
        continue
      }
      let start = valueScratch.count
      appendDecoded(begin, end - begin)
      spanScratch.append((start, valueScratch.count))
    }
    try valueScratch.withUnsafeBufferPointer { values in
      let base = values.baseAddress ?? UnsafePointer(bitPattern: 1)!
      quintupleScratch.removeAll(keepingCapacity: true)
      for index in 0..<count {
        quintupleScratch.append(raw[index * 5])
        quintupleScratch.append(raw[index * 5 + 1])
        quintupleScratch.append(raw[index * 5 + 2])
        let (start, end) = spanScratch[index]
        if start < 0 {
          quintupleScratch.append(raw[index * 5 + 3])
          quintupleScratch.append(raw[index * 5 + 4])
        } else {
          quintupleScratch.append(base + start)
          quintupleScratch.append(base + end)
        }
      }
      try quintupleScratch.withUnsafeMutableBufferPointer { quintuples in
        try handler.startElement(
          XMLBytes(cString: name), attributes: XMLAttributes(raw: quintuples.baseAddress, count: count))
      }
    }
  }

  private var spanScratch: [(Int, Int)] = []

  /// Appends a value to `valueScratch` with each `&#38;` as `&`, the runs between copied whole.
  private func appendDecoded(_ begin: UnsafePointer<UInt8>, _ length: Int) {
    var offset = 0
    var run = 0
    func copyRun(upTo end: Int) {
      if end > run { valueScratch.append(contentsOf: UnsafeBufferPointer(start: begin + run, count: end - run)) }
    }
    while offset < length {
      let byte = begin[offset]
      if byte == 0x26, offset + 4 < length, begin[offset + 1] == 0x23, begin[offset + 2] == 0x33,
        begin[offset + 3] == 0x38, begin[offset + 4] == 0x3B
      {
        copyRun(upTo: offset)
        valueScratch.append(0x26)
        offset += 5
        run = offset
      } else {
        offset += 1
      }
    }
    copyRun(upTo: length)
  }

  func end(_ name: UnsafePointer<xmlChar>) {
    guard failure == nil else { return }
    tagSeen()
    do { try handler.endElement(XMLBytes(cString: name)) } catch { fail(error) }
  }

  /// True after a text chunk was handed on, until the next tag: libxml2 delivers text in pieces
  /// (split at entity and character references), and a blank piece between two others is text.
  private var inText = false
  /// Blank pieces seen outside text, kept in case text follows before the next tag: one after
  /// nearly every tag (the indentation), so kept in a buffer of its own rather than an Array
  /// (whose append and removeAll cost a parsing thread 1 % of its instructions).
  /// malloc'd, grown by realloc (a large buffer is remapped, never copied while both exist).
  private var pendingBlank = malloc(64)!.assumingMemoryBound(to: UInt8.self)
  private var pendingBlankCapacity = 64
  /// The blank bytes seen; the first `pendingBlankCapacity` of them are kept as they are, the
  /// rest up to ``maximumPendingBlank`` packed in `packedBlank`.
  private var pendingBlankCount = 0
  /// The blank bytes past the first ``maximumRawBlank``, four to a byte (two bits each, see
  /// ``blankCodes``): white space between elements is kept at a quarter of its size (16 MiB of it
  /// took 16 MiB, so 20 MB of it in a zip member peaked 10 MB above 5 MB).
  private var packedBlank: UnsafeMutablePointer<UInt8>?
  private var packedBlankCapacity = 0

  deinit {
    free(pendingBlank)
    free(packedBlank)
  }

  func characters(_ bytes: UnsafePointer<xmlChar>, _ length: Int) {
    guard failure == nil else { return }
    let view = XMLBytes(start: bytes, count: length)
    if !inText {
      var blank = true
      for byte in view.buffer where !(byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D) {
        blank = false
        break
      }
      if blank {
        keepBlank(view.buffer)
        return
      }
      inText = true
      if pendingBlankCount > 0 {
        do {
          if pendingBlankCount > Self.maximumPendingBlank {
            // More than ``maximumPendingBlank``: counted, not kept.
            try handler.overlongBlanks(pendingBlankCount)
          } else if pendingBlankCount <= pendingBlankCapacity {
            try handler.text(XMLBytes(start: pendingBlank, count: pendingBlankCount))
          } else {
            try unpackedBlanks { try handler.text($0) }
          }
        } catch {
          fail(error)
          return
        }
        pendingBlankCount = 0
      }
    }
    do { try handler.text(view) } catch { fail(error) }
  }

  /// The most blank bytes kept in case text follows them: the most text an element may hold
  /// (healthport's readers cap it at 16 MiB, docs/errors.md). More, white space between
  /// elements, are counted but not kept, so that many MB of it cost at most this (40 MB of it
  /// took 213 MB); a text that does begin with more is over the cap (``XMLEventHandler/overlongBlanks(_:)``).
  static let maximumPendingBlank = 16 << 20

  @inline(__always)
  private func keepBlank(_ bytes: UnsafeBufferPointer<UInt8>) {
    if bytes.count > 64 || pendingBlankCount + bytes.count > pendingBlankCapacity { return keepLongBlank(bytes) }
    for (offset, byte) in bytes.enumerated() { pendingBlank[pendingBlankCount + offset] = byte }
    pendingBlankCount += bytes.count
  }

  /// The most blank bytes kept as they are; the rest are packed.
  static let maximumRawBlank = 1 << 20
  /// The blank bytes a two-bit code stands for (see ``pack(_:at:)``).
  private static let blankCodes: (UInt8, UInt8, UInt8, UInt8) = (0x20, 0x09, 0x0A, 0x0D)

  /// Grows the buffer up to ``maximumRawBlank`` when needed, keeps what fits (copied at once),
  /// packs what follows up to ``maximumPendingBlank`` and counts the rest.
  @inline(never)
  private func keepLongBlank(_ bytes: UnsafeBufferPointer<UInt8>) {
    let total = pendingBlankCount + bytes.count
    if total > pendingBlankCapacity, pendingBlankCapacity < Self.maximumRawBlank {
      let capacity = min(max(2 * pendingBlankCapacity, total), Self.maximumRawBlank)
      guard let grown = realloc(pendingBlank, capacity) else { fatalError("out of memory") }
      pendingBlank = grown.assumingMemoryBound(to: UInt8.self)
      pendingBlankCapacity = capacity
    }
    let kept = min(bytes.count, max(pendingBlankCapacity - pendingBlankCount, 0))
    if kept > 0 { (pendingBlank + pendingBlankCount).update(from: bytes.baseAddress!, count: kept) }
    let packed = min(bytes.count, max(Self.maximumPendingBlank - pendingBlankCount, 0))
    if packed > kept { pack(UnsafeBufferPointer(rebasing: bytes[kept..<packed]), at: pendingBlankCount + kept) }
    pendingBlankCount = total
  }

  /// Packs blank bytes that come at `offset` (past the raw buffer) into `packedBlank`.
  private func pack(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) {
    let first = offset - pendingBlankCapacity
    let needed = (first + bytes.count + 3) / 4
    if needed > packedBlankCapacity {
      let most = (Self.maximumPendingBlank - Self.maximumRawBlank + 3) / 4
      let capacity = min(max(2 * packedBlankCapacity, needed, 1 << 16), most)
      guard let grown = realloc(packedBlank, capacity) else { fatalError("out of memory") }
      packedBlank = grown.assumingMemoryBound(to: UInt8.self)
      packedBlankCapacity = capacity
    }
    guard let packedBlank, var from = bytes.baseAddress else { return }
    var at = first
    let end = first + bytes.count
    // A blank byte's code is its two low bits, the high one or'ed with bit 2 (only 0x0D has it).
    while at < end, at & 7 != 0 {
      let code = (from.pointee & 3) | ((from.pointee >> 1) & 2)
      let shift = UInt8((at & 3) * 2)
      if shift == 0 { packedBlank[at >> 2] = code } else { packedBlank[at >> 2] |= code << shift }
      from += 1
      at += 1
    }
    // Eight at a time: each byte's code in its lane, gathered into two bytes.
    while end - at >= 8 {
      let word = UnsafeRawPointer(from).loadUnaligned(as: UInt64.self)
      let codes = (word & 0x0303_0303_0303_0303) | ((word >> 1) & 0x0202_0202_0202_0202)
      let gathered = codes | (codes >> 6) | (codes >> 12) | (codes >> 18)
      packedBlank[at >> 2] = UInt8(truncatingIfNeeded: gathered)
      packedBlank[(at >> 2) + 1] = UInt8(truncatingIfNeeded: gathered >> 32)
      from += 8
      at += 8
    }
    while at < end {
      let code = (from.pointee & 3) | ((from.pointee >> 1) & 2)
      let shift = UInt8((at & 3) * 2)
      if shift == 0 { packedBlank[at >> 2] = code } else { packedBlank[at >> 2] |= code << shift }
      from += 1
      at += 1
    }
  }

  /// The blank bytes kept (more than the raw buffer holds), handed to `body` in pieces: the raw
  /// buffer's, then the packed ones unpacked 64 KiB at a time (unpacked whole, 16 MiB of them
  /// were held twice while the text they begin was being kept).
  private func unpackedBlanks(_ body: (XMLBytes) throws -> Void) rethrows {
    try body(XMLBytes(start: pendingBlank, count: pendingBlankCapacity))
    guard let packedBlank else { return }
    let pieceSize = 64 << 10
    let piece = malloc(pieceSize)!.assumingMemoryBound(to: UInt8.self)
    defer { free(piece) }
    let codes = Self.blankCodes
    let total = pendingBlankCount - pendingBlankCapacity
    var at = 0
    while at < total {
      let count = min(pieceSize, total - at)
      for offset in 0..<count {
        let code = (packedBlank[(at + offset) >> 2] >> UInt8(((at + offset) & 3) * 2)) & 3
        piece[offset] = code == 0 ? codes.0 : code == 1 ? codes.1 : code == 2 ? codes.2 : codes.3
      }
      try body(XMLBytes(start: piece, count: count))
      at += count
    }
  }

  @inline(__always)
  private func tagSeen() {
    inText = false
    pendingBlankCount = 0
  }

  private func fail(_ error: any Error) {
    failure =
      (error as? XMLStreamError)
      ?? XMLStreamError(
        documentName: documentName, line: Int(line) + lineOffset, column: Int(column), message: "\(error)",
        underlying: error)
  }
}
