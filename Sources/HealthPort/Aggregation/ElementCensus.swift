/// Every Record type and Workout activity an input holds, with counts and spans: what an empty
/// answer is explained with (`no StepCount records; the input holds 3,036 records of type
/// 'Steps'`). Top-level Records only, as every count.
package final class ElementCensus: ExportSink {
  package struct Entry: Sendable {
    package var count = 0
    /// The earliest start and the latest end, as written.
    package var first: HealthDate?
    package var last: HealthDate?

    mutating func add(start: HealthDate, end: HealthDate) {
      count += 1
      if first.map({ start.secondsSince1970 < $0.secondsSince1970 }) ?? true { first = start }
      if last.map({ end.secondsSince1970 > $0.secondsSince1970 }) ?? true { last = end }
    }
  }

  package private(set) var recordTypes: [String: Entry] = [:]
  package private(set) var activities: [String: Entry] = [:]

  package init() {}

  package var interest: ElementInterest {
    var interest = ElementInterest.nothing
    interest.records = true
    interest.workouts = true
    return interest
  }

  package func begin(_ header: ExportHeader) throws {}
  package func end(_ report: ReadReport) throws {}

  package func consume(_ element: ExportElement) throws {
    switch element {
    case .record(let record):
      recordTypes[record.type, default: Entry()].add(start: record.startDate, end: record.endDate)
    case .workout(let workout):
      activities[workout.workoutActivityType, default: Entry()].add(start: workout.startDate, end: workout.endDate)
    default: break
    }
  }
}
