import Foundation

/// `HKCategoryTypeIdentifierSleepAnalysis` samples per night, merged across sources.
///
/// Run it like any sink, then read ``nights`` (ascending by night) and, for weeks or months,
/// ``SleepAverage/averages(of:by:)``:
///
/// ```swift
/// let sleep = SleepNights(SleepNights.Configuration())
/// try ExportReader(path: "export.zip").read(into: sleep)
/// for night in sleep.nights { print(night.night, night.asleepMinutes, night.bedtime) }
/// ```
///
/// The rule (README, "healthport sleep"):
/// - A sample belongs, whole, to the night D when its local start lies in [D−1 18:00, D 18:00).
///   Local time comes from `zone` when set (`--tz`), else from the sample's `HKTimeZone`
///   metadata, else from its written offset.
/// - Rewrites (same source name, instants and value as an earlier sample) are dropped first,
///   unless `keepRewrites`.
/// - Asleep layer (every state but in bed): at each instant, the state of the best-ranked source
///   covering it (``SourceRanking``); within a rank, the covering sample that started last, then
///   the later in the document.
/// - In bed: the length of the union of the night's `InBed` intervals, all sources.
///
/// Memory: one 56-byte entry per sample of the nights still open, about three (see
/// `SleepNightBuffer`), and one row per night.
package final class SleepNights: ExportSink {
  package static let sleepType = "HKCategoryTypeIdentifierSleepAnalysis"

  package struct Configuration {
    /// `--tz`: overrides `HKTimeZone` and the written offsets when set.
    package var zone: ZoneRule?
    /// `--priority`: products or source names, best first (see ``SourceRanking``).
    package var priority: [String] = []
    /// `--keep-rewrites`: keep every sample as written.
    package var keepRewrites = false
    /// The first and last night kept (days since 1970-01-01); nil keeps every night.
    package var firstNight: Int?
    package var lastNight: Int?
    package init() {}

    /// Day bounds select whole nights, not samples (the night of D begins the evening before):
    /// moves `filter`'s `--from`/`--to` days into ``firstNight`` and ``lastNight``. Timestamp
    /// bounds stay in the filter and select samples.
    package mutating func takeDayBounds(from filter: inout ExportFilter) {
      if case .day(let day)? = filter.from {
        firstNight = day
        filter.from = nil
      }
      if case .day(let day)? = filter.to {
        lastNight = day
        filter.to = nil
      }
    }
  }

  package let configuration: Configuration
  private var ranking: SourceRanking
  private var sourceIDs: [SourceKey: (rank: Int32, name: Int32)] = [:]
  private var lastSource: (key: SourceKey, rank: Int32, name: Int32)?
  private var names = FirstSeenIDs<String, Int32>()
  private var valueCodes: [String: (code: UInt8, state: SleepState)] = [:]
  private var zones: [String: NamedZone?] = [:]
  private var buffer: SleepNightBuffer?
  private var sequence: Int32 = 0
  /// The merged nights so far, with the rewrites dropped in each (source name id, count).
  private var merged: [Int: (night: SleepNight, rewrites: [Int32: Int])] = [:]

  private struct SourceKey: Hashable {
    let name: String
    let product: String?
  }

  /// The nights, ascending. Set by ``finish()``.
  package private(set) var nights: [SleepNight] = []
  /// Rewrites dropped, per source name in order of first appearance. Set by ``finish()``.
  package private(set) var rewrites: [StepTotals.RewriteCount] = []
  /// Sleep samples whose value is no sleep state (skipped).
  package private(set) var unknownValues = 0

  package init(_ configuration: Configuration) {
    self.configuration = configuration
    ranking = SourceRanking(priority: configuration.priority)
    buffer = SleepNightBuffer { [unowned self] day, entries in
      guard !entries.isEmpty else { return }
      merged[day] = night(day, entries)
    }
  }

  package var interest: ElementInterest { .records(ofTypes: [Self.sleepType]) }

  package func begin(_ header: ExportHeader) throws {}

  package func consume(_ element: ExportElement) throws {
    guard case .record(let record) = element, record.type == Self.sleepType else { return }
    add(record)
  }

  /// Adds one sleep sample (used by ``consume(_:)``; public for tests and other callers).
  package func add(_ record: Record) {
    guard let value = record.value, let (code, state) = valueCode(value) else {
      unknownValues += 1
      return
    }
    let source = sourceID(name: record.sourceName, product: record.sourceProduct)
    let start = record.startDate
    let end = record.endDate
    let offsets = localOffsets(record)
    let night = HealthDate.floorDiv(start.secondsSince1970 + Int64(offsets.start) + 6 * 3600, 86_400)
    buffer?.append(
      SleepEntry(
        start: start.secondsSince1970, end: max(start.secondsSince1970, end.secondsSince1970),
        writtenEnd: end.secondsSince1970, rank: source.rank, name: source.name, sequence: sequence,
        startOffset: start.offsetSeconds, endOffset: end.offsetSeconds, startLocalOffset: Int32(offsets.start),
        endLocalOffset: Int32(offsets.end), code: code, state: state),
      night: night)
    sequence &+= 1
  }

  package func end(_ report: ReadReport) throws { finish() }

  /// Computes ``nights`` and ``rewrites`` (called by ``end(_:)``).
  package func finish() {
    buffer?.finish()
    buffer = nil
    var counts = [Int](repeating: 0, count: names.values.count)
    let first = configuration.firstNight ?? Int.min
    let last = configuration.lastNight ?? Int.max
    nights = merged.keys.sorted().compactMap { day in
      guard let found = merged[day], day >= first, day <= last else { return nil }
      for (name, count) in found.rewrites { counts[Int(name)] += count }
      return found.night
    }
    merged = [:]
    rewrites = counts.enumerated().compactMap { name, count in
      count > 0 ? StepTotals.RewriteCount(sourceName: names.values[name], count: count) : nil
    }
  }

  private func valueCode(_ value: String) -> (UInt8, SleepState)? {
    if let found = valueCodes[value] { return (found.code, found.state) }
    guard let state = SleepState(value: value), valueCodes.count < 255 else { return nil }
    let code = UInt8(valueCodes.count)
    valueCodes[value] = (code, state)
    return (code, state)
  }

  private func sourceID(name: String, product: String?) -> (rank: Int32, name: Int32) {
    let key = SourceKey(name: name, product: product)
    if let last = lastSource, last.key == key { return (last.rank, last.name) }
    let found: (rank: Int32, name: Int32)
    if let known = sourceIDs[key] {
      found = known
    } else {
      let nameID = names.id(of: name)
      found = (Int32(ranking.rank(name: name, product: product)), nameID)
      sourceIDs[key] = found
    }
    lastSource = (key, found.rank, found.name)
    return found
  }

  /// The offsets (seconds east of UTC) that give the local times of the start and the end.
  private func localOffsets(_ record: Record) -> (start: Int, end: Int) {
    if let zone = configuration.zone { return (zone.offset(for: record.startDate), zone.offset(for: record.endDate)) }
    for child in record.children {
      guard case .metadata(let entry) = child, entry.key == "HKTimeZone" else { continue }
      if let zone = namedZone(entry.value) {
        return (
          zone.offset(at: record.startDate.secondsSince1970), zone.offset(at: record.endDate.secondsSince1970)
        )
      }
      break
    }
    return (Int(record.startDate.offsetSeconds), Int(record.endDate.offsetSeconds))
  }

  private func namedZone(_ name: String) -> NamedZone? {
    if let known = zones[name] { return known }
    let zone = TimeZone(identifier: name).map(NamedZone.init)
    zones[name] = zone
    return zone
  }

  /// One night from its entries (in document order).
  private func night(_ day: Int, _ input: [SleepEntry]) -> (night: SleepNight, rewrites: [Int32: Int]) {
    // Rewrites: equal instants (the end as written), source name and value; the first stays.
    let sorted = input.sorted {
      ($0.start, $0.writtenEnd, $0.name, $0.code, $0.sequence) < (
        $1.start, $1.writtenEnd, $1.name, $1.code, $1.sequence
      )
    }
    var entries: [SleepEntry] = []
    var rewrites: [Int32: Int] = [:]
    entries.reserveCapacity(sorted.count)
    for entry in sorted {
      if !configuration.keepRewrites, let last = entries.last, last.start == entry.start,
        last.writtenEnd == entry.writtenEnd,
        last.name == entry.name, last.code == entry.code
      {
        rewrites[entry.name, default: 0] += 1
        continue
      }
      entries.append(entry)
    }

    var seconds = [Int64](repeating: 0, count: SleepState.allCases.count)
    seconds[Int(SleepState.inBed.rawValue)] = Self.unionLength(entries.filter { $0.state == .inBed })
    Self.mergeLayer(entries.filter { $0.state != .inBed }, into: &seconds)

    // Entries are sorted by start; the first is the bedtime (the earliest in the document on a tie).
    var bed = entries[0]
    for entry in entries where entry.start == bed.start && entry.sequence < bed.sequence { bed = entry }
    var wake = entries[0]
    for entry in entries where (entry.end, entry.sequence) > (wake.end, wake.sequence) { wake = entry }
    let eveningBefore = Int64(day - 1) * 86_400 + 18 * 3600
    var firstSeen: [(sequence: Int32, name: Int32)] = []
    for entry in entries {
      if let at = firstSeen.firstIndex(where: { $0.name == entry.name }) {
        if entry.sequence < firstSeen[at].sequence { firstSeen[at].sequence = entry.sequence }
      } else {
        firstSeen.append((entry.sequence, entry.name))
      }
    }
    firstSeen.sort { $0.sequence < $1.sequence }

    let night = SleepNight(
      day: day, night: PeriodKind.day.label(forKey: day), inBedSeconds: seconds[Int(SleepState.inBed.rawValue)],
      coreSeconds: seconds[Int(SleepState.core.rawValue)], deepSeconds: seconds[Int(SleepState.deep.rawValue)],
      remSeconds: seconds[Int(SleepState.rem.rawValue)],
      unspecifiedSeconds: seconds[Int(SleepState.unspecified.rawValue)],
      awakeSeconds: seconds[Int(SleepState.awake.rawValue)],
      bedtime: HealthDate(secondsSince1970: bed.start, offsetSeconds: bed.startOffset),
      wakeTime: HealthDate(secondsSince1970: wake.writtenEnd, offsetSeconds: wake.endOffset),
      bedtimeMinutesAfter18: Double(bed.start + Int64(bed.startLocalOffset) - eveningBefore) / 60,
      wakeMinutesAfter18: Double(wake.end + Int64(wake.endLocalOffset) - eveningBefore) / 60,
      sources: firstSeen.map { names.values[Int($0.name)] }, samples: entries.count)
    return (night, rewrites)
  }

  /// The length of the union of the intervals (sorted by start).
  static func unionLength(_ entries: [SleepEntry]) -> Int64 {
    var total: Int64 = 0
    var current: (start: Int64, end: Int64)?
    for entry in entries {
      if let open = current, entry.start <= open.end {
        current = (open.start, max(open.end, entry.end))
      } else {
        if let open = current { total += open.end - open.start }
        current = (entry.start, entry.end)
      }
    }
    if let open = current { total += open.end - open.start }
    return total
  }

  /// Sweeps the asleep layer (entries sorted by start): between two consecutive boundaries, the
  /// covering entry of the best rank, latest start, latest in the document wins the time.
  static func mergeLayer(_ entries: [SleepEntry], into seconds: inout [Int64]) {
    var boundaries: [Int64] = []
    boundaries.reserveCapacity(entries.count * 2)
    for entry in entries where entry.end > entry.start {
      boundaries.append(entry.start)
      boundaries.append(entry.end)
    }
    boundaries.sort()
    var active: [SleepEntry] = []
    var next = 0
    var previous: Int64?
    for time in boundaries {
      if let from = previous, time > from {
        var winner: SleepEntry?
        for entry in active where entry.end > from {
          guard let best = winner else {
            winner = entry
            continue
          }
          if (-entry.rank, entry.start, entry.sequence) > (-best.rank, best.start, best.sequence) { winner = entry }
        }
        if let winner { seconds[Int(winner.state.rawValue)] += time - from }
      }
      active.removeAll { $0.end <= time }
      while next < entries.count, entries[next].start <= time {
        if entries[next].end > time { active.append(entries[next]) }
        next += 1
      }
      previous = time
    }
  }
}

/// One sleep sample as the night merge needs it.
struct SleepEntry {
  var start: Int64
  /// The end, clamped to the start when written before it.
  var end: Int64
  /// The end as written (rewrites compare it).
  var writtenEnd: Int64
  var rank: Int32
  var name: Int32
  var sequence: Int32
  var startOffset: Int32
  var endOffset: Int32
  var startLocalOffset: Int32
  var endLocalOffset: Int32
  /// The value as written, numbered.
  var code: UInt8
  var state: SleepState

  static let zero = SleepEntry(
    start: 0, end: 0, writtenEnd: 0, rank: 0, name: 0, sequence: 0, startOffset: 0, endOffset: 0, startLocalOffset: 0,
    endLocalOffset: 0, code: 0, state: .inBed)
}
