/// A sleep state of `HKCategoryTypeIdentifierSleepAnalysis`.
package enum SleepState: UInt8, CaseIterable, Sendable {
  case inBed, core, deep, rem, unspecified, awake

  /// The state of a sample's value: the iOS 16+ names, the pre-iOS 16 `Asleep` (unspecified) and
  /// iOS 8's raw numbers (`0` in bed … `5` REM); nil for anything else.
  package init?(value: String) {
    let prefix = "HKCategoryValueSleepAnalysis"
    let name = value.hasPrefix(prefix) ? String(value.dropFirst(prefix.count)) : value
    switch name {
    case "InBed", "0": self = .inBed
    case "Asleep", "AsleepUnspecified", "1": self = .unspecified
    case "Awake", "2": self = .awake
    case "AsleepCore", "3": self = .core
    case "AsleepDeep", "4": self = .deep
    case "AsleepREM", "5": self = .rem
    default: return nil
    }
  }
}

/// One night of `healthport sleep`: minutes per state, bedtime and wake time.
///
/// The night labelled D holds the samples whose local start is in [D−1 18:00, D 18:00).
package struct SleepNight: Hashable, Sendable {
  /// D as days since 1970-01-01.
  package var day: Int
  /// D as `YYYY-MM-DD`.
  package var night: String
  /// Seconds of the union of the night's `InBed` intervals, all sources.
  package var inBedSeconds: Int64
  /// Seconds per state in the merged asleep layer (every state but in bed).
  package var coreSeconds: Int64
  package var deepSeconds: Int64
  package var remSeconds: Int64
  package var unspecifiedSeconds: Int64
  package var awakeSeconds: Int64
  /// The earliest start of the night's samples, as written.
  package var bedtime: HealthDate
  /// The latest end of the night's samples, as written.
  package var wakeTime: HealthDate
  /// Local wall-clock minutes from 18:00 of D−1 to the bedtime (0 ..< 1440).
  package var bedtimeMinutesAfter18: Double
  /// Local wall-clock minutes from 18:00 of D−1 to the wake time (may pass 1440).
  package var wakeMinutesAfter18: Double
  /// Source names of the night's samples, in order of first appearance.
  package var sources: [String]
  /// Samples of the night after rewrites were dropped.
  package var samples: Int

  package var asleepSeconds: Int64 { coreSeconds + deepSeconds + remSeconds + unspecifiedSeconds }

  package var inBedMinutes: Double { Double(inBedSeconds) / 60 }
  package var asleepMinutes: Double { Double(asleepSeconds) / 60 }
  package var coreMinutes: Double { Double(coreSeconds) / 60 }
  package var deepMinutes: Double { Double(deepSeconds) / 60 }
  package var remMinutes: Double { Double(remSeconds) / 60 }
  package var unspecifiedMinutes: Double { Double(unspecifiedSeconds) / 60 }
  package var awakeMinutes: Double { Double(awakeSeconds) / 60 }
}

/// Averages per night over a week or a month of ``SleepNight``s (`sleep --by week|month`).
package struct SleepAverage: Hashable, Sendable {
  /// The sortable period key (``PeriodKind/key(forDay:)``) of the nights' D.
  package var key: Int
  package var period: String
  package var nights: Int
  package var inBedMinutes: Double
  package var asleepMinutes: Double
  package var coreMinutes: Double
  package var deepMinutes: Double
  package var remMinutes: Double
  package var unspecifiedMinutes: Double
  package var awakeMinutes: Double
  /// Mean of ``SleepNight/bedtimeMinutesAfter18``: 23:30 and 00:30 average to 00:00.
  package var bedtimeMinutesAfter18: Double
  package var wakeMinutesAfter18: Double

  /// Minutes after 18:00 as a clock time `HH:MM`, rounded to the minute.
  package static func clock(minutesAfter18 minutes: Double) -> String {
    let total = (Int(minutes.rounded()) + 18 * 60) % 1440
    let hours = total / 60
    let rest = total % 60
    return (hours < 10 ? "0" : "") + String(hours) + ":" + (rest < 10 ? "0" : "") + String(rest)
  }

  /// Groups nights (ascending) by the period of their D and averages each group.
  package static func averages(of nights: [SleepNight], by kind: PeriodKind) -> [SleepAverage] {
    var result: [SleepAverage] = []
    for night in nights {
      let key = kind.key(forDay: night.day)
      if result.last?.key != key {
        result.append(
          SleepAverage(
            key: key, period: kind.label(forKey: key), nights: 0, inBedMinutes: 0, asleepMinutes: 0, coreMinutes: 0,
            deepMinutes: 0, remMinutes: 0, unspecifiedMinutes: 0, awakeMinutes: 0, bedtimeMinutesAfter18: 0,
            wakeMinutesAfter18: 0))
      }
      let index = result.count - 1
      result[index].nights += 1
      result[index].inBedMinutes += night.inBedMinutes
      result[index].asleepMinutes += night.asleepMinutes
      result[index].coreMinutes += night.coreMinutes
      result[index].deepMinutes += night.deepMinutes
      result[index].remMinutes += night.remMinutes
      result[index].unspecifiedMinutes += night.unspecifiedMinutes
      result[index].awakeMinutes += night.awakeMinutes
      result[index].bedtimeMinutesAfter18 += night.bedtimeMinutesAfter18
      result[index].wakeMinutesAfter18 += night.wakeMinutesAfter18
    }
    return result.map { total in
      var average = total
      let count = Double(total.nights)
      average.inBedMinutes /= count
      average.asleepMinutes /= count
      average.coreMinutes /= count
      average.deepMinutes /= count
      average.remMinutes /= count
      average.unspecifiedMinutes /= count
      average.awakeMinutes /= count
      average.bedtimeMinutesAfter18 /= count
      average.wakeMinutesAfter18 /= count
      return average
    }
  }
}
