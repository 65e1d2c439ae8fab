import XMLStream

#if canImport(Glibc)
  import Glibc
#endif

/// The ordered hand-off of a parallel read: workers claim range indices (at most `window` ahead
/// of the one the reader is delivering) and post each outcome; the reader takes them back in
/// index order. One `ConditionLock` guards it all.
final class RangeBoard: @unchecked Sendable {
  private let lock = ConditionLock()
  private let window: Int
  private let count: Int
  private var next = 0  // a stream's next range to parse
  private var taken = 0
  private var stopped = false
  private var outcomes: [Int: RangeOutcome] = [:]
  // A stream: the ranges the cutting thread made, kept until the reader takes their outcome.
  private var raws: [Int: RawRange] = [:]
  private var lastRaw: Int?
  private var parsersStopped = false

  /// `count` ranges in all; `window` of them claimed but not yet taken, at most. `spareCapacity`:
  /// see ``spareBytes``.
  init(count: Int, window: Int, spareCapacity: Int = 0) {
    self.count = count
    self.window = window
    self.spareCapacity = spareCapacity
  }

  // A document's ranges go to the parsers in turn (range i to parser i mod n), not to whichever
  // asks first: their work is then as even as the ranges are, however the threads are
  // scheduled (claimed first-come, one parser did 10 % more than the other under callgrind).
  // Delivery is in order anyway, so a faster parser could only run `window` ranges ahead.
  private var enlisted = 0
  private var parsers = 0
  private var nextOfParser: [Int] = []

  /// A parser's number, once at its start.
  func enlist() -> Int {
    lock.lock()
    defer { lock.unlock() }
    enlisted += 1
    return enlisted - 1
  }

  /// The number of parsers started (each of them enlisted or about to); until it is set, no range
  /// is claimed.
  func setParsers(_ count: Int) {
    lock.lock()
    parsers = count
    nextOfParser = Array(0..<count)
    lock.broadcast()
    lock.unlock()
  }

  /// Parser `parser`'s next range; nil when it has none left or the read stopped.
  func claim(parser: Int) -> Int? {
    lock.lock()
    defer { lock.unlock() }
    while !stopped, !parsersStopped, parsers == 0 { lock.wait() }
    guard !stopped, !parsersStopped, parser < parsers else { return nil }
    let index = nextOfParser[parser]
    while !stopped, !parsersStopped, index < count, index >= taken + window { lock.wait() }
    guard !stopped, !parsersStopped, index < count else { return nil }
    nextOfParser[parser] += parsers
    return index
  }

  func post(_ index: Int, _ outcome: RangeOutcome) {
    lock.lock()
    outcomes[index] = outcome
    lock.broadcast()
    lock.unlock()
  }

  /// Waits for range `index` (claimed already, or the next to claim) and takes its outcome.
  func take(_ index: Int) -> RangeOutcome {
    lock.lock()
    defer { lock.unlock() }
    while outcomes[index] == nil { lock.wait() }
    taken = index + 1
    lock.broadcast()
    return outcomes.removeValue(forKey: index)!
  }

  /// Lets no more ranges be claimed; the outcomes not taken are dropped.
  func stop() {
    lock.lock()
    stopped = true
    outcomes.removeAll()
    raws.removeAll()
    lock.broadcast()
    lock.unlock()
  }

  // MARK: A stream's ranges

  /// The cutting thread's: waits until range `index` is within the window, then posts it.
  /// False when the read stopped.
  func post(raw: RawRange, at index: Int) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    while !stopped, index >= taken + window { lock.wait() }
    guard !stopped else { return false }
    raws[index] = raw
    if raw.isLast { lastRaw = index }
    lock.broadcast()
    return true
  }

  /// A parser's: the next range the cutting thread made; nil when there is none left, or the
  /// parsers were stopped.
  func claimRaw() -> (Int, RawRange)? {
    lock.lock()
    defer { lock.unlock() }
    while !stopped, !parsersStopped, raws[next] == nil, lastRaw.map({ next <= $0 }) ?? true {
      lock.wait()
    }
    guard !stopped, !parsersStopped, let raw = raws[next] else { return nil }
    next += 1
    return (next - 1, raw)
  }

  /// The reader's, after it took range `index`'s outcome: its bytes are not needed again, and
  /// their storage goes to `spareBytes` for the cutting thread to fill again.
  func release(raw index: Int) {
    lock.lock()
    var bytes = raws.removeValue(forKey: index)?.bytes ?? []  // the one reference (a parser drops its own)
    lock.unlock()
    guard bytes.capacity > 0, bytes.capacity <= spareCapacity else { return }
    bytes.removeAll(keepingCapacity: true)
    spareBytes.giveBack(bytes)
  }

  /// Arrays of a range's elements, emptied by the reader (``Spares``).
  let spareElements = Spares<[ExportElement]>()

  /// The storage of a stream's ranges (``Spares``), of at most `spareCapacity` bytes each.
  let spareBytes = Spares<[UInt8]>()
  private let spareCapacity: Int

  /// The reader's, to read on in sequence: no parser claims another range, and the ranges'
  /// bytes are taken in order from here on (as the window lets the cutting thread go on).
  func stopParsers() {
    lock.lock()
    parsersStopped = true
    lock.broadcast()
    lock.unlock()
  }

  /// Waits for range `index`'s bytes and takes them.
  func takeRaw(_ index: Int) -> RawRange? {
    lock.lock()
    defer { lock.unlock() }
    while !stopped, raws[index] == nil { lock.wait() }
    guard let raw = raws.removeValue(forKey: index) else { return nil }
    taken = max(taken, index + 1)
    lock.broadcast()
    return raw
  }
}

/// A range cut from a stream, with what the stream had consumed when it was cut (for progress)
/// and the error that ended the stream after it, if any.
struct RawRange: @unchecked Sendable {
  var start: Int
  var bytes: [UInt8]
  var isLast: Bool
  /// Not cut at a candidate boundary (none came for too long): it fails unparsed.
  var isUncut = false
  var consumed: Int64 = 0
  var total: Int64?
  var readError: (any Error)?
}

/// Threads running one closure each, joined together.
final class WorkerThreads {
  private var threads: [pthread_t] = []

  private final class Work {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
  }

  /// Starts `count` threads running `body`; fewer when the system refuses more (at least one
  /// is needed: the caller is told by the count returned).
  @discardableResult
  func start(_ count: Int, _ body: @escaping () -> Void) -> Int {
    for _ in 0..<count {
      var thread = pthread_t()
      let work = Unmanaged.passRetained(Work(body)).toOpaque()
      let rc = pthread_create(
        &thread, nil,
        { argument in
          Unmanaged<Work>.fromOpaque(argument!).takeRetainedValue().body()
          return nil
        }, work)
      guard rc == 0 else {
        Unmanaged<Work>.fromOpaque(work).release()
        break
      }
      threads.append(thread)
    }
    return threads.count
  }

  var count: Int { threads.count }

  func join() {
    for thread in threads { pthread_join(thread, nil) }
    threads = []
  }
}
