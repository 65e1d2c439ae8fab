import HealthPort

extension SQLiteLoader {
  /// The tables rows are counted for.
  public enum Table: Int, CaseIterable, Sendable {
    case sources, records, metadata, hrvBeats, correlations, correlationRecords, workouts, workoutEvents
    case workoutActivities, workoutStatistics, workoutRoutes, routeLocations, activitySummaries, me
    case otherElements, extras, routePoints, ecgRecordings, ecgSamples

    public var name: String {
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
  public struct Result: Sendable {
    public var exportID: Int64 = 0
    public var path: String = ""
    /// Rows added per table, indexed by ``Table``.
    public var added = [Int](repeating: 0, count: Table.allCases.count)
    public var inputBytes: Int64 = 0
    public var seconds = 0.0
    public var recordsRead = 0
    public var correlationsRead = 0
    public var workoutsRead = 0
    public var activitySummariesRead = 0
    public var otherElementsRead = 0
    /// Damaged elements passed over with `--skip-invalid` (the reader's ``ReadReport/skipped``).
    public var skipped = 0
    /// What the user should know about this load (a second person's export loaded as the first).
    public var warnings: [LoadWarning] = []

    public var rowsAdded: Int { added.reduce(0, +) }
    public func added(_ table: Table) -> Int { added[table.rawValue] }
  }
}

extension SQLiteLoader.Result {
  /// What `healthport load` (and `convert --to sqlite`) prints on stderr for this input: the
  /// rows added, the time and rate, and the rows added per table.
  public func summary(database: String, person: String) -> String {
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
