/// One row of a per-period total: `period,value,samples`.
public struct PeriodTotal: Hashable, Sendable {
  /// The sortable period key (``PeriodKind/key(forDay:)``).
  package var key: Int
  /// `YYYY-MM-DD`, `YYYY-Www`, `YYYY-MM` or `YYYY`.
  public var period: String
  /// The period's total: the sum of the samples' values, in the type's unit (steps).
  public var value: Double
  /// How many samples the total adds up (each rewrite of a sample counted once).
  public var samples: Int

  package init(key: Int, period: String, value: Double, samples: Int) {
    self.key = key
    self.period = period
    self.value = value
    self.samples = samples
  }
}

/// Sums `HKQuantityTypeIdentifierStepCount` per period, as they are or de-duplicated across
/// sources the way the Health app shows them.
///
/// A sample counts in the period of its start date's local day (`ZoneRule`).
///
/// Rewrites are collapsed first, unless `keepRewrites` (step 0 below; without `dedupe` through
/// `RewriteCollapse`, in bounded memory).
///
/// De-duplication (`dedupe`), deterministic:
/// 0. Rewrites are collapsed: a sample with the same source name, type, unit, start and end
///    instants and value as an earlier one is dropped, whatever its creation date, device or
///    metadata; the first in document order stays (`rewrites` counts the dropped ones).
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
/// Memory: without `dedupe`, 4 MiB of samples, then sorted runs in a scratch file (with
/// `keepRewrites`, one running total per period). With `dedupe`, one 32-byte entry per
/// sample (start, end, value, and source + period packed in 64 bits), sorted once at the end
/// (a stable sort, so rewrites lie side by side in document order and collapse in one pass) and
/// swept; the sweep keeps only the samples active at one instant.
public final class StepTotals: ExportSink {
  package static let stepType = "HKQuantityTypeIdentifierStepCount"

  /// What to total and how; the defaults are `healthport steps`' (per local day, no de-duplication).
  public struct Configuration {
    /// The period each row covers: day (the default), week, month or year.
    public var by: PeriodKind = .day
    package var zone: ZoneRule = .written
    /// `--dedupe`: where sources overlap in time, count the steps of one of them only.
    public var dedupe = false
    /// `--keep-rewrites`: sum every sample as written (with `dedupe`, skip only step 0).
    package var keepRewrites = false
    /// `--priority` entries: products or source names, best first.
    package var priority: [String] = []
    /// The record type summed (`stats --dedupe` merges other cumulative types the same way).
    public var type: String = StepTotals.stepType
    /// The defaults: steps per local day, as written, every source.
    public init() {}
  }

  /// How many rewrites of one source name `dedupe` dropped.
  package struct RewriteCount: Hashable, Sendable {
    package var sourceName: String
    package var count: Int

    /// Counts per group (`counts[group]`) summed per source name (`name(group)`), in the order
    /// the groups are numbered (first appearance); names with none left out.
    static func perSource(_ counts: [Int], name: (Int) -> String) -> [RewriteCount] {
      var byName: [String: Int] = [:]
      var result: [RewriteCount] = []
      for (group, count) in counts.enumerated() where count > 0 {
        let source = name(group)
        if let at = byName[source] {
          result[at].count += count
        } else {
          byName[source] = result.count
          result.append(RewriteCount(sourceName: source, count: count))
        }
      }
      return result
    }
  }

  package let configuration: Configuration
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
    let unit: String?
  }
  /// What makes two samples of the type rewrites of each other, besides instants and value.
  private struct RewriteGroup: Hashable {
    let name: String
    let unit: String?
  }
  private var sourceIDs: [SourceKey: Int] = [:]
  private var sources: [SourceKey] = []
  /// The rewrite group of each source id.
  private var groupOf: [Int] = []
  private var groupIDs: [RewriteGroup: Int] = [:]
  private var groups: [RewriteGroup] = []
  private var lastSource: (name: String, product: String?, unit: String?, id: Int)?

  /// Converts a value from its unit before the merge (`stats` converts to the type's most
  /// frequent unit); identity when nil.
  var unitConversion: ((String) -> (scale: Double, shift: Double))?

  /// Without `dedupe`: the samples, until ``finish()`` drops their rewrites.
  private var collapse: RewriteCollapse?
  private var collapseGroups = RewriteGroups()

  /// One row per period with samples, in period order; filled by ``end(_:)``.
  public private(set) var result: [PeriodTotal] = []
  /// The rewrites dropped, per source name in order of first appearance (only
  /// names with at least one). Set by ``finish()``.
  package private(set) var rewrites: [RewriteCount] = []
  /// The total of ``rewrites``.
  package var rewriteCount: Int { rewrites.reduce(0) { $0 + $1.count } }

  /// A total as `configuration` says; stream an export into it, then read ``result``.
  public init(_ configuration: Configuration) {
    self.configuration = configuration
    mapper = PeriodMapper(kind: configuration.by, zone: configuration.zone)
    if !configuration.dedupe && !configuration.keepRewrites {
      collapse = RewriteCollapse(purpose: "\(KnownNames.shortTypeName(configuration.type)) samples")
    }
  }

  /// Only the Records of ``Configuration/type``: the reader builds no other element.
  public var interest: ElementInterest { .records(ofTypes: [configuration.type]) }

  /// Nothing to do before the first element.
  public func begin(_ header: ExportHeader) throws {}

  /// Adds a Record of ``Configuration/type``; every other element is ignored.
  public func consume(_ element: ExportElement) throws {
    guard case .record(let record) = element, record.type == configuration.type else { return }
    try add(record)
  }

  /// Adds one step sample (used by ``consume(_:)``; public for tests and other callers).
  package func add(_ record: Record) throws {
    guard let value = record.numericValue else {
      throw HealthPortError(
        .malformed,
        message:
          "the \(KnownNames.shortTypeName(configuration.type)) sample starting \(record.startDate) has a non-numeric value '\(record.value ?? "")'"
      )
    }
    let key = mapper.key(record.startDate)
    if configuration.dedupe {
      let id = sourceID(name: record.sourceName, product: record.sourceProduct, unit: record.unit)
      // The end as written (rewrites compare it); clamped to the start after the collapse.
      entries.append(
        StepEntry(
          start: record.startDate.secondsSince1970, end: record.endDate.secondsSince1970, value: value, rank: id,
          period: key, zeroLength: false))
    } else if let collapse {
      let group = collapseGroups.id(sourceName: record.sourceName, type: record.type, unit: record.unit)
      try collapse.add(
        start: record.startDate.secondsSince1970, end: record.endDate.secondsSince1970,
        value: RewriteCollapse.key(number: value), group: group, tag: Int32(truncatingIfNeeded: key))
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

  private func sourceID(name: String, product: String?, unit: String?) -> Int {
    if let last = lastSource, last.name == name, last.product == product, last.unit == unit { return last.id }
    let key = SourceKey(name: name, product: product, unit: unit)
    let id: Int
    if let found = sourceIDs[key] {
      id = found
    } else {
      id = sources.count
      sourceIDs[key] = id
      sources.append(key)
      let group = RewriteGroup(name: name, unit: unit)
      if let found = groupIDs[group] {
        groupOf.append(found)
      } else {
        groupOf.append(groups.count)
        groupIDs[group] = groups.count
        groups.append(group)
      }
    }
    lastSource = (name, product, unit, id)
    return id
  }

  /// Sums the last periods into ``result``.
  public func end(_ report: ReadReport) throws { try finish() }

  /// Computes ``result`` (called by ``end(_:)``).
  package func finish() throws {
    if configuration.dedupe {
      totals = [:]
      if !configuration.keepRewrites { collapseRewrites() }
      sweep()
    } else if let collapse {
      self.collapse = nil
      let dropped = try collapse.finish { sample in
        let key = Int(sample.tag)
        let old = totals[key] ?? (0, 0)
        totals[key] = (old.value + Double(bitPattern: sample.value), old.samples + 1)
      }
      rewrites = collapseGroups.countsBySource(dropped)
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

  /// Sorts the entries by (start, end, rewrite group, value), document order on a tie, and drops
  /// every entry equal in those to the one before it: a rewrite. Entries still hold source ids.
  private func collapseRewrites() {
    let groupOf = self.groupOf
    // Stable (the standard library guarantees it): equal keys keep their document order.
    entries.sort { a, b in
      if a.start != b.start { return a.start < b.start }
      if a.end != b.end { return a.end < b.end }
      let (groupA, groupB) = (groupOf[a.rank], groupOf[b.rank])
      if groupA != groupB { return groupA < groupB }
      return a.value < b.value
    }
    var dropped = [Int](repeating: 0, count: groups.count)
    var kept = 0
    for index in entries.indices {
      let entry = entries[index]
      if kept > 0 {
        let last = entries[kept - 1]
        let group = groupOf[entry.rank]
        if last.start == entry.start, last.end == entry.end, groupOf[last.rank] == group, last.value == entry.value {
          dropped[group] += 1
          continue
        }
      }
      entries[kept] = entry
      kept += 1
    }
    entries.removeLast(entries.count - kept)
    // One line per source name, in order of first appearance (groups are numbered in that order;
    // a name with several units is one line).
    rewrites = RewriteCount.perSource(dropped) { groups[$0].name }
  }

  /// The sweep over all samples sorted by start (see the type's documentation).
  private func sweep() {
    let ranks = ranks()
    let rankCount = (ranks.max() ?? -1) + 1
    let scales = sources.map { unitConversion?($0.unit ?? "") ?? (1, 0) }
    for index in entries.indices {
      let entry = entries[index]
      let (scale, shift) = scales[entry.rank]
      let end = max(entry.start, entry.end)
      entries[index] = StepEntry(
        start: entry.start, end: end, value: entry.value * scale + shift, rank: ranks[entry.rank],
        period: entry.period, zeroLength: end == entry.start)
    }

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
