/// A pass-through ``ExportSink`` that notes the sources of the Records, Correlations and Workouts
/// streaming through it, so that a source option that matches none of them (`--source-product
/// Wacth`, `--priority Garmin`) can be reported with the closest names seen, instead of a silent
/// empty result.
package final class SourceNamesSink: ExportStage {
  package let next: ExportSink
  /// Distinct sources in order of first appearance.
  package private(set) var sources: [SourceName] = []
  private var seen: Set<SourceName> = []
  /// The last source noted: samples of one source come in long runs.
  private var last: SourceName?

  package init(next: ExportSink) { self.next = next }

  package func consume(_ element: ExportElement) throws {
    switch element {
    case .record(let record): note(record.sourceName, record.sourceProduct)
    case .correlation(let correlation): note(correlation.sourceName, correlation.sourceProduct)
    case .workout(let workout): note(workout.sourceName, workout.sourceProduct)
    default: break
    }
    try next.consume(element)
  }

  @inline(__always)
  fileprivate func note(_ name: String, _ product: String?) {
    if let last, last.name == name, last.product == product { return }
    note(SourceName(name: name, product: product))
  }

  private func note(_ source: SourceName) {
    last = source
    if seen.insert(source).inserted { sources.append(source) }
  }

  // MARK: Warnings

  /// Source products that equal no source's product (or, for a source without one, its name),
  /// ignoring case, as the filter compares them; each with a hint: the closest and the products seen.
  package func unmatchedProducts(_ values: [String]) -> [(value: String, hint: String)] {
    let keys = Set(sources.map { ($0.product ?? $0.name).lowercased() })
    let candidates = unique(sources.map { $0.product ?? $0.name })
    return values.filter { !keys.contains($0.lowercased()) }.map { ($0, hint($0, candidates, what: "products")) }
  }

  /// The hint for a source text that no source name contains, ignoring case; nil when one does.
  package func unmatchedSourceText(_ text: String) -> String? {
    let needle = text.lowercased()
    guard !sources.contains(where: { $0.name.lowercased().contains(needle) }) else { return nil }
    return hint(text, unique(sources.map(\.name)), what: "sources")
  }

  /// Priority entries that equal no source's product or name, ignoring case (as a de-duplication
  /// ranks them), each with its hint.
  package func unmatchedPriorities(_ entries: [String]) -> [(value: String, hint: String)] {
    let keys = Set(sources.flatMap { [$0.name.lowercased()] + ($0.product.map { [$0.lowercased()] } ?? []) })
    let candidates = unique(sources.compactMap(\.product) + sources.map(\.name))
    return entries.filter { !keys.contains($0.lowercased()) }.map {
      ($0, hint($0, candidates, what: "products and sources"))
    }
  }

  private func hint(_ value: String, _ candidates: [String], what: String) -> String {
    guard !candidates.isEmpty else { return " (it has none)" }
    let closest = NameSuggestion.closest(to: value, in: candidates).map { "; did you mean '\($0)'?" } ?? ""
    let shown = candidates.prefix(8).map { "'\($0)'" }.joined(separator: ", ")
    return "\(closest) (\(what) seen: \(shown)\(candidates.count > 8 ? ", …" : ""))"
  }

  private func unique(_ names: [String]) -> [String] {
    var seen: Set<String> = []
    return names.filter { seen.insert($0).inserted }
  }
}

/// A source as the filters see it: its name and its derived product.
extension SourceNamesSink: RangeWorkSharing {
  func makeRangeWorker() -> (any RangeWorker)? { next.rangeWorker().map { StageWorker(Part(), next: $0) } }

  /// A range's sources in order of first appearance there: after the earlier ranges', they
  /// keep the order of first appearance in the whole export.
  func absorb(_ result: any RangeResult) throws {
    let result = result as! StageResult<[SourceName]>
    for source in result.own { note(source) }
    try (next as! RangeWorkSharing).absorb(result.next)
  }

  /// Notes the sources of a range's elements; every element goes on.
  private final class Part: RangeStagePart {
    let names = SourceNamesSink(next: DiscardingSink())
    private var sourceName = RecentString()

    func pass(_ element: ExportElement) throws -> Bool {
      try names.consume(element)
      return true
    }

    func passRecord(_ head: RecordHead) -> Bool {
      names.note(sourceName.text(head.sourceName), head.sourceProduct)
      return true
    }

    func finishRange() -> [SourceName] {
      defer { names.forget() }
      return names.sources
    }
  }

  fileprivate func forget() {
    sources.removeAll(keepingCapacity: true)
    seen.removeAll(keepingCapacity: true)
    last = nil
  }
}

package struct SourceName: Hashable, Sendable {
  package var name: String
  package var product: String?
}
