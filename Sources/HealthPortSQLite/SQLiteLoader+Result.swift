import HealthPort

extension SQLiteLoader {
  /// The tables rows are counted for.
  package enum Table: Int, CaseIterable, Sendable {
    case sources, records, metadata, hrvBeats, correlations, correlationRecords, workouts, workoutEvents
    case workoutActivities, workoutStatistics, workoutRoutes, routeLocations, activitySummaries, me
    case otherElements, extras, routePoints, ecgRecordings, ecgSamples

    package var name: String {
      switch self {
      case .sources: "sources"
      case .records: "records"
      case .metadata: "metadata"
      case .hrvBeats: "hrv_beats"
      case .correlations: "correlations"
      case .correlationRecords: "correlation_records"
      case .workouts: "workouts"
      case .workoutEvents: "workout_events"
      case .workoutActivities: "workout_activities"
      case .workoutStatistics: "workout_statistics"
      case .workoutRoutes: "workout_routes"
      case .routeLocations: "route_locations"
      case .activitySummaries: "activity_summaries"
      case .me: "me"
      case .otherElements: "other_elements"
      case .extras: "extras"
      case .routePoints: "route_points"
      case .ecgRecordings: "ecg_recordings"
      case .ecgSamples: "ecg_samples"
      }
    }
  }

  /// What one load did.
  package struct Result: Sendable {
    package var exportID: Int64 = 0
    package var path: String = ""
    /// Rows added per table, indexed by ``Table``.
    package var added = [Int](repeating: 0, count: Table.allCases.count)
    package var inputBytes: Int64 = 0
    package var seconds = 0.0
    package var recordsRead = 0
    package var correlationsRead = 0
    package var workoutsRead = 0
    package var activitySummariesRead = 0
    package var otherElementsRead = 0
    /// Damaged elements passed over with `--skip-invalid` (the reader's ``ReadReport/skipped``).
    package var skipped = 0
    /// What the user should know about this load (a second person's export loaded as the first).
    package var warnings: [LoadWarning] = []

    package var rowsAdded: Int { added.reduce(0, +) }
    package func added(_ table: Table) -> Int { added[table.rawValue] }
  }
}

extension SQLiteLoader.Result {
  /// What `healthport load` (and `convert --to sqlite`) prints on stderr for this input: the
  /// rows added, the time and rate, and the rows added per table.
  package func summary(database: String, person: String) -> String {
    let seconds = max(self.seconds, 0.000_001)
    let megabytes = Double(inputBytes) / 1e6
    let rate = (megabytes / seconds * 10).rounded() / 10
    let who = person.isEmpty ? "" : " (person \(person))"
    var text =
      "loaded \(path) into \(database)\(who): \(Self.grouped(rowsAdded)) rows added "
      + "in \((seconds * 100).rounded() / 100) s, \(rate) MB/s\n"
    for table in SQLiteLoader.Table.allCases where added(table) > 0 {
      // Table names and counts are ASCII: one column per byte.
      let count = Self.grouped(added(table))
      text += "  " + table.name + String(repeating: " ", count: max(1, 22 - table.name.utf8.count))
      text += String(repeating: " ", count: max(0, 12 - count.utf8.count)) + count + "\n"
    }
    if rowsAdded == 0 { text += "  nothing new: everything in this export was already in the database\n" }
    return text
  }

  static func grouped(_ value: Int) -> String { NumberText.grouped(value) }
}
