import XMLStream

/// What one range of a parallel read produced: its elements in order, with the position of each
/// one's end tag (in the range parser's own lines), and what its builder counted.
struct RangeOutcome: @unchecked Sendable {
  var start = 0
  var end = 0
  var isLast = false
  /// Line feeds in the range (the next range's lines follow them).
  var lineFeeds = 0
  /// A stream's: what it had consumed when the range was cut, and its size when known.
  var consumed: Int64 = 0
  var total: Int64?
  /// The range's elements, **last first**: the reader takes each with `popLast()`, which moves
  /// it out, where reading it in place copied it (a retain and a release of every string and
  /// array in it, a tenth of the delivering thread's work).
  var elementsLastFirst: [ExportElement] = []
  /// Line (high 32 bits) and column of each element's end tag, for an error the sink throws.
  var positions: [UInt64] = []
  /// For a sink that tallies Records (``RecordTallying``): the range's top-level Records, which
  /// are then not among `elementsLastFirst`, and how many of them came before each element.
  var tally: RecordTally?
  var recordsBefore: [Int] = []
  /// For a sink that shares its work out (``RangeWorkSharing``): what the range's elements
  /// became on the parsing thread; they are then not among `elementsLastFirst`.
  var result: (any RangeResult)?
  /// The range could not be verified: it failed to parse as a run of complete top-level
  /// elements (damage, or a boundary that was not one). The stretch is read again in sequence.
  var failed = false
  /// The first range: the header, where the root's start tag was read, and the facts of the
  /// prolog the other ranges depend on.
  var header: ExportHeader?
  var headerPosition: UInt64 = 0
  var hasBrokenDTD = false
  /// The root's start tag as one line, for a parser restarted in the middle of the document.
  var rootTag: [UInt8] = []
  /// The line of the root's start tag (where its `<` is), which libxml2's messages name.
  var rootLine = 1
  var counts = RangeCounts()
}

/// The builder's and the control-character filter's counts, summed over ranges.
struct RangeCounts {
  var unknownElements = 0
  var textNodes = 0
  var duplicatedWorkoutMetadata = 0
  var recordsWithoutValue = 0
  var unknownAttributes = 0
  var removedControlCharacters = 0
  var firstControlCharacterOffset: Int?

  init() {}

  /// `builder`'s and `parser`'s counts; `shift` turns the parser's offsets into the file's.
  init(_ builder: ElementBuilder, _ parser: XMLPushParser, shift: Int = 0) {
    unknownElements = builder.unknownElementCount
    textNodes = builder.ignoredTextCount
    duplicatedWorkoutMetadata = builder.duplicatedWorkoutMetadata
    recordsWithoutValue = builder.recordsWithoutValue
    unknownAttributes = builder.unknownAttributeCount
    removedControlCharacters = parser.removedControlCharacters
    firstControlCharacterOffset = parser.firstControlCharacterOffset.map { $0 + shift }
  }

  mutating func add(_ other: RangeCounts) {
    unknownElements += other.unknownElements
    textNodes += other.textNodes
    duplicatedWorkoutMetadata += other.duplicatedWorkoutMetadata
    recordsWithoutValue += other.recordsWithoutValue
    unknownAttributes += other.unknownAttributes
    removedControlCharacters += other.removedControlCharacters
    if firstControlCharacterOffset == nil { firstControlCharacterOffset = other.firstControlCharacterOffset }
  }

  /// `builder`'s and `parser`'s counts; `shift` turns the parser's offsets into the file's.
  mutating func add(_ builder: ElementBuilder, _ parser: XMLPushParser, shift: Int) {
    add(RangeCounts(builder, parser, shift: shift))
  }
}

extension ReadReport {
  /// Copies a read's counts into the report (both readers end with it).
  mutating func take(_ counts: RangeCounts) {
    removedControlCharacters = counts.removedControlCharacters
    firstControlCharacterOffset = counts.firstControlCharacterOffset
    unknownElements = counts.unknownElements
    textNodes = counts.textNodes
    duplicatedWorkoutMetadata = counts.duplicatedWorkoutMetadata
    recordsWithoutValue = counts.recordsWithoutValue
    unknownAttributes = counts.unknownAttributes
  }
}

/// A parsing thread's element builder, used again for each range it parses (the string tables
/// it fills stay warm); a fresh one for the document's first range.
final class RangeBuilder {
  private let interest: ElementInterest
  private let tallies: Bool
  /// The sink's worker on this thread, which takes every top-level element instead of the reader.
  let worker: (any RangeWorker)?
  private var builder: ElementBuilder?

  /// `tallies`: top-level Records go into a ``RecordTally`` of each range's own. `worker`: the
  /// elements go to it (``RangeWorkSharing``).
  /// `spareElements`: arrays the reader emptied, for the next range's elements (``Spares``).
  let spareElements: Spares<[ExportElement]>?

  init(
    interest: ElementInterest, tallies: Bool = false, worker: (any RangeWorker)? = nil,
    spareElements: Spares<[ExportElement]>? = nil
  ) {
    self.spareElements = spareElements
    self.interest = interest
    self.tallies = tallies
    self.worker = tallies ? nil : worker
  }

  /// The builder for the next range, its counts zeroed; after the first range it passes over
  /// the synthetic root and starts on name identities afresh (each range has a parser of its own).
  func next(first: Bool) -> ElementBuilder {
    let current: ElementBuilder
    if let builder, !first {
      builder.resetCounts()
      current = builder
    } else {
      current = ElementBuilder()
      current.interest = interest
      current.worker = worker
      current.collects = worker == nil
      builder = current
    }
    if !first { current.resumeAfterDamage() }
    current.recordTally = tallies ? RecordTally(keepingStarts: true) : nil
    return current
  }
}

/// Parses one range of an export with a libxml2 push parser and an element builder of its own.
///
/// A range after the first is fed a synthetic `<HealthData>` start tag before its bytes (libxml2
/// never sees the DTD, so no other context is needed) and every range but the last a closing
/// `</HealthData>`: the range verifies only when the whole parses as a document, which holds
/// exactly when the range is a run of complete top-level elements (and text, comments) that
/// ends outside any tag, comment or CDATA section. Any error fails the range; the reader then
/// parses that stretch again in sequence, for the exact error.
enum RangeParser {
  static let syntheticRoot = Array("<HealthData>".utf8)
  static let syntheticEnd = Array("</HealthData>".utf8)

  /// A range cut from a stream; one the stream's error ended fails, to be read in sequence.
  /// `scratch`: the parser's buffer, grown to fit (see below).
  static func parse(
    _ raw: RawRange, name: String, builder: RangeBuilder, scratch: inout UnsafeMutableRawBufferPointer
  ) -> RangeOutcome {
    if raw.isUncut {
      var outcome = RangeOutcome()
      outcome.start = raw.start
      outcome.end = raw.start + raw.bytes.count
      outcome.failed = true
      return outcome
    }
    // The board keeps the bytes as written (a read gone on in sequence is fed them): the markers
    // go into a copy, in a buffer the parser keeps as a document's parser does (not one per
    // range: see ``Spares``).
    if scratch.count < raw.bytes.count {
      scratch.deallocate()
      scratch = .allocate(byteCount: raw.bytes.count, alignment: 64)
    }
    let bytes = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<raw.bytes.count])
    raw.bytes.withUnsafeBytes { bytes.copyMemory(from: $0) }
    var outcome = parseWithMarkers(bytes, start: raw.start, isLast: raw.isLast, name: name, builder: builder)
    outcome.isLast = raw.isLast
    outcome.consumed = raw.consumed
    outcome.total = raw.total
    if raw.readError != nil || (raw.start == 0 && raw.bytes.isEmpty) { outcome.failed = true }
    return outcome
  }

  /// Parses a range after the first with ``EntityMarkers`` in place of `&lt;` and `&gt;` (the
  /// bytes are changed, and changed back when the range has to be parsed as written: when it
  /// failed, or when a marker was not in an attribute value).
  static func parseWithMarkers(
    _ bytes: UnsafeMutableRawBufferPointer, start: Int, isLast: Bool, name: String, builder: RangeBuilder
  ) -> RangeOutcome {
    // `’` too for a sink that shares its work out: no element's place is reported from the range.
    let markers = start > 0 ? EntityMarkers.substitute(in: bytes, apostrophes: builder.worker != nil) : 0
    if markers > 0 {
      let outcome = parse(
        UnsafeRawBufferPointer(bytes), start: start, isLast: isLast, name: name, builder: builder, markers: markers)
      if !outcome.failed { return outcome }
      EntityMarkers.restore(in: bytes)
    }
    return parse(UnsafeRawBufferPointer(bytes), start: start, isLast: isLast, name: name, builder: builder)
  }

  /// `markers`: how many ``EntityMarkers`` the bytes hold; the range fails unless every one was
  /// turned back in an attribute value.
  static func parse(
    _ bytes: UnsafeRawBufferPointer, start: Int, isLast: Bool, name: String, builder rangeBuilder: RangeBuilder,
    markers: Int = 0
  ) -> RangeOutcome {
    var outcome = RangeOutcome()
    outcome.start = start
    outcome.end = start + bytes.count
    let builder = rangeBuilder.next(first: start == 0)
    let parser = XMLPushParser(documentName: name, handler: XMLElementFeed(builder))
    parser.restoresEntityMarkers = markers > 0
    var positions: [UInt64] = []
    var recordsBefore: [Int] = []
    let tally = builder.recordTally
    let worker = rangeBuilder.worker
    let collects = tally == nil && worker == nil
    if collects { positions.reserveCapacity(bytes.count / 200) }
    builder.onCollect = {
      positions.append(
        UInt64(UInt32(truncatingIfNeeded: parser.line)) << 32 | UInt64(UInt32(truncatingIfNeeded: parser.column)))
      if let tally { recordsBefore.append(tally.count) }
    }
    if start == 0 {
      builder.onRoot = { rootName, attributes in
        let prolog = parser.prologBytes
        guard rootName == "HealthData", isPlain(prolog) else { throw ExportDataError(message: "read in sequence") }
        outcome.header = ExportHeader(prolog: prolog, rootAttributes: attributes, rootName: rootName)
        outcome.headerPosition =
          UInt64(UInt32(truncatingIfNeeded: parser.line)) << 32 | UInt64(UInt32(truncatingIfNeeded: parser.column))
        outcome.hasBrokenDTD = XMLExportReader.isBrokenDTD(prolog)
      }
    }
    defer {
      builder.onRoot = { _, _ in }
      builder.onCollect = {}
    }
    do {
      if start > 0 { try syntheticRoot.withUnsafeBytes { try parser.feed($0) } }
      try parser.feed(bytes)
      if !isLast { try syntheticEnd.withUnsafeBytes { try parser.feed($0) } }
      try parser.finish()
      if parser.restoredEntityMarkers != markers { throw ExportDataError(message: "a marker outside a value") }
    } catch {
      outcome.failed = true
      _ = builder.takeCollected()
      _ = worker?.finishRange()
      return outcome
    }
    outcome.result = worker?.finishRange()
    if start == 0 {
      guard let tag = rootTag(bytes, prologLength: outcome.header?.prolog.count ?? 0) else {
        outcome.failed = true
        return outcome
      }
      outcome.rootTag = tag.tag
      outcome.rootLine = tag.line
    }
    var empty: [ExportElement] = []
    if collects {
      // A spare grew to hold a range's elements already; a new array starts at a guess.
      if let spare = rangeBuilder.spareElements?.take() {
        empty = spare
      } else {
        empty.reserveCapacity(bytes.count / 200)
      }
    }
    outcome.elementsLastFirst = builder.takeCollected(replacingWith: empty)
    outcome.elementsLastFirst.reverseByMoving()
    outcome.positions = positions
    outcome.tally = tally
    outcome.recordsBefore = recordsBefore
    outcome.lineFeeds = BoundaryScanner.lineFeeds(in: bytes)
    outcome.counts.add(builder, parser, shift: start - (start > 0 ? syntheticRoot.count : 0))
    return outcome
  }

  /// A prolog after which a range parsed without it reads the same: UTF-8 (declared or by
  /// default) and XML 1.0. Anything else is read in sequence.
  static func isPlain(_ prolog: [UInt8]) -> Bool {
    if prolog.starts(with: [0xFE, 0xFF]) || prolog.starts(with: [0xFF, 0xFE]) { return false }
    let text = prolog.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(prolog.dropFirst(3)) : prolog
    guard text.starts(with: Array("<?xml".utf8)) else { return true }
    let end = text.firstRange(of: Array("?>".utf8))?.lowerBound ?? text.count
    let declaration = String(decoding: text[0..<end], as: UTF8.self).lowercased()
    func value(_ name: String) -> String? {
      guard let at = declaration.range(of: name) else { return nil }
      let rest = declaration[at.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\n" || $0 == "\t" }
      guard let quote = rest.first, quote == "\"" || quote == "'" else { return "" }
      return String(rest.dropFirst().prefix { $0 != quote })
    }
    if let version = value("version"), version != "1.0" { return false }
    if let encoding = value("encoding"), encoding != "utf-8", encoding != "utf8" { return false }
    return true
  }

  /// A control character XML 1.0 forbids, which the parser removes (as `ControlCharacters` does).
  static func isForbidden(_ byte: UInt8) -> Bool { byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D }

  /// The document's root start tag in the first range's raw bytes, found after the prolog
  /// (`prologLength` bytes once control characters are removed), on one line and without control
  /// characters: what a restarted parser is fed so that namespaces declared there still apply.
  static func rootTag(_ bytes: UnsafeRawBufferPointer, prologLength: Int) -> (tag: [UInt8], line: Int)? {
    var index = 0
    var kept = 0
    while index < bytes.count, kept < prologLength {
      if !isForbidden(bytes[index]) { kept += 1 }
      index += 1
    }
    let line = 1 + BoundaryScanner.lineFeeds(in: UnsafeRawBufferPointer(rebasing: bytes[0..<index]))
    var tag: [UInt8] = []
    var quote: UInt8 = 0
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      if isForbidden(byte) { continue }
      tag.append(byte == 0x0A || byte == 0x0D || byte == 0x09 ? 0x20 : byte)
      if quote != 0 {
        if byte == quote { quote = 0 }
      } else if byte == 0x22 || byte == 0x27 {
        quote = byte
      } else if byte == 0x3E {
        return tag.starts(with: Array("<HealthData".utf8)) ? (tag, line) : nil
      }
    }
    return nil
  }
}

extension Array {
  /// `reverse()` without copies: it swaps through a copy of each element (a retain and a release
  /// of everything in an ``ExportElement``); this moves the bytes.
  mutating func reverseByMoving() {
    withUnsafeMutableBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      var low = 0
      var high = buffer.count - 1
      while low < high {
        let element = (base + low).move()
        (base + low).moveInitialize(from: base + high, count: 1)
        (base + high).initialize(to: element)
        low += 1
        high -= 1
      }
    }
  }
}
