/// One row of a per-period total: `period,value,samples`.
public struct PeriodTotal: Hashable, Sendable {
  /// The sortable period key (``PeriodKind/key(forDay:)``).
  public var key: Int
  /// `YYYY-MM-DD`, `YYYY-Www`, `YYYY-MM` or `YYYY`.
  public var period: String
  public var value: Double
  public var samples: Int

  public init(key: Int, period: String, value: Double, samples: Int) {
    self.key = key
    self.period = period
    self.value = value
    self.samples = samples
  }
}

/// Sums `HKQuantityTypeIdentifierStepCount` per period, as they are or de-duplicated across
/// sources the way the Health app shows them.
///
/// A sample counts in the period of its start date's local day (``ZoneRule``).
///
/// De-duplication (`dedupe`), deterministic:
/// 1. Sources are ranked: samples whose source product is Watch first, then iPhone, then every
///    other source name in the order it first appears among the step samples read. `priority`
///    (products or source names, case-insensitive, best first) goes before that default order;
///    sources it does not list follow in the default order. Samples of equal rank never displace
///    each other.
/// 2. Time is cut at every sample's start and end. In each segment only the samples of the best
///    rank covering it count, each with `value × segment length / sample length`, credited to the
///    period of that sample's start date.
/// 3. A zero-length sample counts fully unless a better-ranked sample covers its instant: a
///    sample with `start ≤ t < end`, or a zero-length sample at the same instant.
/// 4. `samples` counts the samples that contributed more than zero.
///
/// Memory: without `dedupe`, one running total per period. With `dedupe`, one 32-byte entry per
/// step sample (start, end, value, and rank + period packed in 64 bits), sorted and swept once at
/// the end; the sweep keeps only the samples active at one instant.
public final class StepTotals: ExportSink {
  public static let stepType = "HKQuantityTypeIdentifierStepCount"

  public struct Configuration {
    public var by: PeriodKind = .day
    public var zone: ZoneRule = .written
    public var dedupe = false
    /// `--priority` entries: products or source names, best first.
    public var priority: [String] = []
    public init() {}
  }

  public let configuration: Configuration
  private var mapper: PeriodMapper
  private var totals: [Int: (value: Double, samples: Int)] = [:]
  private var currentKey = Int.min
  private var currentValue = 0.0
  private var currentSamples = 0

  // De-duplication state.
  private var entries: [StepEntry] = []
  private struct SourceKey: Hashable {
    let name: String
    let product: String?
  }
  private var sourceIDs: [SourceKey: Int] = [:]
  private var sources: [SourceKey] = []
  private var lastSource: (name: String, product: String?, id: Int)?

  public private(set) var result: [PeriodTotal] = []

  public init(_ configuration: Configuration) {
    self.configuration = configuration
    mapper = PeriodMapper(kind: configuration.by, zone: configuration.zone)
  }

  public func begin(_ header: ExportHeader) throws {}

  public func consume(_ element: ExportElement) throws {
    guard case .record(let record) = element, record.type == Self.stepType else { return }
    try add(record)
  }

  /// Adds one step sample (used by ``consume(_:)``; public for tests and other callers).
  public func add(_ record: Record) throws {
    guard let value = record.numericValue else {
      throw HealthPortError(
        .malformed,
        "healthport: error: the StepCount sample starting \(record.startDate) has a non-numeric value '\(record.value ?? "")'"
      )
    }
    let key = mapper.key(record.startDate)
    if configuration.dedupe {
      let id = sourceID(name: record.sourceName, product: record.sourceProduct)
      let start = record.startDate.secondsSince1970
      let end = max(start, record.endDate.secondsSince1970)
      entries.append(StepEntry(start: start, end: end, value: value, rank: id, period: key, zeroLength: end == start))
    } else {
      if key != currentKey { flushCurrent(newKey: key) }
      currentValue += value
      currentSamples += 1
    }
  }

  private func flushCurrent(newKey: Int) {
    if currentKey != Int.min {
      let old = totals[currentKey] ?? (0, 0)
      totals[currentKey] = (old.value + currentValue, old.samples + currentSamples)
    }
    currentKey = newKey
    currentValue = 0
    currentSamples = 0
  }

  private func sourceID(name: String, product: String?) -> Int {
    if let last = lastSource, last.name == name, last.product == product { return last.id }
    let key = SourceKey(name: name, product: product)
    let id: Int
    if let found = sourceIDs[key] {
      id = found
    } else {
      id = sources.count
      sourceIDs[key] = id
      sources.append(key)
    }
    lastSource = (name, product, id)
    return id
  }

  public func end(_ report: ReadReport) throws { finish() }

  /// Computes ``result`` (called by ``end(_:)``).
  public func finish() {
    if configuration.dedupe {
      totals = [:]
      sweep()
    } else {
      flushCurrent(newKey: Int.min)
    }
    result = totals.keys.sorted().map { key in
      let total = totals[key] ?? (0, 0)
      return PeriodTotal(
        key: key, period: configuration.by.label(forKey: key), value: total.value, samples: total.samples)
    }
  }

  /// The rank of every source id: listed priorities first, then Watch, iPhone, and other source
  /// names in order of first appearance.
  func ranks() -> [Int] {
    let priority = configuration.priority.map { $0.lowercased() }
    var otherNames: [String: Int] = [:]
    var ranks: [Int] = []
    for source in sources {
      let product = source.product?.lowercased()
      let name = source.name.lowercased()
      if let index = priority.firstIndex(where: { $0 == product || $0 == name }) {
        ranks.append(index)
      } else if product == "watch" {
        ranks.append(priority.count)
      } else if product == "iphone" {
        ranks.append(priority.count + 1)
      } else {
        // Source names in order of first appearance (a name seen with several products is one source).
        let next = otherNames.count
        let order = otherNames[source.name] ?? next
        if order == next { otherNames[source.name] = next }
        ranks.append(priority.count + 2 + order)
      }
    }
    return ranks
  }

  private func credit(_ key: Int, _ share: Double) {
    let old = totals[key] ?? (0, 0)
    totals[key] = (old.value + share, old.samples + 1)
  }

  /// The sweep over all samples sorted by start (see the type's documentation).
  private func sweep() {
    let ranks = ranks()
    let rankCount = (ranks.max() ?? -1) + 1
    for index in entries.indices { entries[index].rank = ranks[entries[index].rank] }
    entries.sort { ($0.start, $0.end, $0.packed, $0.value) < ($1.start, $1.end, $1.packed, $1.value) }

    // covered[r]: total time during which rank r was the best rank covering the timeline.
    var covered = [Int64](repeating: 0, count: rankCount)
    var active = [Int](repeating: 0, count: rankCount)
    var activeCount = 0
    var best = Int.max
    var heap = EndHeap()
    var time: Int64 = 0
    var next = 0
    let count = entries.count

    while next < count || !heap.isEmpty {
      let nextStart = next < count ? entries[next].start : Int64.max
      let nextEnd = heap.first?.end ?? Int64.max
      let now = min(nextStart, nextEnd)
      if activeCount > 0 { covered[best] += now - time }
      time = now

      // Samples ending now: their covered share is final.
      while let top = heap.first, top.end == now {
        heap.pop()
        let entry = entries[top.index]
        let rank = entry.rank
        active[rank] -= 1
        activeCount -= 1
        if active[rank] == 0 && rank == best {
          best = Int.max
          if activeCount > 0 {
            var candidate = rank + 1
            while active[candidate] == 0 { candidate += 1 }
            best = candidate
          }
        }
        let length = entry.end  // replaced by the length at its start
        let part = covered[rank] - entry.start  // replaced by the covered snapshot at its start
        let share = part == length ? entry.value : entry.value * Double(part) / Double(length)
        if share > 0 { credit(entry.period, share) }
      }

      guard nextStart == now else { continue }
      // Samples starting now: positive-length ones become active, zero-length ones are settled.
      var groupEnd = next
      var bestZero = Int.max
      while groupEnd < count, entries[groupEnd].start == now {
        let entry = entries[groupEnd]
        let rank = entry.rank
        if entry.zeroLength {
          bestZero = min(bestZero, rank)
        } else {
          active[rank] += 1
          activeCount += 1
          best = min(best, rank)
          heap.push(end: entry.end, index: groupEnd)
          entries[groupEnd].end = entry.end - now
          entries[groupEnd].start = covered[rank]
        }
        groupEnd += 1
      }
      if bestZero != Int.max {
        for index in next..<groupEnd where entries[index].zeroLength {
          let entry = entries[index]
          if entry.rank == bestZero && entry.rank <= best && entry.value > 0 { credit(entry.period, entry.value) }
        }
      }
      next = groupEnd
    }
    entries = []
  }
}

/// One step sample for the de-duplication sweep: 32 bytes.
struct StepEntry {
  var start: Int64
  var end: Int64
  var value: Double
  /// Bits 0–31: period key; bits 32–62: source id, then rank; bit 63: zero length.
  var packed: UInt64

  init(start: Int64, end: Int64, value: Double, rank: Int, period: Int, zeroLength: Bool) {
    self.start = start
    self.end = end
    self.value = value
    packed =
      UInt64(UInt32(bitPattern: Int32(truncatingIfNeeded: period))) | (UInt64(rank & 0x7FFF_FFFF) << 32)
      | (zeroLength ? 1 << 63 : 0)
  }

  var period: Int { Int(Int32(bitPattern: UInt32(truncatingIfNeeded: packed))) }
  var rank: Int {
    get { Int((packed >> 32) & 0x7FFF_FFFF) }
    set { packed = (packed & ~(UInt64(0x7FFF_FFFF) << 32)) | (UInt64(newValue & 0x7FFF_FFFF) << 32) }
  }
  var zeroLength: Bool { packed >> 63 == 1 }
}

/// A binary min-heap of (end, entry index) for the samples active during the sweep.
struct EndHeap {
  struct Item {
    var end: Int64
    var index: Int
  }
  private var items: [Item] = []

  var isEmpty: Bool { items.isEmpty }
  var first: Item? { items.first }

  mutating func push(end: Int64, index: Int) {
    items.append(Item(end: end, index: index))
    var child = items.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      if items[parent].end <= items[child].end { break }
      items.swapAt(parent, child)
      child = parent
    }
  }

  mutating func pop() {
    let last = items.removeLast()
    guard !items.isEmpty else { return }
    items[0] = last
    var parent = 0
    let count = items.count
    while true {
      let left = 2 * parent + 1
      if left >= count { break }
      var child = left
      if left + 1 < count, items[left + 1].end < items[left].end { child = left + 1 }
      if items[parent].end <= items[child].end { break }
      items.swapAt(parent, child)
      parent = child
    }
  }
}
