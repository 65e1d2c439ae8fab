/// A bound of the date range, its start or its end.
package enum DateBound: Hashable, Sendable {
  /// A whole local day (days since 1970-01-01), `YYYY-MM-DD`.
  case day(Int)
  /// An exact instant (Unix seconds), a timestamp with an offset.
  case instant(Int64)
  /// A wall-clock time (local seconds since 1970-01-01 00:00), a timestamp without an offset.
  case wallClock(Int64)

  /// Parses `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM[:SS][±HH:MM|Z]` (a space may replace the `T`).
  /// Throws ``HealthPortError/Reason/badDate(_:value:)`` naming `setting` when it does not parse.
  package static func parse(_ text: String, for setting: HealthPortError.Setting) throws -> DateBound {
    let bytes = Array(text.utf8)
    func fail() -> HealthPortError { HealthPortError(.badDate(setting, value: text)) }
    func number(_ range: Range<Int>) -> Int? {
      guard range.upperBound <= bytes.count else { return nil }
      var value = 0
      for index in range {
        let digit = Int(bytes[index]) - 48
        guard (0...9).contains(digit) else { return nil }
        value = value * 10 + digit
      }
      return value
    }
    guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
      let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      (1...12).contains(month), day >= 1, day <= HealthDate.daysInMonth(year, month)
    else { throw fail() }
    let days = HealthDate.daysSince1970(year: year, month: month, day: day)
    if bytes.count == 10 { return .day(days) }
    guard bytes.count >= 16, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
      bytes[13] == UInt8(ascii: ":"), let hour = number(11..<13), let minute = number(14..<16), hour < 24,
      minute < 60
    else { throw fail() }
    var index = 16
    var second = 0
    if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
      guard let value = number(17..<19), value < 60 else { throw fail() }
      second = value
      index = 19
    }
    let local = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    if index == bytes.count { return .wallClock(local) }
    let rest = String(decoding: bytes[index...], as: UTF8.self)
    if rest == "Z" { return .instant(local) }
    guard let offset = ZoneRule.parseOffset(rest) else { throw fail() }
    return .instant(local - Int64(offset))
  }
}

/// Which elements a command keeps: by type, activity, source, date range and zone (docs/filters.md).
///
/// Rules (README, "Filters"):
/// - `types` selects Records and Correlations, `activities` selects Workouts; when either is given,
///   every other element kind (ActivitySummary, ClinicalRecord, …) is left out. The header,
///   `ExportDate` and `Me` are always kept.
/// - Source and date criteria apply to every element that has a source or a date; an element
///   without one is not affected by them.
/// - An element is in the date range when its start date is; `ActivitySummary` by its
///   `dateComponents` day (its start is that day's local midnight).
public struct ExportFilter {
  /// Full type identifiers, nil for "any".
  package var types: Set<String>?
  /// Full `HKWorkoutActivityType…` names, nil for "any".
  package var activities: Set<String>?
  /// Source products (`Watch`, `iPhone`, …, or a source name), lowercased; empty for "any".
  package var sourceProducts: [String] = []
  /// Text the source name must contain, lowercased.
  package var sourceText: String?
  package var from: DateBound?
  package var to: DateBound?
  /// How instants become local days and wall-clock times.
  package var zone: ZoneRule = .written
  /// The last source checked and its result: samples of one source come in long runs.
  private var sourceCache = SourceMatchCache()

  /// A filter of typed values; the defaults keep everything. `types` and `activities` are full
  /// identifiers (``KnownNames/resolveType(_:)`` and ``KnownNames/resolveActivity(_:)`` find them
  /// from short names), `sourceProducts` and `sourceText` compare ignoring case.
  package init(
    types: Set<String>?, activities: Set<String>?, sourceProducts: [String], sourceText: String?,
    from: DateBound?, to: DateBound?, zone: ZoneRule
  ) {
    self.types = types
    self.activities = activities
    self.sourceProducts = sourceProducts.map { $0.lowercased() }
    if let sourceText, !sourceText.isEmpty { self.sourceText = sourceText.lowercased() }
    self.from = from
    self.to = to
    self.zone = zone
  }

  /// A filter by type, activity and source; the defaults keep everything. `types` and
  /// `activities` are full identifiers (`HKQuantityTypeIdentifierStepCount`,
  /// `HKWorkoutActivityTypeRunning`); `sourceProducts` (`Watch`, `iPhone`) and `sourceText` (part
  /// of a source's name) compare ignoring case. ``limitDates(from:to:)`` adds a date range.
  public init(
    types: Set<String>? = nil, activities: Set<String>? = nil, sourceProducts: [String] = [],
    sourceText: String? = nil
  ) {
    self.init(
      types: types, activities: activities, sourceProducts: sourceProducts, sourceText: sourceText, from: nil,
      to: nil, zone: .written)
  }

  /// Keeps only the elements that start from `from` to `to` (either nil for no limit), each
  /// `YYYY-MM-DD` (a whole local day) or `YYYY-MM-DDTHH:MM[:SS]` with or without an offset, as
  /// docs/filters.md describes. Throws a ``HealthPortError`` on a date it cannot read.
  public mutating func limitDates(from: String?, to: String?) throws {
    self.from = try from.map { try DateBound.parse($0, for: .from) }
    self.to = try to.map { try DateBound.parse($0, for: .to) }
  }

  /// A copy with caches of its own (the last source's result, a named zone's days), for another
  /// thread: neither cache may be shared between threads.
  func withOwnCaches() -> ExportFilter {
    var copy = self
    copy.sourceCache = SourceMatchCache()
    if case .named(let named) = zone { copy.zone = .named(NamedZone(named.zone)) }
    return copy
  }

  /// True when nothing is filtered out.
  package var isEmpty: Bool {
    types == nil && activities == nil && sourceProducts.isEmpty && sourceText == nil && from == nil && to == nil
  }

  // MARK: Matching

  /// Whether `element` passes the filter.
  public func includes(_ element: ExportElement) -> Bool {
    switch element {
    case .exportDate, .me:
      return true
    case .record(let record):
      return includesRecord(
        type: record.type, sourceName: record.sourceName, product: record.sourceProduct, start: record.startDate)
    case .correlation(let correlation):
      if activities != nil && types == nil { return false }
      if let types, !types.contains(correlation.type) { return false }
      return matchesSource(name: correlation.sourceName, product: correlation.sourceProduct)
        && inRange(correlation.startDate)
    case .workout(let workout):
      if types != nil && activities == nil { return false }
      if let activities, !activities.contains(workout.workoutActivityType) { return false }
      return matchesSource(name: workout.sourceName, product: workout.sourceProduct) && inRange(workout.startDate)
    case .activitySummary(let summary):
      if types != nil || activities != nil { return false }
      guard from != nil || to != nil else { return true }
      guard let text = summary.dateComponents, case .day(let day)? = try? DateBound.parse(text, for: .from)
      else { return true }
      return dayInRange(day)
    case .clinicalRecord(let record):
      return genericIncludes(record.node, dateAttribute: "receivedDate")
    case .audiogram(let audiogram):
      return genericIncludes(audiogram.node, dateAttribute: "startDate")
    case .visionPrescription(let prescription):
      return genericIncludes(prescription.node, dateAttribute: "dateIssued")
    case .other(let node):
      return genericIncludes(node, dateAttribute: "startDate")
    }
  }

  /// Whether a top-level Record with these fields passes (``includes(_:)``, without the Record).
  func includesRecord(type: String, sourceName: String, product: String?, start: HealthDate) -> Bool {
    if activities != nil && types == nil { return false }
    if let types, !types.contains(type) { return false }
    return matchesSource(name: sourceName, product: product) && inRange(start)
  }

  private func genericIncludes(_ node: ElementNode, dateAttribute: String) -> Bool {
    if types != nil || activities != nil { return false }
    if let name = node[attribute: "sourceName"], !matchesSource(name: name, product: nil) { return false }
    if from != nil || to != nil, let text = node[attribute: dateAttribute], let date = HealthDate(text) {
      return inRange(date)
    }
    return true
  }

  /// Source criteria: the product (or, for a sample without one, the source name) equals one of
  /// `sourceProducts`, and the source name contains `sourceText`, ignoring case.
  @inline(__always)
  package func matchesSource(name: String, product: String?) -> Bool {
    if sourceProducts.isEmpty && sourceText == nil { return true }
    if let last = sourceCache.name, last == name, sourceCache.product == product { return sourceCache.result }
    let result = computeMatchesSource(name: name, product: product)
    sourceCache.name = name
    sourceCache.product = product
    sourceCache.result = result
    return result
  }

  private func computeMatchesSource(name: String, product: String?) -> Bool {
    if !sourceProducts.isEmpty {
      let key = (product ?? name).lowercased()
      if !sourceProducts.contains(key) { return false }
    }
    if let sourceText, !name.lowercased().contains(sourceText) { return false }
    return true
  }

  /// Date criteria on a start date.
  @inline(__always)
  package func inRange(_ date: HealthDate) -> Bool {
    if let from, !satisfies(date, from, isLower: true) { return false }
    if let to, !satisfies(date, to, isLower: false) { return false }
    return true
  }

  private func satisfies(_ date: HealthDate, _ bound: DateBound, isLower: Bool) -> Bool {
    switch bound {
    case .day(let day):
      let local = zone.localDay(date)
      return isLower ? local >= day : local <= day
    case .instant(let instant):
      return isLower ? date.secondsSince1970 >= instant : date.secondsSince1970 <= instant
    case .wallClock(let wall):
      let local = zone.localSeconds(date)
      return isLower ? local >= wall : local <= wall
    }
  }

  /// Date criteria on a whole local day (ActivitySummary): the day's midnight is its start.
  func dayInRange(_ day: Int) -> Bool {
    for (bound, isLower) in [(from, true), (to, false)] {
      guard let bound else { continue }
      let ok: Bool
      switch bound {
      case .day(let limit):
        ok = isLower ? day >= limit : day <= limit
      case .wallClock(let wall):
        let midnight = Int64(day) * 86_400
        ok = isLower ? midnight >= wall : midnight <= wall
      case .instant(let instant):
        // Midnight of that day in --tz, or in UTC without one (the summary has no offset).
        let midnightLocal = Int64(day) * 86_400
        let offset: Int
        switch zone {
        case .written: offset = 0
        case .fixed(let seconds): offset = seconds
        case .named(let named): offset = named.offset(at: midnightLocal - Int64(named.offset(at: midnightLocal)))
        }
        let midnight = midnightLocal - Int64(offset)
        ok = isLower ? midnight >= instant : midnight <= instant
      }
      if !ok { return false }
    }
    return true
  }
}

/// The last source an ``ExportFilter`` checked, with its result.
final class SourceMatchCache {
  var name: String?
  var product: String?
  var result = false
}
