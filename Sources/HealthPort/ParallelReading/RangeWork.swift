/// A sink whose work on an element needs no element before it, shared out to the parsing threads
/// of a parallel read (``ParallelExportReader``, issue 16).
///
/// Each parsing thread hands the elements of the ranges it parses to a ``RangeWorker`` of its
/// own, made by ``makeRangeWorker()``; the delivering thread then gives the sink each range's
/// ``RangeResult`` in document order (``absorb(_:)``), which must leave the sink as `consume`
/// of those elements would have. The CSV and JSON Lines writers encode their rows this way, so
/// that the delivering thread only writes bytes, and the elements are built, encoded and freed
/// on one thread (handing millions of them across threads cost more than encoding them).
///
/// A pipeline stage takes part by wrapping the next stage's worker in a ``StageWorker`` with a
/// ``RangeStagePart`` of its own (``CountingSink``, ``FilteringSink``, ``SourceNamesSink``), which
/// hands Records on as their tags when the next worker takes them; a stage or a sink that needs
/// every element in order returns nil, and the read hands elements on as before. A range that
/// fails (damage, a guessed boundary, or a worker that throws) is read again in sequence
/// through `consume`, so errors and their positions stay those of the sequential reader.
protocol RangeWorkSharing: ExportSink {
  /// A worker for one parsing thread; nil when the elements must reach `consume` in order.
  func makeRangeWorker() -> (any RangeWorker)?
  /// One range's result, ranges in document order.
  func absorb(_ result: any RangeResult) throws
}

/// One parsing thread's share of a ``RangeWorkSharing`` sink's work.
protocol RangeWorker: AnyObject {
  /// The range's next element. An error fails the range (it is then read in sequence).
  func process(_ element: consuming ExportElement) throws
  /// What the range gave; the worker starts afresh on the next range.
  func finishRange() -> any RangeResult
  /// True when top-level Records may come as ``startRecord(_:)`` and ``endRecord(children:)``
  /// instead of ``process(_:)``: the worker's output for a Record needs no more than its start
  /// tag's texts and its children, so the builder never makes the Record (``RecordTag``).
  var takesRecordTags: Bool { get }
  /// A top-level Record's start tag, checked; its children and ``endRecord(children:)`` follow.
  func startRecord(_ tag: borrowing RecordTag) throws
  /// The children of the Record whose tag came last, and its text (nil without any), at its end tag.
  func endRecord(children: borrowing RecordChildren, text: String?) throws
}

extension RangeWorker {
  var takesRecordTags: Bool { false }
  func startRecord(_ tag: borrowing RecordTag) throws {
    preconditionFailure("\(Self.self) takes no Record tags")
  }
  func endRecord(children: borrowing RecordChildren, text: String?) throws {
    preconditionFailure("\(Self.self) takes no Record tags")
  }
}

/// What a ``RangeWorker`` made of one range, handed to the delivering thread.
protocol RangeResult: AnyObject {}

extension ExportSink {
  /// A worker for a parallel read's parsing threads when this sink shares its work out.
  func rangeWorker() -> (any RangeWorker)? { (self as? RangeWorkSharing)?.makeRangeWorker() }
}

/// A stage's result: what it counted in the range, and the next stage's result.
final class StageResult<Own>: RangeResult {
  let own: Own
  let next: any RangeResult

  init(_ own: Own, next: any RangeResult) {
    self.own = own
    self.next = next
  }
}

/// Rows of text a range's elements were encoded to, for a writer to write in their place.
final class EncodedRows: RangeResult {
  var bytes = ByteBuffer(capacity: 1 << 20)
  /// Where each row ends in `bytes`.
  var rowEnds: [Int] = []
  var rows: Int { rowEnds.count }
  /// The value of an `ExportDate` that was the range's first element (JSON Lines' header shows it).
  var leadingExportDate: String?

  /// Made again or taken from `spares` (see ``Spares``).
  static func take(from spares: Spares<EncodedRows>) -> EncodedRows { spares.take() ?? EncodedRows() }

  /// Empties these rows, once written, for another range, and gives them to `spares`.
  func giveBack(to spares: Spares<EncodedRows>) {
    bytes.removeAll()
    bytes.removedCharacters = 0
    rowEnds.removeAll(keepingCapacity: true)
    leadingExportDate = nil
    spares.giveBack(self)
  }

  /// Ends a row (after its line feed).
  @inline(__always)
  func endRow() { rowEnds.append(bytes.count) }

  /// Writes the rows after `pending` (a writer's buffer) exactly where a writer appending them
  /// one by one would have: after each row that brings its buffer to ``OutputStream/blockSize``
  /// bytes. The rest is left in `pending`. So what reaches the output before an error (stdout
  /// cannot be taken back) is the one-thread reader's, byte for byte.
  func write(after pending: inout ByteBuffer, to output: OutputStream) throws {
    var buffered = pending.count
    var start = 0
    var written = 0
    for end in rowEnds {
      buffered += end - start
      start = end
      if buffered >= OutputStream.blockSize {
        written = end
        buffered = 0
      }
    }
    if written > 0 {
      if !pending.isEmpty {
        try output.write(pending)
        pending.removeAll()
      }
      try output.write(UnsafeRawBufferPointer(bytes.bytes(in: 0..<written)))
    }
    pending.append(bytes: bytes.bytes(in: written..<bytes.count))
  }
}

/// A sink that drops everything: the end of a stage used on its own, inside a worker.
final class DiscardingSink: ExportSink {
  func begin(_ header: ExportHeader) throws {}
  func consume(_ element: ExportElement) throws {}
  func end(_ report: ReadReport) throws {}
}
