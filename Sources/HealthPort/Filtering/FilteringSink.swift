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
    return StageWorker(Part(filter: filter.withOwnCaches()), next: inner)
  }

  func absorb(_ result: any RangeResult) throws {
    let result = result as! StageResult<Int>
    try (next as! RangeWorkSharing).absorb(result.next)
    droppedCount += result.own
  }

  /// Keeps or drops each element as ``ExportFilter/includes(_:)`` does; a Record given as its
  /// head by its type, source, product and start, as ``ExportFilter/includes(_:)`` keeps the Record.
  private final class Part: RangeStagePart {
    let filter: ExportFilter
    var dropped = 0
    private var type = RecentString()
    private var sourceName = RecentString()

    init(filter: ExportFilter) { self.filter = filter }

    func pass(_ element: ExportElement) -> Bool {
      if filter.includes(element) { return true }
      dropped += 1
      return false
    }

    func passRecord(_ head: RecordHead) -> Bool {
      let kept = filter.includesRecord(
        type: type.text(head.type), sourceName: sourceName.text(head.sourceName), product: head.sourceProduct,
        start: head.startDate)
      if !kept { dropped += 1 }
      return kept
    }

    func finishRange() -> Int {
      defer { dropped = 0 }
      return dropped
    }
  }
}
