import CLibXML2
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Runs the handler on a second thread: the parsing thread records libxml2's events on a tape
/// of fixed blocks, and a handler thread replays them in order.
///
/// libxml2 and the handler (building elements, writing them) then share the two cores instead of
/// taking turns on one, so a read costs about what libxml2 alone costs. Replay is exact: each
/// event carries the line and column libxml2 was at when it was read, and the names are
/// libxml2's own dictionary strings (alive as long as the parser context, which outlives the
/// handler thread), so the handler sees the same bytes, name identities and positions as
/// when it is called directly.
///
/// Threads: only the parsing thread records and calls ``finish()``; only the handler thread
/// touches the ``EventDispatcher``. The two semaphores hand each block from one to the other,
/// and with it the memory it holds. Memory is bounded by ``slotCount`` blocks (a block grows past
/// ``blockSize`` only for one start tag larger than that, and shrinks back when reused).
final class EventPipeline: @unchecked Sendable {
  /// Eight blocks of 32 KiB: the ring stays in the cores' caches, and a hand-over costs little
  /// next to the ~150 events a block holds. (128 KiB blocks cost more CPU time on the 1 GB file;
  /// 16 KiB blocks twice the context switches.)
  static let blockSize = 32 << 10
  static let slotCount = 8

  private struct Slot {
    var base: UnsafeMutableRawPointer
    var capacity: Int
    var used = 0
    var isLast = false
  }

  private enum Kind: UInt32 {
    case start, end, text
  }

  /// Event header: kind, attribute count or text length, line, column (4 × 4 bytes).
  private static let headerSize = 16

  private let slots: UnsafeMutablePointer<Slot>
  private let filled = CountingSemaphore(0)
  private let free = CountingSemaphore(EventPipeline.slotCount)
  private let dispatcher: EventDispatcher
  private let failed = Atomic<Bool>(false)
  private var thread: pthread_t?

  // Parsing thread only.
  private var produceIndex = 0
  private var cursor: UnsafeMutableRawPointer
  private var limit: UnsafeMutableRawPointer
  private var finished = false

  // Handler thread only.
  private var quintuples: [UnsafePointer<xmlChar>?] = []

  init(dispatcher: EventDispatcher) {
    self.dispatcher = dispatcher
    slots = .allocate(capacity: Self.slotCount)
    for index in 0..<Self.slotCount {
      let base = UnsafeMutableRawPointer.allocate(byteCount: Self.blockSize, alignment: 16)
      (slots + index).initialize(to: Slot(base: base, capacity: Self.blockSize))
    }
    free.wait()
    cursor = slots[0].base
    limit = slots[0].base + slots[0].capacity
  }

  deinit {
    finish()
    for index in 0..<Self.slotCount { slots[index].base.deallocate() }
    slots.deinitialize(count: Self.slotCount)
    slots.deallocate()
  }

  /// Starts the handler thread.
  func start() throws {
    var created = pthread_t()
    let box = Unmanaged.passRetained(self).toOpaque()
    let rc = pthread_create(
      &created, nil,
      { argument in
        let pipeline = Unmanaged<EventPipeline>.fromOpaque(argument!).takeRetainedValue()
        pipeline.consume()
        return nil
      }, box)
    guard rc == 0 else {
      Unmanaged<EventPipeline>.fromOpaque(box).release()
      throw PipelineError(code: rc)
    }
    thread = created
  }

  struct PipelineError: Error, CustomStringConvertible {
    let code: Int32
    var description: String { "cannot start the handler thread (error \(code))" }
  }

  /// True once the handler failed; the parser should stop.
  var handlerFailed: Bool { failed.load(ordering: .relaxed) }

  // MARK: Recording (parsing thread)

  @inline(__always)
  private static func roundUp(_ count: Int) -> Int { (count + 7) & ~7 }

  /// Makes room for `size` bytes in the current block, handing it over when it is full.
  @inline(__always)
  private func reserve(_ size: Int) -> UnsafeMutableRawPointer {
    if limit - cursor < size { advance(toFit: size) }
    let start = cursor
    cursor += size
    return start
  }

  private func advance(toFit size: Int) {
    let slot = slots + produceIndex
    if cursor != slot.pointee.base {
      publish(isLast: false)
    }
    let current = slots + produceIndex
    if current.pointee.capacity < size || current.pointee.capacity > Self.blockSize && size <= Self.blockSize {
      current.pointee.base.deallocate()
      let capacity = max(size, Self.blockSize)
      current.pointee.base = .allocate(byteCount: capacity, alignment: 16)
      current.pointee.capacity = capacity
    }
    cursor = current.pointee.base
    limit = cursor + current.pointee.capacity
  }

  /// Hands the current block to the handler thread and takes the next free one.
  private func publish(isLast: Bool) {
    let slot = slots + produceIndex
    slot.pointee.used = cursor - slot.pointee.base
    slot.pointee.isLast = isLast
    filled.signal()
    guard !isLast else { return }
    produceIndex = (produceIndex + 1) % Self.slotCount
    free.wait()
    let next = slots + produceIndex
    next.pointee.used = 0
    cursor = next.pointee.base
    limit = cursor + next.pointee.capacity
  }

  @inline(__always)
  private static func header(_ at: UnsafeMutableRawPointer, _ kind: Kind, _ count: Int, _ line: Int32, _ column: Int32)
  {
    at.storeBytes(of: kind.rawValue, as: UInt32.self)
    at.storeBytes(of: UInt32(truncatingIfNeeded: count), toByteOffset: 4, as: UInt32.self)
    at.storeBytes(of: line, toByteOffset: 8, as: Int32.self)
    at.storeBytes(of: column, toByteOffset: 12, as: Int32.self)
  }

  /// Layout: header, name pointer, then per attribute its name pointer and value length, then
  /// the values one after another.
  func recordStart(
    _ name: UnsafePointer<xmlChar>, _ count: Int, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?,
    line: Int32, column: Int32
  ) {
    let count = attributes == nil ? 0 : count
    var valueBytes = 0
    for index in 0..<count {
      valueBytes += attributes![index * 5 + 4]! - attributes![index * 5 + 3]!
    }
    let fixed = Self.headerSize + 8 + 16 * count
    let at = reserve(fixed + Self.roundUp(valueBytes))
    Self.header(at, .start, count, line, column)
    at.storeBytes(of: UInt(bitPattern: name), toByteOffset: Self.headerSize, as: UInt.self)
    var entry = at + Self.headerSize + 8
    var value = at + fixed
    for index in 0..<count {
      let begin = attributes![index * 5 + 3]!
      let length = attributes![index * 5 + 4]! - begin
      entry.storeBytes(of: UInt(bitPattern: attributes![index * 5]), as: UInt.self)
      entry.storeBytes(of: length, toByteOffset: 8, as: Int.self)
      entry += 16
      if length > 0 { value.copyMemory(from: begin, byteCount: length) }
      value += length
    }
  }

  func recordEnd(_ name: UnsafePointer<xmlChar>, line: Int32, column: Int32) {
    let at = reserve(Self.headerSize + 8)
    Self.header(at, .end, 0, line, column)
    at.storeBytes(of: UInt(bitPattern: name), toByteOffset: Self.headerSize, as: UInt.self)
  }

  func recordText(_ bytes: UnsafePointer<xmlChar>, _ length: Int, line: Int32, column: Int32) {
    let at = reserve(Self.headerSize + Self.roundUp(length))
    Self.header(at, .text, length, line, column)
    (at + Self.headerSize).copyMemory(from: bytes, byteCount: length)
  }

  /// Hands over what is recorded, ends the handler thread and waits for it. After this the
  /// dispatcher holds the handler's first error, if any. Idempotent.
  func finish() {
    guard !finished else { return }
    finished = true
    publish(isLast: true)
    if let thread { pthread_join(thread, nil) }
    thread = nil
  }

  // MARK: Replay (handler thread)

  private func consume() {
    var index = 0
    while true {
      filled.wait()
      let slot = slots[index]
      if !failed.load(ordering: .relaxed) {
        replay(UnsafeRawPointer(slot.base), slot.used)
        if dispatcher.failure != nil { failed.store(true, ordering: .relaxed) }
      }
      free.signal()
      if slot.isLast { return }
      index = (index + 1) % Self.slotCount
    }
  }

  private func replay(_ base: UnsafeRawPointer, _ used: Int) {
    var at = base
    let end = base + used
    while at < end, dispatcher.failure == nil {
      let kind = at.load(as: UInt32.self)
      let count = Int(at.load(fromByteOffset: 4, as: UInt32.self))
      dispatcher.line = at.load(fromByteOffset: 8, as: Int32.self)
      dispatcher.column = at.load(fromByteOffset: 12, as: Int32.self)
      switch Kind(rawValue: kind)! {
      case .start:
        let name = UnsafePointer<xmlChar>(bitPattern: at.load(fromByteOffset: Self.headerSize, as: UInt.self))!
        let fixed = Self.headerSize + 8 + 16 * count
        var entry = at + Self.headerSize + 8
        var value = (at + fixed).assumingMemoryBound(to: xmlChar.self)
        quintuples.removeAll(keepingCapacity: true)
        for _ in 0..<count {
          let length = entry.load(fromByteOffset: 8, as: Int.self)
          quintuples.append(UnsafePointer(bitPattern: entry.load(as: UInt.self)))
          quintuples.append(nil)
          quintuples.append(nil)
          quintuples.append(UnsafePointer(value))
          quintuples.append(UnsafePointer(value + length))
          value += length
          entry += 16
        }
        let valueBytes = UnsafeRawPointer(value) - (at + fixed)
        quintuples.withUnsafeMutableBufferPointer { dispatcher.start(name, count, count == 0 ? nil : $0.baseAddress) }
        at += fixed + Self.roundUp(valueBytes)
      case .end:
        let name = UnsafePointer<xmlChar>(bitPattern: at.load(fromByteOffset: Self.headerSize, as: UInt.self))!
        dispatcher.end(name)
        at += Self.headerSize + 8
      case .text:
        dispatcher.characters((at + Self.headerSize).assumingMemoryBound(to: xmlChar.self), count)
        at += Self.headerSize + Self.roundUp(count)
      }
    }
  }
}

/// A counting semaphore on a pthread mutex and condition variable. (libdispatch's traps when it
/// is released with a count below its initial one, which a pipeline stopped early leaves.)
final class CountingSemaphore: @unchecked Sendable {
  private let lock = ConditionLock()
  private var count: Int

  init(_ count: Int) {
    self.count = count
  }

  func wait() {
    lock.lock()
    while count == 0 { lock.wait() }
    count -= 1
    lock.unlock()
  }

  func signal() {
    lock.lock()
    count += 1
    lock.signal()
    lock.unlock()
  }
}
