/// A pipeline stage that counts the top-level elements passing through, by element name, and
/// hands everything on unchanged. `convert` puts it in front of the writer; a filter stage slots
/// in the same way (an ``ExportSink`` that wraps the next one).
package final class CountingSink: ExportStage {
  package let next: ExportSink
  private var tally = ElementNameCounts()

  package init(_ next: ExportSink) { self.next = next }

  /// Top-level elements handed on, by element name, in order of first appearance.
  package var counts: [(name: String, count: Int)] { tally.counts }
  package var total: Int { tally.total }

  package func consume(_ element: ExportElement) throws {
    try next.consume(element)
    tally.add(element)
  }
}

extension CountingSink: RangeWorkSharing {
  func makeRangeWorker() -> (any RangeWorker)? { next.rangeWorker().map { StageWorker(Part(), next: $0) } }

  func absorb(_ result: any RangeResult) throws {
    let result = result as! StageResult<ElementNameCounts>
    try (next as! RangeWorkSharing).absorb(result.next)
    tally.merge(result.own)
  }

  /// A range's counts; every element goes on.
  private final class Part: RangeStagePart {
    var tally = ElementNameCounts()

    func pass(_ element: ExportElement) -> Bool {
      tally.add(element)
      return true
    }

    func passRecord(_ head: RecordHead) -> Bool {
      tally.addRecord()
      return true
    }

    func finishRange() -> ElementNameCounts {
      defer { tally = ElementNameCounts() }
      return tally
    }
  }
}

/// Top-level elements by name, in order of first appearance, and their total.
struct ElementNameCounts {
  private(set) var counts: [(name: String, count: Int)] = []
  private(set) var total = 0
  private var index: [String: Int] = [:]
  // The common kinds are counted without hashing their name.
  private var recordSlot = -1
  private var workoutSlot = -1
  private var correlationSlot = -1

  mutating func add(_ element: ExportElement) {
    if case .record = element { return addRecord() }
    total += 1
    let slot: Int
    switch element {
    case .workout: slot = workoutSlot >= 0 ? workoutSlot : self.slot("Workout")
    case .correlation: slot = correlationSlot >= 0 ? correlationSlot : self.slot("Correlation")
    default: slot = self.slot(element.elementName)
    }
    counts[slot].count += 1
  }

  /// Counts a top-level Record.
  mutating func addRecord() {
    total += 1
    counts[recordSlot >= 0 ? recordSlot : slot("Record")].count += 1
  }

  /// Adds the counts of the elements that came after these.
  mutating func merge(_ later: ElementNameCounts) {
    for (name, count) in later.counts {
      counts[slot(name)].count += count
    }
    total += later.total
  }

  private mutating func slot(_ name: String) -> Int {
    if let known = index[name] { return known }
    let slot = counts.count
    index[name] = slot
    counts.append((name, 0))
    switch name {
    case "Record": recordSlot = slot
    case "Workout": workoutSlot = slot
    case "Correlation": correlationSlot = slot
    default: break
    }
    return slot
  }
}
