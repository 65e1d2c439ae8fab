/// Heart rate, pace, elevation and the indoor flag of `healthport workouts`.
extension WorkoutTotals {
  package static let heartRateType = "HKQuantityTypeIdentifierHeartRate"

  /// Activities whose pace is shown (short names), when their distance is known and positive.
  package static let distanceActivities: Set<String> = [
    "Running", "Walking", "Hiking", "Cycling", "HandCycling", "Swimming", "SwimBikeRun", "WheelchairWalkPace",
    "WheelchairRunPace", "CrossCountrySkiing", "DownhillSkiing", "Snowboarding", "Rowing", "PaddleSports",
    "SkatingSports",
  ]

  /// Average and maximum from the workout's own HeartRate statistics; without one, from those of
  /// its activities (the averages weighted by their lengths, the largest maximum).
  static func heartRateStatistics(_ workout: Workout) throws -> (average: Double?, maximum: Double?) {
    func read(_ statistics: WorkoutStatistics) throws -> (average: Double?, maximum: Double?) {
      func number(_ text: String?, _ what: String) throws -> Double? {
        guard let text else { return nil }
        guard let value = Double(text),
          let converted = Units.convert(value, from: statistics.unit ?? "count/min", to: "count/min")
        else {
          throw HealthPortError(
            .malformed,
            message:
              "the workout starting \(workout.startDate) has a HeartRate \(what) '\(text)' in '\(statistics.unit ?? "")', which is not a number of count/min"
          )
        }
        return converted
      }
      return (try number(statistics.average, "average"), try number(statistics.maximum, "maximum"))
    }
    if let own = workout.statistics.first(where: { $0.type == heartRateType }) { return try read(own) }
    var weighted = 0.0
    var weight = 0.0
    var maximum: Double?
    for activity in workout.activities {
      for case .statistics(let statistics) in activity.children where statistics.type == heartRateType {
        let (average, top) = try read(statistics)
        if let average {
          let length = Double(max(1, statistics.endDate.secondsSince1970 - statistics.startDate.secondsSince1970))
          weighted += average * length
          weight += length
        }
        if let top { maximum = max(maximum ?? top, top) }
      }
    }
    return (weight > 0 ? weighted / weight : nil, maximum)
  }

  /// `HKElevationAscended` (`"4200 cm"`) of the workout, else the sum of its activities'; in `unit`.
  static func elevationGain(_ workout: Workout, in unit: String) throws -> Double? {
    func gain(_ entries: [MetadataEntry]) throws -> Double? {
      guard let entry = entries.first(where: { $0.key == "HKElevationAscended" }) else { return nil }
      let parts = entry.value.split(separator: " ", maxSplits: 1)
      guard let value = parts.first.flatMap({ Double($0) }),
        let converted = Units.convert(value, from: parts.count > 1 ? String(parts[1]) : "m", to: unit)
      else {
        throw HealthPortError(
          .malformed,
          message:
            "the workout starting \(workout.startDate) has an HKElevationAscended '\(entry.value)' that is not a length"
        )
      }
      return converted
    }
    if let own = try gain(workout.metadata) { return own }
    var total: Double?
    for activity in workout.activities {
      let entries = activity.children.compactMap { if case .metadata(let entry) = $0 { entry } else { nil } }
      if let part = try gain(entries) { total = (total ?? 0) + part }
    }
    return total
  }

  /// `HKIndoorWorkout`: `1` indoor, `0` outdoor; nil when absent or another value.
  static func indoor(_ workout: Workout) -> Bool? {
    switch workout.metadata.first(where: { $0.key == "HKIndoorWorkout" })?.value {
    case "1": true
    case "0": false
    default: nil
    }
  }

  /// Fills in the heart rates of the workouts without statistics from a pass over the records
  /// (``WorkoutHeartRates``), in the rows and the summary.
  package func apply(_ heartRates: WorkoutHeartRates) {
    var rowIndex: [Int: Int] = [:]
    for (index, row) in rows.enumerated() { rowIndex[row.sequence] = index }
    for (number, window) in heartRateWindows.enumerated() {
      guard let found = heartRates.found[number] else { continue }
      let average = found.sum / Double(found.count)
      if let index = rowIndex[window.sequence] {
        rows[index].averageHeartRate = average
        rows[index].maximumHeartRate = found.maximum
      }
      if let index = summary.firstIndex(where: { $0.activity == window.activity }) {
        summary[index].addHeartRate(average: average, maximum: found.maximum, minutes: window.durationMinutes)
      }
    }
  }
}

/// A workout whose heart rates come from its HeartRate records.
package struct HeartRateWindow: Sendable {
  package var sourceName: String
  /// The `name:` of its device string; nil without a device.
  package var deviceName: String?
  package var start: Int64
  package var end: Int64
  var sequence: Int
  var activity: String
  var durationMinutes: Double?

  static func deviceName(_ device: DeviceString) -> String? { DeviceInfo(parsing: device.description)?.name }
}

/// The second pass of `workouts` over a file: the HeartRate records whose source name and device
/// name are a workout's and whose start lies inside it (both ends included), for the workouts
/// without heart-rate statistics. Records are matched by source name first and by time through a
/// binary search; only a record inside a window has its device name parsed (cached per device).
/// Rewrites (docs/steps.md) count once unless `keepRewrites`: each record found in a window goes
/// through `RewriteCollapse` (bounded memory) and is added up at the end.
package final class WorkoutHeartRates: ExportSink {
  package struct Found: Sendable {
    package var sum = 0.0
    package var count = 0
    package var maximum = -Double.infinity
  }

  /// Window indexes of each source name, sorted by start.
  private var bySource: [String: [Int]] = [:]
  private let windows: [HeartRateWindow]
  private var longest: Int64 = 0
  private var deviceNames: [String: String?] = [:]
  /// Per window index (of ``WorkoutTotals/heartRateWindows``), what its records gave.
  package private(set) var found: [Int: Found] = [:]
  /// The records found, until ``end(_:)`` drops their rewrites (nil with `keepRewrites`).
  private var collapse: RewriteCollapse?
  /// One group per source name, device name and unit: the windows a record counts in are found
  /// again from them and its start.
  private var groups = FirstSeenIDs<GroupKey, UInt32>()
  private struct GroupKey: Hashable {
    let sourceName: String
    let deviceName: String?
    let unit: String?
  }
  /// The rewritten HeartRate samples dropped, per source name. Set by ``end(_:)``.
  package private(set) var rewrites: [StepTotals.RewriteCount] = []

  package init(_ windows: [HeartRateWindow], keepRewrites: Bool = false) {
    self.windows = windows
    if !keepRewrites { collapse = RewriteCollapse(purpose: "HeartRate samples of workouts") }
    for (index, window) in windows.enumerated() {
      bySource[window.sourceName, default: []].append(index)
      longest = max(longest, window.end - window.start)
    }
    for key in bySource.keys { bySource[key]?.sort { windows[$0].start < windows[$1].start } }
  }

  package var interest: ElementInterest { .records(ofTypes: [WorkoutTotals.heartRateType]) }

  package func begin(_ header: ExportHeader) throws {}

  package func end(_ report: ReadReport) throws {
    guard let collapse else { return }
    self.collapse = nil
    let dropped = try collapse.finish { sample in
      let key = groups.values[Int(sample.group)]
      forEachWindow(covering: sample.start, of: key.sourceName) { number in
        if windows[number].deviceName == key.deviceName { add(Double(bitPattern: sample.value), to: number) }
      }
    }
    rewrites = StepTotals.RewriteCount.perSource(dropped) { groups.values[$0].sourceName }
  }

  private func add(_ bpm: Double, to window: Int) {
    var entry = found[window] ?? Found()
    entry.sum += bpm
    entry.count += 1
    entry.maximum = max(entry.maximum, bpm)
    found[window] = entry
  }

  package func consume(_ element: ExportElement) throws {
    guard case .record(let record) = element, record.type == WorkoutTotals.heartRateType,
      bySource[record.sourceName] != nil
    else { return }
    let time = record.startDate.secondsSince1970
    var deviceName: String??
    var bpm: Double?
    var group: UInt32?
    try forEachWindow(covering: time, of: record.sourceName) { number in
      if deviceName == nil { deviceName = .some(self.deviceName(record.deviceString)) }
      guard deviceName == .some(windows[number].deviceName) else { return }
      if bpm == nil {
        guard let value = record.numericValue,
          let converted = Units.convert(value, from: record.unit ?? "count/min", to: "count/min")
        else {
          throw HealthPortError(
            .malformed,
            message:
              "the HeartRate sample starting \(record.startDate) has the value '\(record.value ?? "")' in '\(record.unit ?? "")', which is not a number of count/min"
          )
        }
        bpm = converted
      }
      guard let bpm else { return }
      guard let collapse else {
        add(bpm, to: number)
        return
      }
      // Once per record, whatever the number of windows: they are found again at the end.
      guard group == nil else { return }
      let key = GroupKey(sourceName: record.sourceName, deviceName: deviceName ?? nil, unit: record.unit)
      group = groups.id(of: key)
      try collapse.add(
        start: time, end: record.endDate.secondsSince1970, value: RewriteCollapse.key(number: bpm), group: group!,
        tag: 0)
    }
  }

  /// Calls `body` with the index of every window of the source that covers `time` (both ends
  /// included).
  private func forEachWindow(covering time: Int64, of sourceName: String, _ body: (Int) throws -> Void) rethrows {
    guard let candidates = bySource[sourceName] else { return }
    // The first window starting after `time`; those before it that may still cover it.
    var low = 0
    var high = candidates.count
    while low < high {
      let middle = (low + high) / 2
      if windows[candidates[middle]].start <= time { low = middle + 1 } else { high = middle }
    }
    var index = low - 1
    while index >= 0, windows[candidates[index]].start >= time - longest {
      let number = candidates[index]
      index -= 1
      if windows[number].end >= time { try body(number) }
    }
  }

  private func deviceName(_ device: DeviceString?) -> String? {
    guard let device else { return nil }
    if let known = deviceNames[device.rest] { return known }
    let name = HeartRateWindow.deviceName(device)
    if deviceNames.count < 10_000 { deviceNames[device.rest] = name }
    return name
  }
}
