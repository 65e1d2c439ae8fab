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
  /// A file or bytes in memory, read at any offset by the parsers themselves; or a stream (a zip
  /// member, stdin, a pipe), which a thread of its own reads and cuts into ranges.
  enum Input {
    case document(RandomAccessDocument)
    case stream(ByteSource)

    var isStream: Bool {
      if case .stream = self { return true }
      return false
    }
  }

  let input: Input
  let options: ReadOptions
  let format: InputFormat
  let displayName: String

  /// After a read: the ranges delivered from the parallel parsers, and where the read went on in
  /// sequence (nil when it never did; 0 when the whole document was read in sequence).
  private(set) var rangesDelivered = 0
  private(set) var sequentialFrom: Int?

  convenience init(document: RandomAccessDocument, options: ReadOptions, format: InputFormat) {
    self.init(.document(document), options: options, format: format)
  }

  init(_ input: Input, options: ReadOptions, format: InputFormat) {
    self.input = input
    self.options = options
    self.format = format
    switch input {
    case .document(let document): displayName = document.displayName
    case .stream(let source): displayName = source.displayName
    }
  }

  func read(into sink: ExportSink) throws -> ReadReport {
    let rangeSize = max(input.isStream ? options.streamRangeSize : options.rangeSize, 256)
    let workers = WorkerThreads()
    let board: RangeBoard
    let interest = sink.interest
    let name = displayName
    // A sink that only tallies Records has them tallied on the parsing threads, per range.
    let tallyTarget = sink.recordTallying
    let tallies = tallyTarget != nil
    // A sink that shares its work out has each parsing thread do it on its ranges' elements; the
    // workers are made here, one per thread (indexed by the thread's enlisting number).
    let sharing = tallies ? nil : sink as? RangeWorkSharing
    var rangeWorkers: [any RangeWorker] = []
    if let sharing {
      for _ in 0..<options.threads {
        guard let worker = sharing.makeRangeWorker() else { break }
        rangeWorkers.append(worker)
      }
      if rangeWorkers.count < options.threads { rangeWorkers = [] }
    }
    var size: Int?
    switch input {
    case .document(let document):
      let plan = RangePlan(documentSize: document.size, rangeSize: rangeSize, threads: options.threads)
      board = RangeBoard(count: plan.count, window: 2 * options.threads)
      size = document.size
      board.setParsers(
        workers.start(min(options.threads, plan.count)) {
          Self.work(
            board: board, document: document, plan: plan, interest: interest, tallies: tallies, workers: rangeWorkers)
        })
    case .stream(let source):
      board = RangeBoard(
        count: Int.max, window: 2 * options.threads, spareCapacity: 2 * StreamCutter.capacity(rangeSize: rangeSize))
      let cutter = StreamCutter(source: source, rangeSize: rangeSize)
      workers.start(1) { cutter.run(board) }
      workers.start(options.threads) {
        let parser = board.enlist()
        let builder = RangeBuilder(
          interest: interest, tallies: tallies, worker: rangeWorkers.isEmpty ? nil : rangeWorkers[parser],
          spareElements: board.spareElements)
        var scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: rangeSize + (64 << 10), alignment: 64)
        defer { scratch.deallocate() }
        while case (let index, var raw)? = board.claimRaw() {
          let outcome = RangeParser.parse(raw, name: name, builder: builder, scratch: &scratch)
          raw.bytes = []  // the board's is then the one reference: their storage is used again
          board.post(index, outcome)
        }
      }
    }
    defer {
      board.stop()
      workers.join()
    }
    guard workers.count > (size == nil ? 1 : 0) else {
      sequentialFrom = 0
      if case .stream(let source) = input, workers.count == 0 {
        return try XMLExportReader(options: options).readInSequence(source, format: format, into: sink)
      }
      return try readInSequence(board: board, into: sink)
    }

    var report = ReadReport(documentName: displayName, format: format)
    // A sink that words messages about an element with its place (the bundle's missing route
    // file) is told the element's end-tag position, as the sequential reader tells it.
    let locating = sink as? ElementLocating
    var place = (line: 1, column: 1)
    if let locating {
      locating.documentName = displayName
      locating.locate = { place }
    }
    defer { locating?.locate = nil }
    var counts = RangeCounts()
    var rootTag: [UInt8] = []
    var rootLine = 1
    var lineFeeds = 0
    var bytes = 0
    for index in 0..<Int.max {
      var outcome = board.take(index)
      if outcome.failed {
        sequentialFrom = outcome.start
        if index == 0 { return try readInSequence(board: board, into: sink) }
        bytes = try readInSequence(
          from: outcome.start, index: index, lineFeeds: lineFeeds, root: (rootTag, rootLine), board: board,
          into: sink, counts: &counts)
        break
      }
      if size == nil { board.release(raw: index) }
      if let header = outcome.header {
        report.hasBrokenDTD = outcome.hasBrokenDTD
        rootTag = outcome.rootTag
        rootLine = outcome.rootLine
        try deliver(lineFeeds, outcome.headerPosition) { try sink.begin(header) }
      }
      if let result = outcome.result { try sharing?.absorb(result) }
      var delivered = 0
      var recordsWeighed = 0
      while let element = outcome.elementsLastFirst.popLast() {
        let position = outcome.positions[delivered]
        if let tally = outcome.tally {
          // The tallied Records before this element, in their place (an `ExportDate` matters).
          tallyTarget?.weighStarts(of: tally, from: recordsWeighed, upTo: outcome.recordsBefore[delivered])
          recordsWeighed = outcome.recordsBefore[delivered]
        }
        delivered += 1
        if locating != nil { place = (Int(position >> 32) + lineFeeds, Int(position & 0xFFFF_FFFF)) }
        do {
          try sink.consume(element)
        } catch {
          throw located(error, lineFeeds, position)
        }
      }
      let emptied = outcome.elementsLastFirst
      outcome.elementsLastFirst = []
      if emptied.capacity * MemoryLayout<ExportElement>.stride <= 4 << 20 { board.spareElements.giveBack(emptied) }
      if let tally = outcome.tally {
        tallyTarget?.weighStarts(of: tally, from: recordsWeighed, upTo: tally.count)
        tallyTarget?.merge(tally)
      }
      counts.add(outcome.counts)
      lineFeeds += outcome.lineFeeds
      bytes = outcome.end
      if outcome.end > outcome.start { rangesDelivered += 1 }
      if let progress = options.progress {
        if let size { progress(Int64(outcome.end), Int64(size)) } else { progress(outcome.consumed, outcome.total) }
      }
      if outcome.isLast { break }
    }
    report.documentBytes = Int64(bytes)
    report.take(counts)
    try sink.end(report)
    return report
  }

  /// A worker: parses the ranges it claims until none is left.
  private static func work(
    board: RangeBoard, document: RandomAccessDocument, plan: RangePlan, interest: ElementInterest, tallies: Bool,
    workers: [any RangeWorker]
  ) {
    let scanner = BoundaryScanner(document: document)
    var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: plan.rangeSize + (64 << 10), alignment: 64)
    defer { buffer.deallocate() }
    let parser = board.enlist()
    let builder = RangeBuilder(
      interest: interest, tallies: tallies, worker: workers.isEmpty ? nil : workers[parser],
      spareElements: board.spareElements)
    while let index = board.claim(parser: parser) {
      var outcome = RangeOutcome()
      do {
        let limit = RangePlan.maximumRangeBytes
        // A stretch with no candidate boundary for that long (a huge text, blank lines,
        // whitespace between elements) is read in sequence from the range's start, in bounded
        // memory, not read whole into one range.
        // (A range whose start is not found follows one whose end was not: that one failed.)
        let start = index == 0 ? 0 : try scanner.boundary(atOrAfter: plan.target(index), within: limit)
        outcome.start = start ?? plan.target(index)
        guard let start, let end = try scanner.boundary(atOrAfter: max(start, plan.target(index + 1)), within: limit),
          end - start <= limit
        else {
          outcome.failed = true
          board.post(index, outcome)
          continue
        }
        outcome.start = start
        outcome.end = end
        if end > start {
          if buffer.count < end - start {
            buffer.deallocate()
            buffer = .allocate(byteCount: end - start, alignment: 64)
          }
          let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(end - start)])
          let read = try document.read(at: start, into: slice)
          outcome = RangeParser.parseWithMarkers(
            UnsafeMutableRawBufferPointer(rebasing: slice[0..<read]), start: start, isLast: end == document.size,
            name: document.displayName, builder: builder)
          if read < end - start { outcome.failed = true }  // the file shrank: read it in sequence
        } else if index == 0 {
          outcome.failed = true  // an empty document: the sequential reader names the problem
        }
        outcome.isLast = end == document.size
      } catch {
        outcome.failed = true  // a read error: the sequential reader reports it
      }
      board.post(index, outcome)
    }
  }

  /// Calls the sink; an error it throws is located at the element's end tag (see ``located``).
  private func deliver(_ lineFeeds: Int, _ position: UInt64, _ call: () throws -> Void) throws {
    do {
      try call()
    } catch {
      throw located(error, lineFeeds, position)
    }
  }

  /// An error the sink threw, located at the element's end tag and worded as the sequential
  /// reader words it (``XMLExportReader``). `lineFeeds`: those before the range.
  private func located(_ error: any Error, _ lineFeeds: Int, _ position: UInt64) -> any Error {
    guard error is ExportDataError || error is ExportLimitError || error is XMLStreamError else { return error }
    if let error = error as? XMLStreamError { return error.malformed }
    let line = Int(position >> 32) + lineFeeds
    return HealthPortError.malformed(displayName, line: line, column: Int(position & 0xFFFF_FFFF), "\(error)")
  }

  /// The whole document in sequence, as if read with one parser.
  private func readInSequence(board: RangeBoard, into sink: ExportSink) throws -> ReadReport {
    board.stopParsers()
    let reader = XMLExportReader(options: options)
    switch input {
    case .document(let document):
      return try reader.readInSequence(DocumentByteSource(document), format: format, into: sink)
    case .stream:
      return try reader.readInSequence(
        RemainingRanges(board: board, from: 0, name: displayName), format: format, into: sink)
    }
  }
}

/// A stream's ranges from `index` on, as the cutting thread makes them, as a ``ByteSource``: what
/// a read gone on in sequence is fed. The error that ended the stream comes after its bytes.
final class RemainingRanges: ByteSource {
  let displayName: String
  private let board: RangeBoard
  private var index: Int
  private var current: [UInt8] = []
  private var offset = 0
  private var readError: (any Error)?
  private var ended = false
  private(set) var totalBytes: Int64?
  private(set) var bytesConsumed: Int64 = 0

  init(board: RangeBoard, from index: Int, name: String) {
    self.board = board
    self.index = index
    displayName = name
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    while offset == current.count {
      if let error = readError {
        readError = nil
        throw error
      }
      guard !ended, let raw = board.takeRaw(index) else { return 0 }
      index += 1
      current = raw.bytes
      offset = 0
      readError = raw.readError
      ended = raw.isLast
      totalBytes = raw.total
      bytesConsumed = raw.consumed
    }
    let count = min(buffer.count, current.count - offset)
    current.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
    offset += count
    return count
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
