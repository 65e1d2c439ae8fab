/// Hands every element to several sinks, in order: three ``Stats`` (avg, min, max) read in one pass.
public final class SinkGroup: ExportSink {
  public let sinks: [ExportSink]

  public init(_ sinks: [ExportSink]) { self.sinks = sinks }

  /// What any of them wants.
  public var interest: ElementInterest {
    var union = ElementInterest.nothing
    var anyRecords = false
    for sink in sinks {
      let other = sink.interest
      if other.records {
        if !anyRecords {
          union.recordTypes = other.recordTypes
        } else if let mine = union.recordTypes, let theirs = other.recordTypes {
          union.recordTypes = mine.union(theirs)
        } else {
          union.recordTypes = nil
        }
        anyRecords = true
      }
      union.records = union.records || other.records
      union.correlations = union.correlations || other.correlations
      union.workouts = union.workouts || other.workouts
      union.others = union.others || other.others
    }
    return union
  }

  public func begin(_ header: ExportHeader) throws { for sink in sinks { try sink.begin(header) } }
  public func consume(_ element: ExportElement) throws { for sink in sinks { try sink.consume(element) } }
  public func end(_ report: ReadReport) throws { for sink in sinks { try sink.end(report) } }
}
