/// `info --rewrites`: how many rewrites (docs/steps.md, "Rewrites and duplicated workouts") each source
/// wrote of each type: top-level Records with the same source name, type, unit, start and end
/// instants and value (the number for quantities, the value as written otherwise) as an earlier
/// one. Memory stays bounded (`RewriteCollapse`); plain `info` never pays for it.
package final class RewriteCensus: ExportSink {
  package struct Count: Hashable, Sendable {
    package var sourceName: String
    package var type: String
    package var count: Int
  }

  private var collapse: RewriteCollapse? = RewriteCollapse(purpose: "records")
  private var groups = RewriteGroups()
  /// Per (source, type) with at least one rewrite, in order of first appearance. Set by ``end(_:)``.
  package private(set) var counts: [Count] = []

  package init() {}

  package var interest: ElementInterest {
    var interest = ElementInterest.nothing
    interest.records = true
    return interest
  }

  package func begin(_ header: ExportHeader) throws {}

  package func consume(_ element: ExportElement) throws {
    guard case .record(let record) = element, let collapse else { return }
    try collapse.add(
      start: record.startDate.secondsSince1970, end: record.endDate.secondsSince1970,
      value: RewriteCollapse.key(of: record),
      group: groups.id(sourceName: record.sourceName, type: record.type, unit: record.unit), tag: 0)
  }

  package func end(_ report: ReadReport) throws {
    guard let collapse else { return }
    self.collapse = nil
    let dropped = try collapse.finish { _ in }
    var index: [[String]: Int] = [:]
    counts = []
    for (group, count) in dropped.enumerated() where count > 0 {
      let key = groups.keys[group]
      if let at = index[[key.sourceName, key.type]] {
        counts[at].count += count
      } else {
        index[[key.sourceName, key.type]] = counts.count
        counts.append(Count(sourceName: key.sourceName, type: key.type, count: count))
      }
    }
  }
}
