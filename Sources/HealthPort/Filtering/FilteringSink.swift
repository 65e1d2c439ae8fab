/// An ``ExportSink`` that hands on only what an ``ExportFilter`` keeps, while streaming.
public final class FilteringSink: ExportStage {
  package let filter: ExportFilter
  /// The sink that receives what the filter selects.
  public let next: ExportSink
  /// Elements left out so far.
  package private(set) var droppedCount = 0
  private var sideFiles = SideFileFilter()

  /// A stage that hands `next` only the elements `filter` selects.
  public init(filter: ExportFilter, next: ExportSink) {
    self.filter = filter
    self.next = next
  }

  /// What the next sink wants, narrowed by the filter's kinds and types (README, "Filters":
  /// with `--type` or `--activity`, the kinds that neither selects are left out).
  public var interest: ElementInterest {
    var own = ElementInterest.everything
    if filter.types != nil || filter.activities != nil {
      own = .nothing
      if let types = filter.types {
        own.records = true
        own.correlations = true
        own.recordTypes = types
      }
      if filter.activities != nil { own.workouts = true }
    }
    return next.interest.intersection(own)
  }

  /// Hands the element on when the filter selects it.
  public func consume(_ element: ExportElement) throws {
    let kept = filter.includes(element)
    if case .workout = element { sideFiles.noteWorkout(kept: kept) }
    if kept {
      try next.consume(element)
    } else {
      droppedCount += 1
    }
  }

  /// Hands a route or ECG recording on unless the filter leaves it out (a route of a dropped Workout).
  public func consumeSideFile(_ event: SideFileEvent) throws {
    if let kept = sideFiles.pass(event, filter) { try next.consumeSideFile(kept) }
  }

  /// Members pass as they are (a writer leaves out a route or ECG whose side-file events were
  /// dropped), but not export.xml's raw bytes: the filtered elements stand for it.
  public func consumeBundleEvent(_ event: BundleEvent) throws {
    switch event {
    case .member(let member): inBundleMember = member.kind != .export
    case .memberEnd: inBundleMember = false
    case .bytes: if !inBundleMember { return }
    }
    try next.consumeBundleEvent(event)
  }
  private var inBundleMember = false
}

extension FilteringSink: RangeWorkSharing {
  /// Only without side files or bundle members: which of those pass depends on the Workouts
  /// kept before them, noted in order.
  func makeRangeWorker() -> (any RangeWorker)? {
    guard next.capabilities.isDisjoint(with: [.sideFiles, .bundleMembers]), let inner = next.rangeWorker() else {
      return nil
    }
    return Worker(filter: filter.withOwnCaches(), next: inner)
  }

  func absorb(_ result: any RangeResult) throws {
    let result = result as! StageResult<Int>
    try (next as! RangeWorkSharing).absorb(result.next)
    droppedCount += result.own
  }

  private final class Worker: RangeWorker {
    let filter: ExportFilter
    let next: any RangeWorker
    var dropped = 0

    init(filter: ExportFilter, next: any RangeWorker) {
      self.filter = filter
      self.next = next
    }

    func process(_ element: consuming ExportElement) throws {
      if filter.includes(element) { try next.process(element) } else { dropped += 1 }
    }

    func finishRange() -> any RangeResult {
      defer { dropped = 0 }
      return StageResult(dropped, next: next.finishRange())
    }

    // A Record as its start tag (``RecordTag``): kept or dropped by its type, source, product
    // and start, as ``ExportFilter/includes(_:)`` keeps the Record; its end goes where it went.
    var takesRecordTags: Bool { next.takesRecordTags }
    private var type = RecentString()
    private var sourceName = RecentString()
    private var keepsRecord = false

    func startRecord(_ tag: borrowing RecordTag) throws {
      keepsRecord = filter.includesRecord(
        type: type.text(tag.type), sourceName: sourceName.text(tag.sourceName), product: tag.sourceProduct,
        start: tag.startDate)
      if keepsRecord { try next.startRecord(tag) } else { dropped += 1 }
    }

    func endRecord(children: borrowing RecordChildren, text: String?) throws {
      if keepsRecord { try next.endRecord(children: children, text: text) }
    }
  }
}
