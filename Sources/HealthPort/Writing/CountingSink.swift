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
    let name = element.elementName
    if let slot = index[name] {
      counts[slot].count += 1
    } else {
      index[name] = counts.count
      counts.append((name, 1))
    }
  }

  public func end(_ report: ReadReport) throws { try next.end(report) }
}
