/// Turns start tag, end tag and text events into model elements, handing each child of
/// `<HealthData>` on as soon as its end tag is read. Only the element being built is in memory.
///
/// Format-neutral: the XML reader (through ``XMLElementFeed``), the JSON Lines reader and the
/// CSV readers each feed it their elements as events, with attributes through an
/// ``ElementAttributes`` of their own, so every input gives identical elements (dates checked,
/// unknown attributes kept, quirks counted).
final class ElementBuilder {
  /// Called once, at `<HealthData>`, with the root's name and attributes.
  var onRoot: (String, [Attribute]) throws -> Void = { _, _ in }
  /// Called for each complete top-level element.
  var onElement: (ExportElement) throws -> Void = { _ in }
  /// Instead of `onElement` (a parallel read for a sink that shares its work out): each
  /// top-level element is moved to this worker (``RangeWorkSharing``).
  var worker: (any RangeWorker)? {
    didSet {
      takesRecordTags = worker?.takesRecordTags ?? false
      tagWorker = worker
    }
  }
  /// Whether top-level Records go to `worker` as their start tag and children, never made.
  private var takesRecordTags = false
  /// `worker`, reached without a retain and a release around each call (`worker` keeps it).
  private unowned(unsafe) var tagWorker: (any RangeWorker)?
  /// Instead of `onElement` (a range parser's way): every top-level element is moved into
  /// `collected`, without a call or a copy, and `onCollect` is called after each (for its place).
  var collects = false
  private(set) var collected: [ExportElement] = []
  var onCollect: () -> Void = {}

  /// The elements collected so far, handed over; `empty` (an array with room) in their place.
  func takeCollected(replacingWith empty: consuming [ExportElement] = []) -> [ExportElement] {
    var taken = empty
    swap(&taken, &collected)
    return taken
  }

  /// Zeroes the counts, for a builder reused on the next range of a parallel read (its string
  /// tables kept: made and freed per range, they cost as much as parsing 3 % of the range).
  func resetCounts() {
    unknownElementCount = 0
    duplicatedWorkoutMetadata = 0
    recordsWithoutValue = 0
    unknownAttributeCount = 0
    ignoredTextCount = 0
  }

  private(set) var unknownElementCount = 0
  /// Known quirks, counted for the warnings: Workouts whose metadata block is
  /// written twice, Records without a `value` (not-applicable categories), unknown attributes.
  private(set) var duplicatedWorkoutMetadata = 0
  private(set) var recordsWithoutValue = 0
  private(set) var unknownAttributeCount = 0
  private(set) var ignoredTextCount = 0
  /// The attribute reader and its string tables (readable for tests of their memory).
  private(set) var attributes = AttributeParser()
  private var stack: [Frame] = []
  private var depth = 0
  private var inText = false
  /// The top-level Record being read. Records are nearly all of an export and nearly all
  /// childless, so they skip the frame stack: while one is pending, `stack` holds only its
  /// children's frames (an empty stack means the Record is their parent).
  private var pendingRecord: Record?
  /// Whether a Record is pending, without a copy of it (`pendingRecord != nil` makes one).
  private var hasPendingRecord: Bool {
    if case .some = pendingRecord { true } else { false }
  }
  /// A top-level Record handed to `worker` as its start tag (``RangeWorker/startRecord(_:)``) is open; its children,
  /// built as a pending Record's are, wait in `tagChildren` for its end tag.
  private var hasPendingTag = false
  private var tagChildren: RecordChildren = []
  private var tagText: String?
  /// With a tally (a parallel read for a sink that only tallies Records, ``RecordTallying``),
  /// top-level Records are not built: their attributes are checked as building checks them,
  /// and they and their elements are counted into the tally.
  var recordTally: RecordTally?
  /// The open elements of the Record being tallied, outermost first; empty outside one.
  private var tallied: [TalliedContext] = []
  private enum TalliedContext { case record, hrvList, leaf, node }

  init() { stack.reserveCapacity(8) }

  /// With `--skip-invalid`: a top-level element whose values do not fit their meaning (a date
  /// that does not parse, a missing required attribute, a non-numeric quantity) is dropped
  /// whole and reported through `onSkip` instead of stopping the read.
  var skipInvalid = false
  /// Called with the message of each skipped element; the reader adds the location.
  var onSkip: (String) -> Void = { _ in }
  /// True while the rest of a damaged or unwanted top-level element is being passed over.
  private var skipping = false
  /// The top-level elements to build; the others are passed over.
  var interest = ElementInterest.everything {
    didSet { recordTypes = RecordTypeMatcher(interest.recordTypes) }
  }
  private var recordTypes = RecordTypeMatcher(nil)

  // MARK: Events

  /// Deeper nesting is an error (Apple exports nest 5 levels; libxml2's push parser sets no limit).
  static let maximumDepth = 256

  func startElement<Attributes: ElementAttributes>(_ name: ByteView, attributes xml: Attributes) throws {
    depth += 1
    inText = false
    runBytes = 0
    if depth > Self.maximumDepth {
      // Not skippable: the damage may go on for as long as the input.
      throw ExportLimitError(message: "elements are nested deeper than \(Self.maximumDepth) levels")
    }
    if skipping { return }
    if depth == 2 {
      elementsInside = 0
      bytesInside = 0
    } else if depth > 2 {
      try countInside(name, xml)
      if skipping { return }  // over a limit: the top-level element is skipped
    }
    guard skipInvalid, depth > 1 else { return try start(name, xml) }
    do {
      try start(name, xml)
    } catch let error as ExportDataError {
      onSkip(error.message)
      skipping = true
      stack.removeAll(keepingCapacity: true)
      pendingRecord = nil
      dropPendingTag()
      tallied.removeAll(keepingCapacity: true)
      if depth == 2 {
        // The damaged element is the top-level one: its own end tag ends the skip.
        return
      }
    }
  }

  /// Forgets the element that damage interrupted, for a parser restarted after it: the next
  /// root start tag is the restarted parser's own, not the document's, and is not reported.
  /// The restarted parser has a name dictionary of its own: name identities start afresh.
  func resumeAfterDamage() {
    attributes.forgetNameIdentities()
    depth = 0
    stack.removeAll(keepingCapacity: true)
    pendingRecord = nil
    dropPendingTag()
    tallied.removeAll(keepingCapacity: true)
    skipping = false
    resuming = true
  }

  private func dropPendingTag() {
    hasPendingTag = false
    tagChildren = []
    tagText = nil
  }

  private var resuming = false
  /// True once the document's root start tag was read.
  private(set) var hasRoot = false

  private func start<Attributes: ElementAttributes>(_ name: ByteView, _ xml: Attributes) throws {
    if depth == 1, resuming {
      resuming = false
      return
    }
    if depth == 1 {
      hasRoot = true
      try onRoot(name.string, attributes.parseGeneric(xml))
      return
    }
    let kind = ElementName(name)
    if depth == 2, !wants(kind, xml) {
      skipping = true
      return
    }
    if !tallied.isEmpty { return try startTalliedChild(name, kind, xml) }
    if depth == 2, kind == .record, let recordTally {
      let facts = try attributes.recordFacts(xml)
      if !facts.hasValue { recordsWithoutValue += 1 }
      unknownAttributeCount += facts.extraAttributes
      recordTally.add(facts)
      recordTally.elements.record += 1
      tallied.append(.record)
      return
    }
    if depth == 2, kind == .record, takesRecordTags {
      let tag = try attributes.recordTag(xml)
      if tag.value == nil { recordsWithoutValue += 1 }
      unknownAttributeCount += tag.extraAttributes.count
      try tagWorker!.startRecord(tag)
      hasPendingTag = true
      return
    }
    if depth == 2, kind == .record {
      pendingRecord = try attributes.record(xml)
      return
    }
    if stack.isEmpty, hasPendingRecord || hasPendingTag {
      try startRecordChild(name, kind, xml)
      return
    }
    let frame: Frame
    switch (stack.last?.context ?? .root, kind) {
    case (.correlation, .record): frame = .record(try attributes.record(xml))
    case (.root, .correlation): frame = .correlation(try correlation(xml))
    case (.root, .workout): frame = .workout(try workout(xml))
    case (.record, .metadataEntry), (.correlation, .metadataEntry), (.workout, .metadataEntry),
      (.workoutActivity, .metadataEntry), (.workoutEvent, .metadataEntry), (.workoutRoute, .metadataEntry):
      frame = .metadata(try attributes.metadataEntry(xml))
    case (.record, .hrvList):
      var list = HeartRateVariabilityList()
      list.extraAttributes = attributes.parseGeneric(xml)
      frame = .hrvList(list)
    case (.hrvList, .beat): frame = .beat(try beat(xml))
    case (.workout, .workoutEvent), (.workoutActivity, .workoutEvent): frame = .event(try event(xml))
    case (.workout, .workoutActivity): frame = .activity(try activity(xml))
    case (.workout, .workoutStatistics), (.workoutActivity, .workoutStatistics):
      frame = .statistics(try statistics(xml))
    case (.workout, .workoutRoute): frame = .route(try route(xml))
    case (.workoutRoute, .fileReference):
      let parsed = try attributes.parse(xml, allowed: AttributeParser.fileReference, element: "FileReference")
      var reference = FileReference(path: try require(parsed.path, "path", of: "FileReference"))
      reference.extraAttributes = parsed.extras
      frame = .fileReference(reference)
    default:
      let role: NodeRole
      switch (stack.last?.context ?? .root, kind) {
      case (.root, .exportDate): role = .exportDate
      case (.root, .me): role = .me
      case (.root, .activitySummary): role = .activitySummary
      case (.root, .clinicalRecord): role = .clinicalRecord
      case (.root, .audiogram): role = .audiogram
      case (.root, .visionPrescription): role = .visionPrescription
      case (.workoutRoute, .location): role = .location
      case (.node, _): role = .child
      default:
        role = .unknown
        unknownElementCount += 1
      }
      frame = .node(ElementNode(name: name.string, attributes: attributes.parseGeneric(xml)), role)
    }
    stack.append(frame)
  }

  func endElement(_ name: ByteView) throws {
    depth -= 1
    inText = false
    runBytes = 0
    if skipping {
      if depth == 1 { skipping = false }
      return
    }
    guard depth > 0 else { return }
    if !tallied.isEmpty {
      tallied.removeLast()
      return
    }
    if stack.isEmpty, hasPendingTag {
      hasPendingTag = false
      defer { if !tagChildren.isEmpty { tagChildren.removeAll(keepingCapacity: true) } }
      let text = tagText.take()
      try tagWorker!.endRecord(children: tagChildren, text: text)
      return
    }
    if stack.isEmpty, hasPendingRecord {
      let record = pendingRecord.take()!
      if record.value == nil { recordsWithoutValue += 1 }
      if !record.extraAttributes.isEmpty { unknownAttributeCount += record.extraAttributes.count }
      try hand(.record(record))
      return
    }
    let frame = stack.removeLast()
    if stack.isEmpty, hasPendingRecord || hasPendingTag {
      attachToPendingRecord(frame)
      return
    }
    if stack.isEmpty {
      if case .workout(let workout) = frame, Self.hasDuplicatedMetadata(workout) { duplicatedWorkoutMetadata += 1 }
      try hand(frame.topLevelElement())
    } else {
      stack[stack.count - 1].attach(consume frame)
    }
  }

  @inline(__always)
  private func hand(_ element: consuming ExportElement) throws {
    if let worker { return try worker.process(element) }
    guard collects else { return try onElement(element) }
    collected.append(consume element)
    onCollect()
  }

  /// True when a Workout's trailing metadata block repeats its leading one (v13/v14 exports).
  static func hasDuplicatedMetadata(_ workout: Workout) -> Bool {
    let children = workout.children
    var leading = 0
    while leading < children.count, case .metadata = children[leading] { leading += 1 }
    guard leading > 0, children.count >= 2 * leading else { return false }
    let tail = children[(children.count - leading)...]
    guard tail.allSatisfy({ if case .metadata = $0 { true } else { false } }) else { return false }
    return children[0..<leading].elementsEqual(tail)
  }

  func text(_ bytes: ByteView) throws {
    if skipping { return }
    // Text comes in pieces (split at entity references): count each run of text once.
    if !inText {
      inText = true
      ignoredTextCount += 1
    }
    // Counted whether or not the text is kept (a tallied Record, text between elements).
    runBytes += bytes.buffer.count
    if depth > 1 {
      bytesInside += bytes.buffer.count
      if bytesInside > Self.maximumElementBytes {
        try overLimit("one element is over \(Self.maximumElementBytes >> 20) MiB (healthport's limit)")
        if skipping { return }
      }
    }
    if !tallied.isEmpty { return try checkTextLength(runBytes) }
    // Checked before the piece is kept: a text over the cap is never held (its growth past
    // 16 MiB held 48 MiB at once).
    try checkTextLength(max(heldTextBytes + bytes.buffer.count, runBytes))
    if skipping { return }
    let piece = bytes.string
    guard let last = stack.indices.last else {
      // The text of the pending top-level Record.
      if hasPendingTag {
        Self.append(piece, to: &tagText)
      } else if hasPendingRecord {
        Self.append(piece, to: &pendingRecord!.text)
      }
      return
    }
    // The payload is moved out of the stack first, so that its text grows in place.
    switch stack[last] {
    case .node(var node, let role):
      stack[last] = .placeholder
      Self.append(piece, to: &node.text)
      stack[last] = .node(node, role)
    case .record(var record):
      stack[last] = .placeholder
      Self.append(piece, to: &record.text)
      stack[last] = .record(record)
    case .correlation(var correlation):
      stack[last] = .placeholder
      Self.append(piece, to: &correlation.text)
      stack[last] = .correlation(correlation)
    case .workout(var workout):
      stack[last] = .placeholder
      Self.append(piece, to: &workout.text)
      stack[last] = .workout(workout)
    case .metadata(var entry):
      stack[last] = .placeholder
      Self.append(piece, to: &entry.text)
      stack[last] = .metadata(entry)
    default:
      break
    }
  }

  /// The bytes of text the element that text goes to holds already.
  private var heldTextBytes: Int {
    guard let last = stack.last else {
      if hasPendingTag { return tagText?.utf8.count ?? 0 }
      if case .some(let record) = pendingRecord { return record.text?.utf8.count ?? 0 }
      return 0
    }
    switch last {
    case .node(let node, _): return node.text?.utf8.count ?? 0
    case .record(let record): return record.text?.utf8.count ?? 0
    case .correlation(let correlation): return correlation.text?.utf8.count ?? 0
    case .workout(let workout): return workout.text?.utf8.count ?? 0
    case .metadata(let entry): return entry.text?.utf8.count ?? 0
    default: return 0
    }
  }

  /// A text that begins with `count` bytes of white space, more than the XML parser keeps (as
  /// many as ``maximumTextBytes``): over the cap on text, before its other pieces.
  func overlongBlanks(_ count: Int) throws {
    if skipping { return }
    runBytes += count
    try checkTextLength(runBytes)
  }

  /// The bytes of the text run being read (since the last start or end tag).
  private var runBytes = 0
  /// The elements inside the top-level element being read, and the bytes of their names,
  /// attributes and text (and of its own text).
  private var elementsInside = 0
  private var bytesInside = 0

  /// The most elements one top-level element may hold, and the most bytes (docs/errors.md).
  static let maximumElementsInside = 1_000_000
  static let maximumElementBytes = 64 << 20

  private func countInside<Attributes: ElementAttributes>(_ name: ByteView, _ xml: Attributes) throws {
    elementsInside += 1
    var bytes = name.buffer.count
    for index in 0..<xml.count { bytes += xml.name(at: index).buffer.count + xml.value(at: index).buffer.count }
    bytesInside += bytes
    if elementsInside > Self.maximumElementsInside {
      try overLimit(
        "one element holds over \(NumberText.grouped(Self.maximumElementsInside)) elements (healthport's limit)")
    } else if bytesInside > Self.maximumElementBytes {
      try overLimit("one element is over \(Self.maximumElementBytes >> 20) MiB (healthport's limit)")
    }
  }

  /// The most text one element may hold, in UTF-8 bytes (docs/errors.md, "Limits").
  static let maximumTextBytes = 16 << 20

  /// Appends `piece` in place (a text of many pieces costs their length, not its square).
  @inline(__always)
  private static func append(_ piece: String, to text: inout String?) {
    if text == nil {
      text = piece
    } else {
      text!.append(piece)
    }
  }

  /// Stops at an element whose text is over ``maximumTextBytes``: an error, or with
  /// `--skip-invalid` the top-level element holding it is skipped.
  private func checkTextLength(_ length: Int) throws {
    guard length > Self.maximumTextBytes else { return }
    try overLimit("the text of one element is over \(Self.maximumTextBytes >> 20) MiB (healthport's limit)")
  }

  /// An error, or with `--skip-invalid` (inside a top-level element) a skip of that element.
  private func overLimit(_ message: String) throws {
    guard skipInvalid, depth > 1 else { throw ExportLimitError(message: message) }
    onSkip(message)
    skipping = true
    stack.removeAll(keepingCapacity: true)
    pendingRecord = nil
    dropPendingTag()
    tallied.removeAll(keepingCapacity: true)
  }

  /// Whether the sink wants this top-level element built.
  private func wants<Attributes: ElementAttributes>(_ kind: ElementName, _ xml: Attributes) -> Bool {
    switch kind {
    case .record:
      guard interest.records else { return false }
      if recordTypes.wantsAll { return true }
      for index in 0..<xml.count where xml.name(at: index).equals(AttributeName.B.type) {
        return recordTypes.wants(xml.value(at: index).buffer)
      }
      return false
    case .correlation: return interest.correlations
    case .workout: return interest.workouts
    case .exportDate, .me: return true
    default: return interest.others
    }
  }

  // MARK: Elements of a tallied top-level Record

  /// An element inside a tallied Record: checked and counted as building it would (the same
  /// required attributes, the same unknown elements), by the rules of ``startRecordChild`` and
  /// ``start``, whose elements ``ElementTally`` counts by name.
  private func startTalliedChild<Attributes: ElementAttributes>(
    _ name: ByteView, _ kind: ElementName, _ xml: Attributes
  ) throws {
    let tally = recordTally!
    let context: TalliedContext
    switch (tallied.last!, kind) {
    case (.record, .metadataEntry):
      try attributes.checkRequired(xml, .key, "key", .value, "value", of: "MetadataEntry")
      tally.elements.metadata += 1
      context = .leaf
    case (.record, .hrvList):
      tally.elements.hrvList += 1
      context = .hrvList
    case (.hrvList, .beat):
      try attributes.checkRequired(xml, .bpm, "bpm", .time, "time", of: "InstantaneousBeatsPerMinute")
      tally.elements.beat += 1
      context = .leaf
    case (.node, _):
      tally.elements.add(name.string)
      context = .node
    default:
      unknownElementCount += 1
      tally.elements.add(name.string)
      context = .node
    }
    tallied.append(context)
  }

  // MARK: Children of the pending top-level Record

  private func startRecordChild<Attributes: ElementAttributes>(_ name: ByteView, _ kind: ElementName, _ xml: Attributes)
    throws
  {
    switch kind {
    case .metadataEntry: stack.append(.metadata(try attributes.metadataEntry(xml)))
    case .hrvList:
      var list = HeartRateVariabilityList()
      list.extraAttributes = attributes.parseGeneric(xml)
      stack.append(.hrvList(list))
    default:
      unknownElementCount += 1
      stack.append(.node(ElementNode(name: name.string, attributes: attributes.parseGeneric(xml)), .unknown))
    }
  }

  private func attachToPendingRecord(_ child: consuming Frame) {
    let recordChild: Record.Child
    switch consume child {
    case .metadata(let entry): recordChild = .metadata(entry)
    case .hrvList(let list): recordChild = .heartRateVariability(list)
    case let other: recordChild = .other(other.asNode)
    }
    if hasPendingTag {
      tagChildren.append(recordChild)
    } else {
      pendingRecord!.children.append(recordChild)
    }
  }

  // MARK: Typed elements

  private func correlation<Attributes: ElementAttributes>(_ xml: Attributes) throws -> Correlation {
    let p = try attributes.parse(xml, allowed: AttributeParser.correlation, element: "Correlation")
    let sourceName = try require(p.sourceName, "sourceName", of: "Correlation")
    var correlation = Correlation(
      type: try require(p.type, "type", of: "Correlation"), sourceName: sourceName,
      sourceVersion: p.sourceVersion, device: p.device, creationDate: p.creationDate,
      startDate: try require(p.startDate, "startDate", of: "Correlation"),
      endDate: try require(p.endDate, "endDate", of: "Correlation"))
    correlation.extraAttributes = p.extras
    correlation.sourceProduct = p.product
    return correlation
  }

  private func workout<Attributes: ElementAttributes>(_ xml: Attributes) throws -> Workout {
    let p = try attributes.parse(xml, allowed: AttributeParser.workout, element: "Workout")
    let sourceName = try require(p.sourceName, "sourceName", of: "Workout")
    var workout = Workout(
      workoutActivityType: try require(p.workoutActivityType, "workoutActivityType", of: "Workout"),
      duration: p.duration, durationUnit: p.durationUnit, totalDistance: p.totalDistance,
      totalDistanceUnit: p.totalDistanceUnit, totalEnergyBurned: p.totalEnergyBurned,
      totalEnergyBurnedUnit: p.totalEnergyBurnedUnit, sourceName: sourceName,
      sourceVersion: p.sourceVersion, device: p.device, creationDate: p.creationDate,
      startDate: try require(p.startDate, "startDate", of: "Workout"),
      endDate: try require(p.endDate, "endDate", of: "Workout"))
    workout.extraAttributes = p.extras
    workout.sourceProduct = p.product
    return workout
  }

  private func event<Attributes: ElementAttributes>(_ xml: Attributes) throws -> WorkoutEvent {
    let p = try attributes.parse(xml, allowed: AttributeParser.workoutEvent, element: "WorkoutEvent")
    var event = WorkoutEvent(
      type: try require(p.type, "type", of: "WorkoutEvent"), date: try require(p.date, "date", of: "WorkoutEvent"),
      duration: p.duration, durationUnit: p.durationUnit)
    event.extraAttributes = p.extras
    return event
  }

  private func activity<Attributes: ElementAttributes>(_ xml: Attributes) throws -> WorkoutActivity {
    let p = try attributes.parse(xml, allowed: AttributeParser.workoutActivity, element: "WorkoutActivity")
    var activity = WorkoutActivity(
      uuid: try require(p.uuid, "uuid", of: "WorkoutActivity"),
      startDate: try require(p.startDate, "startDate", of: "WorkoutActivity"), endDate: p.endDate,
      duration: p.duration, durationUnit: p.durationUnit)
    activity.extraAttributes = p.extras
    return activity
  }

  private func statistics<Attributes: ElementAttributes>(_ xml: Attributes) throws -> WorkoutStatistics {
    let p = try attributes.parse(xml, allowed: AttributeParser.workoutStatistics, element: "WorkoutStatistics")
    var statistics = WorkoutStatistics(
      type: try require(p.type, "type", of: "WorkoutStatistics"),
      startDate: try require(p.startDate, "startDate", of: "WorkoutStatistics"),
      endDate: try require(p.endDate, "endDate", of: "WorkoutStatistics"), average: p.average,
      minimum: p.minimum, maximum: p.maximum, sum: p.sum, unit: p.unit)
    statistics.extraAttributes = p.extras
    return statistics
  }

  private func route<Attributes: ElementAttributes>(_ xml: Attributes) throws -> WorkoutRoute {
    let p = try attributes.parse(xml, allowed: AttributeParser.workoutRoute, element: "WorkoutRoute")
    let sourceName = try require(p.sourceName, "sourceName", of: "WorkoutRoute")
    var route = WorkoutRoute(
      sourceName: sourceName, sourceVersion: p.sourceVersion, device: p.device, creationDate: p.creationDate,
      startDate: try require(p.startDate, "startDate", of: "WorkoutRoute"),
      endDate: try require(p.endDate, "endDate", of: "WorkoutRoute"))
    route.extraAttributes = p.extras
    route.sourceProduct = p.product
    return route
  }

  private func beat<Attributes: ElementAttributes>(_ xml: Attributes) throws -> InstantaneousBeatsPerMinute {
    try attributes.beat(xml)
  }
}
