/// Receives an export as it streams: the header, then each top-level element in document order.
///
/// Calls come one at a time, but with ``ReadOptions/concurrent`` (the default on machines with
/// more than one processor) they come from a thread of the reader's own, not the caller's;
/// ``ExportReader/read(into:)`` returns after the last one.
public protocol ExportSink: AnyObject {
  /// The top-level elements this sink needs built (see ``ElementInterest``).
  var interest: ElementInterest { get }
  /// What the sink wants of a read besides its elements, in one value: none by default. A
  /// stage that wraps another (``ExportStage``) has the next one's.
  var capabilities: SinkCapabilities { get }
  /// The export's header, before the first element.
  func begin(_ header: ExportHeader) throws
  /// One top-level element, in document order.
  func consume(_ element: ExportElement) throws
  /// The read is complete: what it found, counted.
  func end(_ report: ReadReport) throws
  /// With ``SinkCapabilities/sideFiles``: the export's side files, after the last element and
  /// before ``end(_:)``.
  func consumeSideFile(_ event: SideFileEvent) throws
  /// With ``SinkCapabilities/bundleMembers``: the bundle's members in order, raw bytes.
  func consumeBundleEvent(_ event: BundleEvent) throws
}

/// What a sink wants of a read besides its elements (``ExportSink/capabilities``).
public struct SinkCapabilities: OptionSet, Sendable {
  /// The capabilities' bits.
  public let rawValue: UInt8
  /// The capabilities whose bits are `rawValue`.
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// The export's side files (GPX routes, ECG recordings), through
  /// ``ExportSink/consumeSideFile(_:)``: `steps`, `stats` and `workouts` never open them.
  public static let sideFiles = SinkCapabilities(rawValue: 1 << 0)
  /// The bundle's members in order, raw bytes (``BundleEvent``), through
  /// ``ExportSink/consumeBundleEvent(_:)``: only the round-trip writers write the bundle back.
  public static let bundleMembers = SinkCapabilities(rawValue: 1 << 1)
  /// Of each top-level Record, only what a tally of them keeps (`info`'s summary): a parallel
  /// read then tallies the Records of each range on its parsing thread, and they never reach
  /// ``ExportSink/consume(_:)``. Not forwarded by an ``ExportStage`` unless it says so.
  public static let recordTallies = SinkCapabilities(rawValue: 1 << 2)
}

extension ExportSink {
  /// None: only elements.
  public var capabilities: SinkCapabilities { [] }
  /// Ignores side files.
  public func consumeSideFile(_ event: SideFileEvent) throws {}
  /// Ignores bundle members.
  public func consumeBundleEvent(_ event: BundleEvent) throws {}
}

/// A pipeline stage: a sink that hands what it receives on to the next one. Everything it does
/// not do itself is forwarded by default, its ``ExportSink/capabilities`` included, so that a
/// stage put in front of a writer never turns off what the writer asked for: all but
/// ``SinkCapabilities/recordTallies``, since a stage sees every Record unless it says otherwise
/// (one that hands Records on untouched, as `info`'s side-file tally, forwards it too).
public protocol ExportStage: ExportSink {
  /// The sink this stage hands on to.
  var next: ExportSink { get }
}

extension ExportStage {
  /// The next sink's interest.
  public var interest: ElementInterest { next.interest }
  /// The next sink's capabilities, but for ``SinkCapabilities/recordTallies``.
  public var capabilities: SinkCapabilities { next.capabilities.subtracting(.recordTallies) }
  /// Hands the header on.
  public func begin(_ header: ExportHeader) throws { try next.begin(header) }
  /// Hands the report on.
  public func end(_ report: ReadReport) throws { try next.end(report) }
  /// Hands the side-file event on.
  public func consumeSideFile(_ event: SideFileEvent) throws { try next.consumeSideFile(event) }
  /// Hands the bundle event on.
  public func consumeBundleEvent(_ event: BundleEvent) throws { try next.consumeBundleEvent(event) }
}
