/// How samples are grouped: by local day, ISO week, month or year.
public enum PeriodKind: String, CaseIterable, Sendable {
  /// A local day: `2024-03-01`.
  case day
  /// An ISO week, Monday to Sunday: `2024-W09`.
  case week
  /// A calendar month: `2024-03`.
  case month
  /// A calendar year: `2024`.
  case year

  /// A sortable key for the period holding local day `day` (days since 1970-01-01):
  /// the day itself, the Monday of its ISO week, `year * 12 + month - 1`, or the year.
  @inline(__always)
  package func key(forDay day: Int) -> Int {
    switch self {
    case .day:
      return day
    case .week:
      // 1970-01-01 was a Thursday; Monday = 0.
      let weekday = ((day + 3) % 7 + 7) % 7
      return day - weekday
    case .month:
      let (year, month, _) = HealthDate.civil(fromDays: day)
      return year * 12 + month - 1
    case .year:
      return HealthDate.civil(fromDays: day).year
    }
  }

  /// The label of a key: `YYYY-MM-DD`, `YYYY-Www`, `YYYY-MM` or `YYYY`.
  package func label(forKey key: Int) -> String {
    func pad(_ value: Int, _ width: Int) -> String {
      let text = String(abs(value))
      return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - text.count)) + text
    }
    switch self {
    case .day:
      let (year, month, day) = HealthDate.civil(fromDays: key)
      return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    case .week:
      // The ISO year is the year of the week's Thursday; week 1 holds the year's first Thursday.
      let thursday = key + 3
      let isoYear = HealthDate.civil(fromDays: thursday).year
      let firstDay = HealthDate.daysSince1970(year: isoYear, month: 1, day: 1)
      let week = (thursday - firstDay) / 7 + 1
      return "\(pad(isoYear, 4))-W\(pad(week, 2))"
    case .month:
      let year = key >= 0 ? key / 12 : (key - 11) / 12
      return "\(pad(year, 4))-\(pad(key - year * 12 + 1, 2))"
    case .year:
      return pad(key, 4)
    }
  }

  /// The label of the period holding local day `day`.
  package func label(forDay day: Int) -> String { label(forKey: key(forDay: day)) }
}

/// Maps a sample's start date to its period key, with a one-entry cache (samples arrive mostly
/// in date order, so most lookups hit the previous day).
struct PeriodMapper {
  let kind: PeriodKind
  let zone: ZoneRule
  private var lastDay = Int.min
  private var lastKey = 0

  init(kind: PeriodKind, zone: ZoneRule) {
    self.kind = kind
    self.zone = zone
  }

  @inline(__always)
  mutating func key(_ date: HealthDate) -> Int {
    let day = zone.localDay(date)
    if day != lastDay {
      lastDay = day
      lastKey = kind.key(forDay: day)
    }
    return lastKey
  }
}
