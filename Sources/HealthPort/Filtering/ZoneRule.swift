import Foundation

/// Which UTC offset turns a sample's instant into a local wall-clock time (and so a local day).
///
/// - `.written`: the offset written on each date (the default). Exports write every date in the
///   offset the phone had at export time, so this is the exporting phone's zone.
/// - `.fixed(seconds)`: one offset for every instant (`--tz +02:00`).
/// - `.named(zone)`: an IANA zone (`--tz Europe/Berlin`): the offset in force at each sample's
///   instant, daylight saving time included, from the system's time zone database.
package enum ZoneRule {
  case written
  case fixed(Int)
  case named(NamedZone)

  /// Parses a zone: `+02:00`, `-0530`, `+2`, `Z`, `UTC`, or an IANA name such as `Europe/Berlin`.
  package static func parse(_ text: String) throws -> ZoneRule {
    if let offset = parseOffset(text) { return .fixed(offset) }
    if text == "Z" || text.uppercased() == "UTC" || text.uppercased() == "GMT" { return .fixed(0) }
    if text.contains("/") || text.first?.isLetter == true, let zone = TimeZone(identifier: text) {
      return .named(NamedZone(zone))
    }
    let known = TimeZone.knownTimeZoneIdentifiers
    var hints: [String] = []
    var pool = known
    while hints.count < 3, let best = NameSuggestion.closest(to: text, in: pool, maxDistance: max(3, text.count / 3)) {
      hints.append(best)
      pool.removeAll { $0 == best }
    }
    throw HealthPortError(.unknownTimeZone(value: text, suggestions: hints))
  }

  /// `±HH:MM`, `±HHMM` or `±HH` as seconds east of UTC; nil for anything else.
  package static func parseOffset(_ text: String) -> Int? {
    let bytes = Array(text.utf8)
    guard let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
    var digits = Array(bytes.dropFirst())
    if digits.count == 5, digits[2] == UInt8(ascii: ":") { digits.remove(at: 2) }
    guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ (48...57).contains($0) }) else { return nil }
    let hours = Int(digits[0] - 48) * 10 + Int(digits[1] - 48)
    let minutes = digits.count == 4 ? Int(digits[2] - 48) * 10 + Int(digits[3] - 48) : 0
    guard hours <= 18, minutes < 60 else { return nil }
    let seconds = hours * 3600 + minutes * 60
    return sign == UInt8(ascii: "-") ? -seconds : seconds
  }

  /// The offset (seconds east of UTC) that applies to `date`'s instant under this rule.
  @inline(__always)
  package func offset(for date: HealthDate) -> Int {
    switch self {
    case .written: Int(date.offsetSeconds)
    case .fixed(let seconds): seconds
    case .named(let zone): zone.offset(at: date.secondsSince1970)
    }
  }

  /// Local wall-clock seconds since 1970-01-01 00:00 for `date` under this rule.
  @inline(__always)
  package func localSeconds(_ date: HealthDate) -> Int64 { date.secondsSince1970 + Int64(offset(for: date)) }

  /// The local day (days since 1970-01-01) of `date` under this rule.
  @inline(__always)
  package func localDay(_ date: HealthDate) -> Int { HealthDate.floorDiv(localSeconds(date), 86_400) }
}

/// An IANA time zone with a cache of its offsets, so that the time zone database is asked about
/// each UTC day once (twice on a day with a transition), not about every sample.
///
/// Rule: the offset at an instant is `TimeZone.secondsFromGMT(for:)` at that instant. For each UTC
/// day the offsets at its start and end are looked up; when they agree the day has one offset
/// (no zone changes its offset twice within 24 hours), otherwise the transition second is found by
/// bisection and instants before it get the old offset, instants from it on the new one.
package final class NamedZone {
  package let zone: TimeZone
  private struct Day {
    var day: Int64
    var transition: Int64
    var before: Int
    var after: Int
  }
  private var last = Day(day: .min, transition: 0, before: 0, after: 0)
  private var days: [Int64: Day] = [:]

  package init(_ zone: TimeZone) { self.zone = zone }

  package var identifier: String { zone.identifier }

  /// Seconds east of UTC in force at `instant` (Unix seconds).
  package func offset(at instant: Int64) -> Int {
    let day = instant >= 0 ? instant / 86_400 : (instant - 86_399) / 86_400
    if day != last.day { last = lookup(day) }
    return instant < last.transition ? last.before : last.after
  }

  private func lookup(_ day: Int64) -> Day {
    if let found = days[day] { return found }
    let start = day * 86_400
    let end = start + 86_400
    let before = secondsFromGMT(start)
    let after = secondsFromGMT(end)
    var entry = Day(day: day, transition: start, before: before, after: before)
    if before != after {
      // Find the first second in (start, end] that has the new offset.
      var low = start
      var high = end
      while high - low > 1 {
        let middle = low + (high - low) / 2
        if secondsFromGMT(middle) == before { low = middle } else { high = middle }
      }
      entry = Day(day: day, transition: high, before: before, after: after)
    }
    if days.count > 100_000 { days.removeAll(keepingCapacity: true) }
    days[day] = entry
    return entry
  }

  private func secondsFromGMT(_ instant: Int64) -> Int {
    zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant)))
  }
}
