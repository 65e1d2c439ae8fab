/// A pipeline stage that counts the top-level elements passing through, by element name, and
/// hands everything on unchanged. `convert` puts it in front of the writer; a filter stage slots
/// in the same way (an ``ExportSink`` that wraps the next one).
public final class CountingSink: ExportSink {
  public let next: ExportSink
  /// Top-level elements handed on, by element name, in order of first appearance.
  public private(set) var counts: [(name: String, count: Int)] = []
  private var index: [String: Int] = [:]
  public private(set) var total = 0

  public init(_ next: ExportSink) { self.next = next }

  public func begin(_ header: ExportHeader) throws { try next.begin(header) }

  public func consume(_ element: ExportElement) throws {
    try next.consume(element)
    total += 1
    // The common kinds are counted without hashing their name.
    let slot: Int
    switch element {
    case .record: slot = Self.slot(&recordSlot, "Record", self)
    case .workout: slot = Self.slot(&workoutSlot, "Workout", self)
    case .correlation: slot = Self.slot(&correlationSlot, "Correlation", self)
    default:
      let name = element.elementName
      if let known = index[name] {
        slot = known
      } else {
        slot = counts.count
        index[name] = slot
        counts.append((name, 0))
      }
    }
    counts[slot].count += 1
  }

  private var recordSlot = -1
  private var workoutSlot = -1
  private var correlationSlot = -1

  @inline(__always)
  private static func slot(_ cached: inout Int, _ name: String, _ sink: CountingSink) -> Int {
    if cached < 0 {
      cached = sink.counts.count
      sink.index[name] = cached
      sink.counts.append((name, 0))
    }
    return cached
  }

  public func end(_ report: ReadReport) throws { try next.end(report) }
  public var wantsSideFiles: Bool { next.wantsSideFiles }
  public func consumeSideFile(_ event: SideFileEvent) throws { try next.consumeSideFile(event) }
  public var wantsBundleMembers: Bool { next.wantsBundleMembers }
  public func consumeBundleEvent(_ event: BundleEvent) throws { try next.consumeBundleEvent(event) }
}
