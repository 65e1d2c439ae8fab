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
/// Memory: 4 MiB of samples, then sorted runs in a scratch file (`RewriteCollapse`); without
/// `dedupe` but with `keepRewrites`, one running total per period. With `dedupe`, the runs are
/// merged by start, end, rewrite group, value and document order (so rewrites lie side by side
/// in document order and collapse in one pass) into the sweep, which keeps only the samples
/// active at one instant and those starting at the instant it reads.
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

  // De-duplication state: the samples, sorted into runs (their source id in `extra`).
  private var dedupeSamples: RewriteCollapse?
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
  public convenience init(_ configuration: Configuration) {
    self.init(configuration, memoryLimit: 4 << 20)
  }

  /// `memoryLimit`: the bytes of samples gathered before a sorted run goes to a scratch file.
  package init(_ configuration: Configuration, memoryLimit: Int) {
    self.configuration = configuration
    mapper = PeriodMapper(kind: configuration.by, zone: configuration.zone)
    let purpose = "\(KnownNames.shortTypeName(configuration.type)) samples"
    if configuration.dedupe {
      dedupeSamples = RewriteCollapse(
        purpose: purpose, memoryLimit: memoryLimit, dropsRewrites: !configuration.keepRewrites)
    } else if !configuration.keepRewrites {
      collapse = RewriteCollapse(purpose: purpose, memoryLimit: memoryLimit)
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
    if let dedupeSamples {
      let id = sourceID(name: record.sourceName, product: record.sourceProduct, unit: record.unit)
      guard UInt64(id) <= RewriteCollapse.extraMask else {
        let type = KnownNames.shortTypeName(configuration.type)
        throw HealthPortError(
          .failure,
          message: "more than \(RewriteCollapse.extraMask + 1) sources of \(type) samples: too many to de-duplicate")
      }
      // The end as written (rewrites compare it); clamped to the start after the collapse.
      try dedupeSamples.add(
        start: record.startDate.secondsSince1970, end: record.endDate.secondsSince1970,
        value: StepSweep.orderedKey(value), group: UInt32(groupOf[id]), tag: Int32(truncatingIfNeeded: key),
        extra: UInt32(id))
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
    if let dedupeSamples {
      self.dedupeSamples = nil
      try sweep(dedupeSamples)
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

  /// Drops the rewrites (unless `keepRewrites`) and sweeps what stays (see the type's
  /// documentation), in the order of ``CollapsibleSample/precedes(_:_:)``: by start, end, rewrite
  /// group and value, document order on a tie.
  private func sweep(_ samples: RewriteCollapse) throws {
    let ranks = ranks()
    let scales = sources.map { unitConversion?($0.unit ?? "") ?? (1, 0) }
    var sweep = StepSweep(rankCount: (ranks.max() ?? -1) + 1)
    let dropped = try samples.finish { sample in
      let source = Int(sample.extra)
      let (scale, shift) = scales[source]
      sweep.add(
        start: sample.start, end: max(sample.start, sample.end),
        value: StepSweep.value(ofKey: sample.value) * scale + shift, rank: ranks[source], period: Int(sample.tag))
    }
    sweep.finish()
    totals = sweep.totals
    // One line per source name, in order of first appearance (groups are numbered in that order;
    // a name with several units is one line).
    if !configuration.keepRewrites { rewrites = RewriteCount.perSource(dropped) { groups[$0].name } }
  }
}

/// The sweep of the de-duplication over the samples in order of start (see ``StepTotals``): it
/// holds the samples active at one instant and those starting at the instant it reads.
struct StepSweep {
  /// A sample starting at the instant being read.
  private struct Starting {
    var end: Int64
    var value: Double
    var rank: Int
    var period: Int
  }

  private(set) var totals: [Int: (value: Double, samples: Int)] = [:]
  /// covered[r]: total time during which rank r was the best rank covering the timeline.
  private var covered: [Int64]
  private var active: [Int]
  private var activeCount = 0
  private var best = Int.max
  private var heap = EndHeap()
  private var time: Int64 = 0
  private var groupStart = Int64.min
  private var group: [Starting] = []

  init(rankCount: Int) {
    covered = [Int64](repeating: 0, count: rankCount)
    active = [Int](repeating: 0, count: rankCount)
  }

  /// A number's key for `RewriteCollapse`: unsigned order is the numbers' order, -0 is 0.
  static func orderedKey(_ value: Double) -> UInt64 {
    let bits = (value == 0 ? 0 : value).bitPattern
    return bits >> 63 == 1 ? ~bits : bits | 1 << 63
  }

  static func value(ofKey key: UInt64) -> Double {
    Double(bitPattern: key >> 63 == 1 ? key & ~(1 << 63) : ~key)
  }

  /// The next sample: its start is at or after the last one's; `end` is at or after `start`.
  mutating func add(start: Int64, end: Int64, value: Double, rank: Int, period: Int) {
    if start != groupStart {
      if !group.isEmpty { startGroup() }
      groupStart = start
    }
    group.append(Starting(end: end, value: value, rank: rank, period: period))
  }

  /// Ends every sample still active.
  mutating func finish() {
    if !group.isEmpty { startGroup() }
    while let top = heap.first { advance(to: top.end) }
  }

  /// Moves the timeline to `now` and settles the samples ending then.
  private mutating func advance(to now: Int64) {
    if activeCount > 0 { covered[best] += now - time }
    time = now
    // Samples ending now: their covered share is final.
    while let top = heap.first, top.end == now {
      heap.pop()
      let rank = top.rank
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
      let part = covered[rank] - top.coveredAtStart
      let share = part == top.length ? top.value : top.value * Double(part) / Double(top.length)
      if share > 0 { credit(top.period, share) }
    }
  }

  /// The samples starting at `groupStart`: positive-length ones become active, zero-length ones
  /// are settled.
  private mutating func startGroup() {
    let now = groupStart
    while let top = heap.first, top.end < now { advance(to: top.end) }
    advance(to: now)
    var bestZero = Int.max
    for sample in group {
      let rank = sample.rank
      if sample.end == now {
        bestZero = min(bestZero, rank)
      } else {
        active[rank] += 1
        activeCount += 1
        best = min(best, rank)
        heap.push(
          EndHeap.Item(
            end: sample.end, length: sample.end - now, coveredAtStart: covered[rank], value: sample.value, rank: rank,
            period: sample.period))
      }
    }
    if bestZero != Int.max {
      for sample in group where sample.end == now {
        if sample.rank == bestZero && sample.rank <= best && sample.value > 0 { credit(sample.period, sample.value) }
      }
    }
    group.removeAll(keepingCapacity: true)
  }

  private mutating func credit(_ key: Int, _ share: Double) {
    let old = totals[key] ?? (0, 0)
    totals[key] = (old.value + share, old.samples + 1)
  }
}

/// A binary min-heap, by end, of the samples active during the sweep.
struct EndHeap {
  struct Item {
    var end: Int64
    /// The sample's length, and the covered time of its rank when it started.
    var length: Int64
    var coveredAtStart: Int64
    var value: Double
    var rank: Int
    var period: Int
  }
  private var items: [Item] = []

  var isEmpty: Bool { items.isEmpty }
  var first: Item? { items.first }

  mutating func push(_ item: Item) {
    items.append(item)
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
