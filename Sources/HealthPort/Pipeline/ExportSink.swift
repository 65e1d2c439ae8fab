/// Receives an export as it streams: the header, then each top-level element in document order.
///
/// Calls come one at a time, but with ``ReadOptions/concurrent`` (the default on machines with
/// more than one processor) they come from a thread of the reader's own, not the caller's;
/// ``ExportReader/read(into:)`` returns after the last one.
public protocol ExportSink: AnyObject {
  /// The top-level elements this sink needs built (see ``ElementInterest``).
  var interest: ElementInterest { get }
  func begin(_ header: ExportHeader) throws
  func consume(_ element: ExportElement) throws
  func end(_ report: ReadReport) throws
  /// True when the sink wants the export's side files (GPX routes, ECG recordings); they then
  /// come after the last element and before ``end(_:)``, through ``consumeSideFile(_:)``.
  var wantsSideFiles: Bool { get }
  func consumeSideFile(_ event: SideFileEvent) throws
  /// True when the sink writes the bundle back (``BundleEvent``): members in order, raw bytes.
  var wantsBundleMembers: Bool { get }
  func consumeBundleEvent(_ event: BundleEvent) throws
}
