/// Hands every element to several sinks, in order: three ``Stats`` (avg, min, max) read in one pass.
package final class SinkGroup: ExportSink {
  package let sinks: [ExportSink]

  package init(_ sinks: [ExportSink]) { self.sinks = sinks }

  /// What any of them wants.
  package var interest: ElementInterest {
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

  package func begin(_ header: ExportHeader) throws { for sink in sinks { try sink.begin(header) } }
  package func consume(_ element: ExportElement) throws { for sink in sinks { try sink.consume(element) } }
  package func end(_ report: ReadReport) throws { for sink in sinks { try sink.end(report) } }
}
