import Foundation

/// An aggregate for `healthport stats --agg`.
package enum Aggregate: String, CaseIterable, Sendable {
  case sum, min, max, avg, count, latest

  /// Cumulative quantity types sum up; other quantity types average; category types (whose
  /// values are names, not numbers) count.
  package static func defaultFor(type: String) -> Aggregate {
    if KnownNames.isCumulative(type) { return .sum }
    if type.hasPrefix("HKCategoryTypeIdentifier") { return .count }
    return .avg
  }
}

/// One row of `healthport stats`: `period,value,samples,unit`.
package struct StatsRow: Hashable, Sendable {
  package var key: Int
  package var period: String
  package var value: Double
  package var samples: Int
  /// The unit of `value` (empty for types without units).
  package var unit: String
}

/// Aggregates one record type per period.
///
/// Sound levels (unit `dBASPL`, whatever the type) average as energy: `avg` is 10·log10 of the
/// duration-weighted mean of 10^(L/10), with equal weights when every sample of the period lasts
/// zero seconds.
///
/// Values are converted to the type's most frequent unit in the input. To do that in one pass,
/// partial aggregates (sum, min, max, count, latest) are kept per period and per unit, and
/// converted at the end: memory grows with periods × units, never with samples. A unit that
/// cannot be converted to the most frequent one is an error naming it. `latest` is the sample
/// with the greatest start date, the later one in document order on a tie.
///
/// Rewrites are dropped first unless `keepRewrites` (a sample with the same source name, unit,
/// start and end instants and value as an earlier one: the number for quantities, the value as
/// written for categories; the first in document order stays), by `RewriteCollapse`: 4 MiB of
/// samples, then sorted runs in a scratch file. With `dedupe`, for a cumulative type summed, the
/// samples go through the priority merge of ``StepTotals`` instead (one 32-byte entry per
/// sample, swept at the end), which drops the rewrites itself.
package final class Stats: ExportSink {
  package struct Configuration {
    package var type: String
    package var aggregate: Aggregate
    package var by: PeriodKind = .day
    package var zone: ZoneRule = .written
    /// `--dedupe`: drop rewrites, and merge overlapping sources for a cumulative type summed.
    package var dedupe = false
    /// `--keep-rewrites`: aggregate every sample as written.
    package var keepRewrites = false
    /// `--priority` entries for the merge (see ``StepTotals``).
    package var priority: [String] = []
    package init(type: String, aggregate: Aggregate? = nil) {
      self.type = type
      self.aggregate = aggregate ?? Aggregate.defaultFor(type: type)
    }
  }

  struct Partial {
    var sum = 0.0
    var min = Double.infinity
    var max = -Double.infinity
    var count = 0
    var latestStart = Int64.min
    var latestSequence = -1
    var latestValue = 0.0
    /// Sound levels (dBASPL): Σ duration × 10^(L/10), Σ duration, and Σ 10^(L/10) for equal weights.
    var energyWeighted = 0.0
    var energyDuration = 0.0
    var energyEqual = 0.0
  }

  /// The unit whose averages are energy averages.
  package static let soundLevelUnit = "dBASPL"

  package let configuration: Configuration
  private var mapper: PeriodMapper
  private var units: [String] = []
  private var unitCounts: [Int] = []
  /// Per unit: whether it is a sound level and `avg` needs its energy terms.
  private var energyUnits: [Bool] = []
  private var lastUnit: (text: String?, index: Int)?
  private var partials: [Int: [Int: Partial]] = [:]
  private var sequence = 0
  package private(set) var rows: [StatsRow] = []
  /// The unit every value was converted to.
  package private(set) var unit = ""

  /// The priority merge, for a cumulative type summed with `dedupe`.
  private var merge: StepTotals?
  /// The samples, until ``finish()`` drops their rewrites (without the merge and `keepRewrites`).
  private var collapse: RewriteCollapse?
  private var groups = RewriteGroups()
  /// The unit index of each group of ``groups``.
  private var groupUnits: [Int] = []

  /// The rewrites dropped, per source name in order of first appearance. Set by
  /// ``finish()``.
  package private(set) var rewrites: [StepTotals.RewriteCount] = []
  /// The total of ``rewrites``.
  package var rewriteCount: Int { rewrites.reduce(0) { $0 + $1.count } }

  package init(_ configuration: Configuration) {
    self.configuration = configuration
    mapper = PeriodMapper(kind: configuration.by, zone: configuration.zone)
    if configuration.dedupe, configuration.aggregate == .sum, KnownNames.isCumulative(configuration.type) {
      var merging = StepTotals.Configuration()
      merging.type = configuration.type
      merging.by = configuration.by
      merging.zone = configuration.zone
      merging.dedupe = true
      merging.priority = configuration.priority
      merging.keepRewrites = configuration.keepRewrites
      merge = StepTotals(merging)
    } else if !configuration.keepRewrites {
      collapse = RewriteCollapse(purpose: "\(KnownNames.shortTypeName(configuration.type)) samples")
    }
  }

  package var interest: ElementInterest { .records(ofTypes: [configuration.type]) }

  package func begin(_ header: ExportHeader) throws {}

  package func consume(_ element: ExportElement) throws {
    guard case .record(let record) = element, record.type == configuration.type else { return }
    try add(record)
  }

  package func add(_ record: Record) throws {
    if let merge {
      unitCounts[index(of: record.unit)] += 1
      try merge.add(record)
      return
    }
    var value = 0.0
    if configuration.aggregate != .count {
      guard let number = record.numericValue else {
        throw HealthPortError(
          .nonNumericValue(
            type: KnownNames.shortTypeName(record.type), start: "\(record.startDate)", value: record.value ?? ""))
      }
      value = number
    }
    let unitIndex = index(of: record.unit)
    let key = mapper.key(record.startDate)
    let start = record.startDate.secondsSince1970
    let end = record.endDate.secondsSince1970
    guard let collapse else {
      sequence += 1
      accumulate(period: key, unitIndex: unitIndex, value: value, start: start, end: end, sequence: sequence)
      return
    }
    // An aggregate that reads the number carries it in the key, to add it up in `finish()`.
    let compared =
      configuration.aggregate != .count ? RewriteCollapse.key(number: value) : RewriteCollapse.key(of: record)
    let group = groups.id(sourceName: record.sourceName, type: record.type, unit: record.unit)
    if Int(group) == groupUnits.count { groupUnits.append(unitIndex) }
    try collapse.add(start: start, end: end, value: compared, group: group, tag: Int32(truncatingIfNeeded: key))
  }

  /// Adds one sample that counts to its period's partial aggregate of its unit.
  private func accumulate(period key: Int, unitIndex: Int, value: Double, start: Int64, end: Int64, sequence: Int) {
    unitCounts[unitIndex] += 1
    var partial = partials[key]?[unitIndex] ?? Partial()
    partial.sum += value
    partial.min = Swift.min(partial.min, value)
    partial.max = Swift.max(partial.max, value)
    partial.count += 1
    if energyUnits[unitIndex] {
      let energy = Self.energy(ofLevel: value)
      let duration = Double(max(0, end - start))
      partial.energyWeighted += energy * duration
      partial.energyDuration += duration
      partial.energyEqual += energy
    }
    if (start, sequence) > (partial.latestStart, partial.latestSequence) {
      partial.latestStart = start
      partial.latestSequence = sequence
      partial.latestValue = value
    }
    partials[key, default: [:]][unitIndex] = partial
  }

  /// 10^(L/10): the relative sound energy of a level in decibels.
  static func energy(ofLevel level: Double) -> Double { pow(10, level / 10) }

  private func index(of unit: String?) -> Int {
    if let last = lastUnit, last.text == unit { return last.index }
    let text = unit ?? ""
    let found: Int
    if let index = units.firstIndex(of: text) {
      found = index
    } else {
      found = units.count
      units.append(text)
      unitCounts.append(0)
      energyUnits.append(text == Self.soundLevelUnit && configuration.aggregate == .avg)
    }
    lastUnit = (unit, found)
    return found
  }

  package func end(_ report: ReadReport) throws { try finish() }

  /// Converts and combines the partial aggregates into ``rows``.
  package func finish() throws {
    if let collapse {
      self.collapse = nil
      let counts = configuration.aggregate == .count
      // Sorted by start, then document order: `latest` keeps its meaning, the later on a tie.
      let dropped = try collapse.finish { sample in
        accumulate(
          period: Int(sample.tag), unitIndex: groupUnits[Int(sample.group)],
          value: counts ? 0 : Double(bitPattern: sample.value), start: sample.start, end: sample.end,
          sequence: Int(sample.sequence))
      }
      rewrites = groups.countsBySource(dropped)
    }
    guard let target = unitCounts.indices.max(by: { (unitCounts[$0], $1) < (unitCounts[$1], $0) }) else {
      rows = []
      return
    }
    unit = units[target]
    var conversions: [(scale: Double, shift: Double)] = []
    for (index, name) in units.enumerated() {
      if configuration.aggregate == .count {
        conversions.append((1, 0))
        continue
      }
      guard let linear = Units.linear(from: name, to: unit) else {
        throw HealthPortError(
          .malformed,
          message:
            "\(KnownNames.shortTypeName(configuration.type)) values in '\(name)' (\(unitCounts[index]) samples) cannot be converted to '\(unit)', the type's most frequent unit"
        )
      }
      conversions.append(linear)
    }
    if let merge {
      let scales = Dictionary(uniqueKeysWithValues: zip(units, conversions))
      merge.unitConversion = { scales[$0] ?? (1, 0) }
      try merge.finish()
      rewrites = merge.rewrites
      rows = merge.result.map {
        StatsRow(key: $0.key, period: $0.period, value: $0.value, samples: $0.samples, unit: unit)
      }
      return
    }
    rows = partials.keys.sorted().map { key in
      var total = Partial()
      var energy = false
      // In the units' order of appearance: a sum over several units adds up the same way every run
      // (a dictionary's order changes from one process to the next), so its last digit does too.
      for (unitIndex, partial) in (partials[key] ?? [:]).sorted(by: { $0.key < $1.key }) {
        if energyUnits[unitIndex] {
          energy = true
          total.energyWeighted += partial.energyWeighted
          total.energyDuration += partial.energyDuration
          total.energyEqual += partial.energyEqual
        }
        let (scale, shift) = conversions[unitIndex]
        total.sum += partial.sum * scale + Double(partial.count) * shift
        // Conversions are increasing (positive scale), so min and max map to min and max.
        total.min = Swift.min(total.min, partial.min * scale + shift)
        total.max = Swift.max(total.max, partial.max * scale + shift)
        total.count += partial.count
        if (partial.latestStart, partial.latestSequence) > (total.latestStart, total.latestSequence) {
          total.latestStart = partial.latestStart
          total.latestSequence = partial.latestSequence
          total.latestValue = partial.latestValue * scale + shift
        }
      }
      let value: Double
      switch configuration.aggregate {
      case .sum: value = total.sum
      case .min: value = total.min
      case .max: value = total.max
      case .avg where energy:
        // Sound levels average as energy: duration-weighted, equal weights when no sample lasts.
        let mean =
          total.energyDuration > 0
          ? total.energyWeighted / total.energyDuration : total.energyEqual / Double(total.count)
        value = 10 * log10(mean)
      case .avg: value = total.sum / Double(total.count)
      case .count: value = Double(total.count)
      case .latest: value = total.latestValue
      }
      return StatsRow(
        key: key, period: configuration.by.label(forKey: key), value: value, samples: total.count, unit: unit)
    }
  }
}
