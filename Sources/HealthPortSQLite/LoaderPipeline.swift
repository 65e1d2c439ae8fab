import Foundation
import HealthPort

/// Runs a sink on a second thread: the reader's thread parses and hands over batches of elements
/// through a small bounded queue, so parsing and SQLite work overlap. Memory stays flat: at most
/// `capacity` batches wait, each of at most `batchSize` elements and `batchWeight` elements
/// counted with their children (a heart-rate-variability Record holds a hundred beats: batches of
/// 1,024 of them made a 1 GB export's peak 35 MB higher than a 100 MB one's). SQLite is the
/// slower side, so the queue is always full: four batches of 4,096 beats held 7.5 MB more heap
/// in gen_export's heart-rate-variability Records than in plain ones, two of 1,024 under 3 MB.
/// The first error on either side stops both and is rethrown (the sink's as `storeError` words
/// it, naming the database).
final class LoaderPipeline: ExportSink, @unchecked Sendable {
  private enum Message {
    case begin(ExportHeader)
    case elements([ExportElement])
    case sideFile(SideFileEvent)
    case end(ReadReport)
    /// The reader failed: commit what was handed over (``SQLiteLoader/commitPartial()``).
    case partial
  }

  private let sink: SQLiteLoader
  private let storeError: @Sendable (Error) -> Error
  private let batchSize: Int
  private let batchWeight: Int
  private let capacity: Int
  private let condition = NSCondition()
  // Guarded by `condition`.
  private var queue: [Message] = []
  private var failure: Error?
  private var cancelled = false
  private var workerDone = false
  /// Batches the worker has loaded, handed back so that the producer's thread frees them: the
  /// SQLite thread is the slower one, and releasing thousands of elements' strings and arrays is
  /// work it need not do.
  private var spent: [[ExportElement]] = []
  // Producer side only.
  private var batch: [ExportElement] = []
  private var weight = 0

  init(
    sink: SQLiteLoader, batchSize: Int = 1024, batchWeight: Int = 1024, capacity: Int = 2,
    storeError: @escaping @Sendable (Error) -> Error = { $0 }
  ) {
    self.sink = sink
    self.storeError = storeError
    self.batchSize = batchSize
    self.batchWeight = batchWeight
    self.capacity = capacity
    batch.reserveCapacity(batchSize)
    let thread = Thread { [self] in work() }
    thread.name = "healthport-sqlite"
    thread.start()
  }

  func begin(_ header: ExportHeader) throws { try send(.begin(header)) }

  func consume(_ element: ExportElement) throws {
    batch.append(element)
    weight += Self.weight(element)
    if batch.count >= batchSize || weight >= batchWeight {
      let full = batch
      batch.removeAll(keepingCapacity: true)
      weight = 0
      try send(.elements(full))
    }
  }

  /// An element and its children (a heart-rate-variability list's beats, a correlation's
  /// records), counted one each: what a batch holds in memory, roughly.
  static func weight(_ element: ExportElement) -> Int {
    func weight(_ record: Record) -> Int {
      var total = 1 + record.children.count
      for case .heartRateVariability(let list) in record.children { total += list.children.count }
      return total
    }
    switch element {
    case .record(let record): return weight(record)
    case .correlation(let correlation):
      var total = 1
      for child in correlation.children {
        if case .record(let record) = child { total += weight(record) } else { total += 1 }
      }
      return total
    case .workout(let workout): return 1 + workout.children.count
    default: return 1
    }
  }

  var capabilities: SinkCapabilities { .sideFiles }

  /// Hands over the elements batched so far, then the event (in order).
  func consumeSideFile(_ event: SideFileEvent) throws {
    if !batch.isEmpty {
      let rest = batch
      batch.removeAll(keepingCapacity: true)
      weight = 0
      try send(.elements(rest))
    }
    try send(.sideFile(event))
  }

  /// Hands over the rest, then waits until the sink has finished (and rethrows its error).
  func end(_ report: ReadReport) throws {
    if !batch.isEmpty {
      let rest = batch
      batch.removeAll()
      weight = 0
      try send(.elements(rest))
    }
    try send(.end(report))
    try waitForWorker()
  }

  /// True when the sink failed (its error is what the reader rethrew), as opposed to the reader.
  var sinkFailed: Bool {
    condition.lock()
    defer { condition.unlock() }
    return failure != nil
  }

  /// After the reader's own error: hands over the elements read before it, has the sink commit
  /// them (``SQLiteLoader/commitPartial()``), waits, and rethrows the sink's error, if any.
  func finishAfterReadError() throws {
    if !batch.isEmpty {
      let rest = batch
      batch.removeAll()
      weight = 0
      try send(.elements(rest))
    }
    try send(.partial)
    try waitForWorker()
  }

  /// Stops the worker after the message it is handling (the sink failed); waits for it.
  func cancel() {
    condition.lock()
    cancelled = true
    condition.broadcast()
    condition.unlock()
    try? waitForWorker()
  }

  private func send(_ message: Message) throws {
    var garbage: [[ExportElement]] = []
    condition.lock()
    defer {
      condition.unlock()
      garbage.removeAll()  // outside the lock
    }
    while queue.count >= capacity, failure == nil, !workerDone { condition.wait() }
    swap(&garbage, &spent)
    if let failure { throw failure }
    queue.append(message)
    condition.broadcast()
  }

  private func waitForWorker() throws {
    condition.lock()
    defer { condition.unlock() }
    while !workerDone { condition.wait() }
    if let failure { throw failure }
  }

  private func work() {
    while true {
      condition.lock()
      while queue.isEmpty, !cancelled { condition.wait() }
      if cancelled {
        workerDone = true
        condition.broadcast()
        condition.unlock()
        return
      }
      var message: Message? = queue.removeFirst()
      condition.broadcast()
      condition.unlock()
      var last = false
      do {
        switch message! {
        case .begin(let header): try sink.begin(header)
        case .elements(let elements):
          for element in elements { try sink.consume(element) }
          message = nil
          condition.lock()
          spent.append(elements)
          condition.unlock()
        case .sideFile(let event): try sink.consumeSideFile(event)
        case .end(let report):
          try sink.end(report)
          last = true
        case .partial:
          try sink.commitPartial()
          last = true
        }
      } catch {
        let error = storeError(error)
        condition.lock()
        failure = error
        workerDone = true
        condition.broadcast()
        condition.unlock()
        return
      }
      if last {
        condition.lock()
        workerDone = true
        condition.broadcast()
        condition.unlock()
        return
      }
    }
  }
}
