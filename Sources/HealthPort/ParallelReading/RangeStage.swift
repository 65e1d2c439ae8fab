/// A pipeline stage's share of a range's work on a parsing thread (``RangeWorkSharing``): what
/// it notes of each element, and whether the element goes on to the next stage.
///
/// ``StageWorker`` wraps a part around the next stage's worker. When that worker takes top-level
/// Records as their start tags (``RangeWorker/takesRecordTags``), the part decides on a Record
/// from its ``RecordHead`` and the worker hands the tag, children and end on, so that no stage
/// forwards the reader's tags by hand or needs to know them (a stage that forgot to forward them
/// turned the speed-up off).
protocol RangeStagePart: AnyObject {
  /// What the stage keeps of a range, handed to its ``RangeWorkSharing/absorb(_:)`` in a
  /// ``StageResult``.
  associatedtype Result
  /// Whether `element` goes on to the next stage, after noting what the stage needs of it.
  func pass(_ element: ExportElement) throws -> Bool
  /// Whether the top-level Record with this head goes on; its children and end go with it.
  func passRecord(_ head: RecordHead) throws -> Bool
  /// What the range gave; the part starts afresh on the next range.
  func finishRange() -> Result
}

/// The fields of a top-level Record's start tag that a stage decides on (``RangeStagePart``):
/// texts are the reader's bytes, valid only during the call.
struct RecordHead {
  var type: UnsafeBufferPointer<UInt8>
  var sourceName: UnsafeBufferPointer<UInt8>
  var startDate: HealthDate
  /// ``Record/sourceProduct``.
  var sourceProduct: String?
}

/// A stage's worker: its ``RangeStagePart`` in front of the next stage's worker.
final class StageWorker<Part: RangeStagePart>: RangeWorker {
  let part: Part
  let next: any RangeWorker
  /// Whether the open Record (given as its tag) went on.
  private var passedRecord = false

  init(_ part: Part, next: any RangeWorker) {
    self.part = part
    self.next = next
  }

  func process(_ element: consuming ExportElement) throws {
    if try part.pass(element) { try next.process(element) }
  }

  func finishRange() -> any RangeResult { StageResult(part.finishRange(), next: next.finishRange()) }

  var takesRecordTags: Bool { next.takesRecordTags }

  func startRecord(_ tag: borrowing RecordTag) throws {
    passedRecord = try part.passRecord(tag.head)
    if passedRecord { try next.startRecord(tag) }
  }

  func endRecord(children: borrowing RecordChildren, text: String?) throws {
    if passedRecord { try next.endRecord(children: children, text: text) }
  }
}
