/// One sample as ``RewriteCollapse`` compares it: 40 bytes, written to scratch files as they are.
struct CollapsibleSample: Equatable {
  var start: Int64
  /// The end as written (a rewrite repeats it exactly).
  var end: Int64
  /// The value compared: a number's bit pattern (``RewriteCollapse/key(number:)``), or a key of the
  /// value as written (``RewriteCollapse/key(text:)``).
  var value: UInt64
  /// Document order, given by ``RewriteCollapse``, in the high 40 bits; the low 24 hold the
  /// caller's `extra` (``extra``), which orders nothing: the document order above it is unique.
  var sequence: UInt64
  /// The caller's id of the sample's source name, type and unit: only samples of one group can
  /// be rewrites of each other.
  var group: UInt32
  /// The caller's own (a period key); not compared.
  var tag: Int32

  /// The caller's own number given to ``RewriteCollapse/add(start:end:value:group:tag:extra:)``.
  var extra: UInt32 { UInt32(truncatingIfNeeded: sequence & RewriteCollapse.extraMask) }

  /// Everything but `tag` and `sequence` equal: `other` is a rewrite of this sample, or the reverse.
  func sameSample(as other: CollapsibleSample) -> Bool {
    start == other.start && end == other.end && group == other.group && value == other.value
  }

  /// The order samples are sorted and merged in: by start, end, group and value, document order
  /// last (so that, of a sample and its rewrites, the first in the document comes first).
  static func precedes(_ a: CollapsibleSample, _ b: CollapsibleSample) -> Bool {
    if a.start != b.start { return a.start < b.start }
    if a.end != b.end { return a.end < b.end }
    if a.group != b.group { return a.group < b.group }
    if a.value != b.value { return a.value < b.value }
    return a.sequence < b.sequence
  }
}

/// Drops rewrites (docs/steps.md, "Rewrites and duplicated workouts"): a sample with the same source
/// name, type, unit, start and end instants and value as an earlier one in the document, whatever
/// its creation date, device or metadata. The first in document order stays.
///
/// A rewrite can be anywhere after its original, so every sample is kept until the end, in
/// bounded memory: samples are gathered up to ``memoryLimit`` bytes (4 MiB), sorted in place, and written as one
/// sorted run to a nameless scratch file (``ScratchFile``: it goes on exit and on every signal);
/// ``finish(_:)`` merges the runs, so one pass over them in sorted order meets each sample right
/// after its original. Memory: the limit; while merging, 32 KiB per run, or the limit shared by
/// the runs when there are more (a 4 GB export's heart rates make about two hundred runs).
final class RewriteCollapse {
  /// What the samples are, for messages about the scratch file.
  let purpose: String
  let memoryLimit: Int
  /// False: ``finish(_:)`` passes every sample on, rewrites included (counting them all the same).
  let dropsRewrites: Bool
  private var samples: [CollapsibleSample] = []
  private var capacity: Int
  private var sequence: UInt64 = 0
  private var scratch: ScratchFile?
  /// The runs written, as (first sample's index in the scratch file, count).
  private var runs: [(first: Int64, count: Int)] = []

  static let stride = MemoryLayout<CollapsibleSample>.stride

  /// The bits of ``CollapsibleSample/sequence`` that hold the caller's `extra`.
  static let extraBits: UInt64 = 24
  static let extraMask: UInt64 = (1 << extraBits) - 1

  init(purpose: String, memoryLimit: Int = 4 << 20, dropsRewrites: Bool = true) {
    self.purpose = purpose
    self.memoryLimit = memoryLimit
    self.dropsRewrites = dropsRewrites
    capacity = max(16, memoryLimit / Self.stride)
  }

  /// The key of a number: its bit pattern, with -0 the same as 0.
  static func key(number: Double) -> UInt64 { (number == 0 ? 0 : number).bitPattern }

  /// The value of a Record as rewrites are compared: the number for a quantity type, else the
  /// value as written.
  static func key(of record: Record) -> UInt64 {
    if record.type.hasPrefix("HKQuantityTypeIdentifier"), let number = record.numericValue {
      return key(number: number)
    }
    return key(text: record.value ?? "")
  }

  /// The key of a value as written: a 64-bit FNV-1a digest of its UTF-8 bytes (two different
  /// values of one source, type, unit and instants that collide are one in 2⁶⁴).
  static func key(text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return hash
  }

  /// Adds a sample; `extra` (below 2²⁴) comes back with it (``CollapsibleSample/extra``).
  func add(start: Int64, end: Int64, value: UInt64, group: UInt32, tag: Int32, extra: UInt32 = 0) throws {
    // Reserved whole once there are more than a few: growing by doubling would hold the old and
    // the new buffer at once.
    if samples.count == 1024 { samples.reserveCapacity(capacity) }
    samples.append(
      CollapsibleSample(
        start: start, end: end, value: value, sequence: sequence << Self.extraBits | UInt64(extra) & Self.extraMask,
        group: group, tag: tag))
    sequence += 1
    if samples.count >= capacity { try spill() }
  }

  /// Sorts the samples gathered and writes them as one run.
  private func spill() throws {
    Self.sortInPlace(&samples)
    let file = try scratch ?? ScratchFile(purpose: purpose)
    scratch = file
    runs.append((file.size / Int64(Self.stride), samples.count))
    try samples.withUnsafeBytes { try file.append($0) }
    samples.removeAll(keepingCapacity: true)
  }

  /// Calls `body` with every sample that is no rewrite, ascending by start, end, group and value;
  /// returns how many rewrites each group had (indexed by group, as long as the largest group
  /// seen plus one). Call once.
  func finish(_ body: (CollapsibleSample) throws -> Void) throws -> [Int] {
    var dropped: [Int] = []
    var last: CollapsibleSample?
    func visit(_ sample: CollapsibleSample) throws {
      if let last, last.sameSample(as: sample) {
        let group = Int(sample.group)
        if dropped.count <= group { dropped += [Int](repeating: 0, count: group + 1 - dropped.count) }
        dropped[group] += 1
        if dropsRewrites { return }
      }
      last = sample
      try body(sample)
    }
    if runs.isEmpty {
      Self.sortInPlace(&samples)
      for sample in samples { try visit(sample) }
      samples = []
      return dropped
    }
    if !samples.isEmpty { try spill() }
    samples = []
    guard let scratch else { return dropped }
    var merge = try RunMerge(scratch: scratch, runs: runs, memoryLimit: memoryLimit)
    while let sample = try merge.next() { try visit(sample) }
    return dropped
  }
}

extension RewriteCollapse {
  /// Heapsort by ``CollapsibleSample/precedes(_:_:)``, which is a total order (document order
  /// last), so stability does not matter: unlike the standard library's sort it allocates
  /// nothing, where a buffer of half the samples would raise the peak by half the limit.
  static func sortInPlace(_ samples: inout [CollapsibleSample]) {
    samples.withUnsafeMutableBufferPointer { buffer in
      func siftDown(_ start: Int, _ end: Int) {
        var parent = start
        while true {
          var child = 2 * parent + 1
          guard child < end else { return }
          if child + 1 < end, CollapsibleSample.precedes(buffer[child], buffer[child + 1]) { child += 1 }
          guard CollapsibleSample.precedes(buffer[parent], buffer[child]) else { return }
          buffer.swapAt(parent, child)
          parent = child
        }
      }
      let count = buffer.count
      guard count > 1 else { return }
      for start in Swift.stride(from: count / 2 - 1, through: 0, by: -1) { siftDown(start, count) }
      for end in Swift.stride(from: count - 1, to: 0, by: -1) {
        buffer.swapAt(0, end)
        siftDown(0, end)
      }
    }
  }
}

/// The k-way merge of the sorted runs in a scratch file: a binary heap of the runs' next samples,
/// each run read a block at a time.
private struct RunMerge {
  private final class Cursor {
    var next: Int64
    var remaining: Int
    var buffer: [CollapsibleSample] = []
    var index = 0
    /// Samples read at a time.
    let block: Int

    init(first: Int64, count: Int, block: Int) {
      next = first
      remaining = count
      self.block = block
    }

    var head: CollapsibleSample { buffer[index] }

    /// Moves to the next sample; false when the run is done.
    func advance(_ scratch: ScratchFile) throws -> Bool {
      index += 1
      if index < buffer.count { return true }
      guard remaining > 0 else { return false }
      let count = min(remaining, block)
      buffer = [CollapsibleSample](
        repeating: CollapsibleSample(start: 0, end: 0, value: 0, sequence: 0, group: 0, tag: 0), count: count)
      try buffer.withUnsafeMutableBytes { try scratch.read(into: $0, at: next * Int64(RewriteCollapse.stride)) }
      next += Int64(count)
      remaining -= count
      index = 0
      return true
    }
  }

  private let scratch: ScratchFile
  private var heap: [Cursor] = []

  /// Each run is read 32 KiB at a time, less when the runs would hold more than `memoryLimit`
  /// together (but at least 4 KiB).
  init(scratch: ScratchFile, runs: [(first: Int64, count: Int)], memoryLimit: Int) throws {
    self.scratch = scratch
    let bytes = max(4 << 10, min(32 << 10, memoryLimit / max(1, runs.count)))
    let block = max(1, bytes / RewriteCollapse.stride)
    for run in runs {
      let cursor = Cursor(first: run.first, count: run.count, block: block)
      cursor.index = -1
      if try cursor.advance(scratch) { push(cursor) }
    }
  }

  mutating func next() throws -> CollapsibleSample? {
    guard let top = heap.first else { return nil }
    let sample = top.head
    if try top.advance(scratch) {
      siftDown(0)
    } else {
      let last = heap.removeLast()
      if !heap.isEmpty {
        heap[0] = last
        siftDown(0)
      }
    }
    return sample
  }

  private mutating func push(_ cursor: Cursor) {
    heap.append(cursor)
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard CollapsibleSample.precedes(heap[child].head, heap[parent].head) else { break }
      heap.swapAt(parent, child)
      child = parent
    }
  }

  private mutating func siftDown(_ start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      guard left < heap.count else { return }
      var child = left
      if left + 1 < heap.count, CollapsibleSample.precedes(heap[left + 1].head, heap[left].head) { child = left + 1 }
      guard CollapsibleSample.precedes(heap[child].head, heap[parent].head) else { return }
      heap.swapAt(parent, child)
      parent = child
    }
  }
}

/// The groups of ``RewriteCollapse``: one id per source name, type and unit, in order of first
/// appearance, and the per-source counts of what was dropped.
struct RewriteGroups {
  struct Key: Hashable {
    let sourceName: String
    let type: String
    let unit: String?
  }

  private var ids = FirstSeenIDs<Key, UInt32>()
  var keys: [Key] { ids.values }
  private var last: (key: Key, id: UInt32)?

  mutating func id(sourceName: String, type: String, unit: String?) -> UInt32 {
    if let last, last.key.sourceName == sourceName, last.key.type == type, last.key.unit == unit { return last.id }
    let key = Key(sourceName: sourceName, type: type, unit: unit)
    let id = ids.id(of: key)
    last = (key, id)
    return id
  }

  /// `dropped` (per group, from ``RewriteCollapse/finish(_:)``) per source name, in order of first
  /// appearance, names with none left out.
  func countsBySource(_ dropped: [Int]) -> [StepTotals.RewriteCount] {
    StepTotals.RewriteCount.perSource(dropped) { keys[$0].sourceName }
  }

}
