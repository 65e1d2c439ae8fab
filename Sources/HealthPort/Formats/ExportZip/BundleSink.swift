/// Stands between the export reader and a sink that wants side files: it hands every element
/// on, notes each Workout's route `FileReference`s (whatever the sink's own interest) so that
/// route files can be joined to their workout, and holds back `end` until the side files are read.
final class BundleSink: ExportStage, ElementLocating {
  /// A workout's route, as a `FileReference` names it.
  struct Reference {
    var workoutIndex: Int
    var routeIndex: Int
    /// The workout's `WorkoutActivity` ranges (Unix seconds), in order.
    var activities: [(start: Int64, end: Int64?)]
    /// Where the workout is, for the warning when its file is missing.
    var workout: String
    var seen = false
  }

  let next: ExportSink
  private(set) var references: [String: Reference] = [:]
  /// The report `end` was called with (the export's), handed on by ``finish(_:)``.
  private(set) var exportReport: ReadReport?
  private var workoutCount = 0
  private let forwardsWorkouts: Bool
  var locate: (() -> (line: Int, column: Int))?
  var documentName = ""
  /// For a bundle written back: the export rendered in Apple's layout, digested.
  var layoutCheck: ExportLayoutCheck?
  private(set) var renderedDigest: StreamDigest?

  init(next: ExportSink) {
    self.next = next
    forwardsWorkouts = next.interest.workouts
  }

  var interest: ElementInterest {
    var interest = next.interest
    interest.workouts = true
    return interest
  }

  /// The next sink's, and side files. Records pass straight on, so they may be tallied where
  /// the next sink tallies them, unless a bundle written back checks them here.
  var capabilities: SinkCapabilities {
    let all = next.capabilities.union(.sideFiles)
    return layoutCheck == nil ? all : all.subtracting(.recordTallies)
  }

  func begin(_ header: ExportHeader) throws {
    try layoutCheck?.begin(header)
    try next.begin(header)
  }

  func consume(_ element: ExportElement) throws {
    try layoutCheck?.consume(element)
    guard case .workout(let workout) = element else { return try next.consume(element) }
    note(workout)
    if forwardsWorkouts { try next.consume(element) }
  }

  func end(_ report: ReadReport) throws {
    renderedDigest = try layoutCheck?.finish(report)
    exportReport = report
  }

  /// The reference to the route file at `reference` (a ``SideFilePath/reference``), marked seen.
  func join(_ reference: String) -> Reference? {
    guard var found = references[reference] else { return nil }
    found.seen = true
    references[reference] = found
    return found
  }

  private func note(_ workout: Workout) {
    defer { workoutCount += 1 }
    var routeIndex = 0
    var location: String?
    for child in workout.children {
      guard case .route(let route) = child else { continue }
      defer { routeIndex += 1 }
      for case .fileReference(let file) in route.children {
        if location == nil {
          let place = locate.map { at in "\(documentName):\(at().line):\(at().column)" } ?? documentName
          location = "the \(workout.workoutActivityType) workout of \(workout.startDate) (ending at \(place))"
        }
        references[SideFilePath.referenceKey(file.path)] = Reference(
          workoutIndex: workoutCount, routeIndex: routeIndex,
          activities: workout.activities.map { ($0.startDate.secondsSince1970, $0.endDate?.secondsSince1970) },
          workout: location ?? "a workout")
      }
    }
  }
}

/// A sink that can be told where the reader is (the XML reader sets ``locate``), for messages
/// about an element after it was built.
protocol ElementLocating: AnyObject {
  var locate: (() -> (line: Int, column: Int))? { get set }
  var documentName: String { get set }
}
