import XMLStream

/// Reads one export file with several libxml2 parsers at once (issue 16).
///
/// The document is cut at candidate boundaries (``BoundaryScanner``) into ranges of about
/// ``ReadOptions/rangeSize`` bytes; workers parse the ranges (``RangeParser``), at most a
/// window of them ahead of the one being delivered, and this thread hands their elements to the
/// sink in document order, so every output is the one a single parser gives. The first range
/// that does not verify (damage, or a guessed boundary that was not one) ends the parallel part:
/// everything from its start is parsed again in sequence, by a parser restarted there as after
/// damage, so errors, their positions and the elements before them are exactly the sequential
/// reader's. Memory: the workers' ranges plus the window's elements, whatever the input size.
final class ParallelExportReader {
  let document: RandomAccessDocument
  let options: ReadOptions
  let format: InputFormat

  /// After a read: the ranges delivered from the parallel parsers, and where the read went on in
  /// sequence (nil when it never did; 0 when the whole document was read in sequence).
  private(set) var rangesDelivered = 0
  private(set) var sequentialFrom: Int?

  init(document: RandomAccessDocument, options: ReadOptions, format: InputFormat) {
    self.document = document
    self.options = options
    self.format = format
  }

  func read(into sink: ExportSink) throws -> ReadReport {
    let rangeSize = max(options.rangeSize, 256)
    let count = max(1, (document.size + rangeSize - 1) / rangeSize)
    let board = RangeBoard(count: count, window: 2 * options.threads)
    let workers = WorkerThreads()
    let document = self.document
    let interest = sink.interest
    let started = workers.start(min(options.threads, count)) {
      Self.work(board: board, document: document, rangeSize: rangeSize, interest: interest)
    }
    defer {
      board.stop()
      workers.join()
    }
    guard started > 0 else {
      sequentialFrom = 0
      return try readInSequence(into: sink)
    }

    var report = ReadReport(documentName: document.displayName, format: format)
    report.documentBytes = Int64(document.size)
    var counts = RangeCounts()
    var rootTag: [UInt8] = []
    for index in 0..<count {
      let outcome = board.take(index)
      if outcome.failed {
        board.stop()
        workers.join()
        sequentialFrom = outcome.start
        if index == 0 { return try readInSequence(into: sink) }
        try readInSequence(from: outcome.start, rootTag: rootTag, into: sink, counts: &counts)
        break
      }
      if let header = outcome.header {
        report.hasBrokenDTD = outcome.hasBrokenDTD
        rootTag = outcome.rootTag
        try deliver(outcome.start, outcome.headerPosition) { try sink.begin(header) }
      }
      for (element, position) in zip(outcome.elements, outcome.positions) {
        try deliver(outcome.start, position) { try sink.consume(element) }
      }
      counts.add(outcome.counts)
      if outcome.end > outcome.start { rangesDelivered += 1 }
      options.progress?(Int64(outcome.end), Int64(document.size))
      if outcome.end == document.size { break }
    }
    report.removedControlCharacters = counts.removedControlCharacters
    report.firstControlCharacterOffset = counts.firstControlCharacterOffset
    report.unknownElements = counts.unknownElements
    report.textNodes = counts.textNodes
    report.duplicatedWorkoutMetadata = counts.duplicatedWorkoutMetadata
    report.recordsWithoutValue = counts.recordsWithoutValue
    report.unknownAttributes = counts.unknownAttributes
    try sink.end(report)
    return report
  }

  /// A worker: parses the ranges it claims until none is left.
  private static func work(board: RangeBoard, document: RandomAccessDocument, rangeSize: Int, interest: ElementInterest) {
    let scanner = BoundaryScanner(document: document)
    var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: rangeSize + (64 << 10), alignment: 64)
    defer { buffer.deallocate() }
    while let index = board.claim() {
      var outcome = RangeOutcome()
      do {
        let start = index == 0 ? 0 : try scanner.boundary(atOrAfter: index * rangeSize)
        let end = max(start, try scanner.boundary(atOrAfter: (index + 1) * rangeSize))
        outcome.start = start
        outcome.end = end
        if end > start {
          if buffer.count < end - start {
            buffer.deallocate()
            buffer = .allocate(byteCount: end - start, alignment: 64)
          }
          let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(end - start)])
          let read = try document.read(at: start, into: slice)
          outcome = RangeParser.parse(
            UnsafeRawBufferPointer(rebasing: slice[0..<read]), start: start, isLast: end == document.size,
            name: document.displayName, interest: interest)
          if read < end - start { outcome.failed = true }  // the file shrank: read it in sequence
        } else if index == 0 {
          outcome.failed = true  // an empty document: the sequential reader names the problem
        }
      } catch {
        outcome.failed = true  // a read error: the sequential reader reports it
      }
      board.post(index, outcome)
    }
  }

  /// Calls the sink; an error it throws is located at the element's end tag and worded as the
  /// sequential reader words it (``XMLExportReader``).
  private func deliver(_ start: Int, _ position: UInt64, _ call: () throws -> Void) throws {
    do {
      try call()
    } catch {
      guard error is ExportDataError || error is ExportLimitError || error is XMLStreamError else { throw error }
      let shift = start == 0 ? 0 : try BoundaryScanner(document: document).lineFeeds(before: start)
      let line = Int(position >> 32) + shift
      let column = Int(position & 0xFFFF_FFFF)
      if let error = error as? XMLStreamError {
        throw HealthPortError.malformed(error.documentName, line: error.line, column: error.column, error.message)
      }
      throw HealthPortError.malformed(document.displayName, line: line, column: column, "\(error)")
    }
  }

  /// The whole document in sequence, as if read with one parser.
  private func readInSequence(into sink: ExportSink) throws -> ReadReport {
    try XMLExportReader(options: options).read(DocumentByteSource(document), format: format, into: sink)
  }
}

/// A ``RandomAccessDocument`` read from its first byte to its last, as a ``ByteSource``.
final class DocumentByteSource: ByteSource {
  private let document: RandomAccessDocument
  private var offset: Int

  init(_ document: RandomAccessDocument, from offset: Int = 0) {
    self.document = document
    self.offset = offset
  }

  var displayName: String { document.displayName }
  var totalBytes: Int64? { Int64(document.size) }
  var bytesConsumed: Int64 { Int64(offset) }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let count = try document.read(at: offset, into: buffer)
    offset += count
    return count
  }
}
