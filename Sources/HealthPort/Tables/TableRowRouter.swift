/// Where one row goes in the export's tables: its `id` (document order; `HealthData` is 0), the
/// `id` of the enclosing element (nil directly under `HealthData`) and of the enclosing
/// `Workout` (nil outside workouts; a table without `workout_id` ignores it).
package struct TableRowPlace: Sendable, Equatable {
  package let id: Int
  package let parent: Int?
  package let workout: Int?
}

/// What a table writer does with the rows ``TableRowRouter`` finds: one call per row, in
/// document order, with the row's element typed. A row's attributes without a column follow it
/// as ``attribute(_:of:)`` calls, then its children's rows.
package protocol TableRowReceiver: AnyObject {
  /// Row 0 of `export`: the root.
  func root(_ header: ExportHeader) throws
  /// A top-level `ExportDate` (a row of `export`).
  func exportDate(_ value: String, at place: TableRowPlace) throws
  /// A `Record`: of `records` (or its per-type tables) when `place.parent` is nil, else of
  /// `correlation_records`.
  func record(_ record: Record, at place: TableRowPlace) throws
  func correlation(_ correlation: Correlation, at place: TableRowPlace) throws
  func workout(_ workout: Workout, at place: TableRowPlace) throws
  func workoutEvent(_ event: WorkoutEvent, at place: TableRowPlace) throws
  func workoutActivity(_ activity: WorkoutActivity, at place: TableRowPlace) throws
  func workoutStatistics(_ statistics: WorkoutStatistics, at place: TableRowPlace) throws
  func workoutRoute(_ route: WorkoutRoute, at place: TableRowPlace) throws
  func fileReference(_ reference: FileReference, at place: TableRowPlace) throws
  /// A `MetadataEntry` (a generic one may lack its key or value).
  func metadata(key: String?, value: String?, at place: TableRowPlace) throws
  func hrvList(at place: TableRowPlace) throws
  func hrvBeat(_ beat: InstantaneousBeatsPerMinute, at place: TableRowPlace) throws
  /// A generic element whose attributes fit its kind's table: `slots[i]` is the index in
  /// `node.attributes` of the value of the table's i-th attribute column (-1: absent).
  func genericRow(_ node: ElementNode, table: TableDefinition, slots: [Int], at place: TableRowPlace) throws
  /// Any other element, a row of `elements`; its attributes follow as ``attribute(_:of:)``.
  func otherElement(_ node: ElementNode, at place: TableRowPlace) throws
  /// An attribute without a column, a row of `attributes`.
  func attribute(_ attribute: Attribute, of id: Int) throws
  /// True to get each row's unknown content with the row (``rowExtras(_:)``) instead of
  /// ``attribute(_:of:)`` calls and `elements` rows below it.
  var embedsExtras: Bool { get }
  /// With ``embedsExtras``, called just before the row method of an element that has attributes
  /// without a column or children of no table.
  func rowExtras(_ extras: TableRowExtras) throws
}

extension TableRowReceiver {
  package var embedsExtras: Bool { false }
  package func rowExtras(_ extras: TableRowExtras) throws {}
}

/// What a row's element holds beyond its table's columns, for a receiver that keeps it on the row
/// (``TableRowReceiver/embedsExtras``): the attributes without a column, in document order, and
/// the children that `--split` writes to `elements`, each whole (its attributes, text and
/// descendants, whatever their kinds) with its id; its descendants number on from it in document
/// order, as the rows do.
package struct TableRowExtras: Sendable {
  package var attributes: [Attribute] = []
  package var children: [(id: Int, node: ElementNode)] = []
}

/// The routing of `--split`'s tables, shared by its typed writers: which table each element of
/// the export goes to, its ids, and where unknown attributes and elements go, so that the tables
/// hold everything the export does. Generic elements (`Me`, `ActivitySummary`, …) go to their
/// kind's table when their attributes fit its columns (known names, in order, no text),
/// otherwise to `elements` with every attribute in `attributes`.
package final class TableRowRouter {
  package unowned let receiver: TableRowReceiver
  private var nextID = 1
  private var currentWorkout: Int?
  private let embeds: Bool

  package init(_ receiver: TableRowReceiver) {
    self.receiver = receiver
    embeds = receiver.embedsExtras
  }

  /// The tables of the generic element kinds, by element name.
  package static let genericTables: [String: TableDefinition] = [
    "Me": ColumnCatalog.me, "ActivitySummary": ColumnCatalog.activitySummaries,
    "ClinicalRecord": ColumnCatalog.clinicalRecords, "Audiogram": ColumnCatalog.audiograms,
    "SensitivityPoint": ColumnCatalog.sensitivityPoints, "VisionPrescription": ColumnCatalog.visionPrescriptions,
    "RightEye": ColumnCatalog.visionEyes, "LeftEye": ColumnCatalog.visionEyes, "Location": ColumnCatalog.locations,
  ]

  /// The columns of a generic table that hold its element's attributes, in the Health app's order.
  package static func attributeColumns(of definition: TableDefinition) -> [String] {
    definition.columns.filter { $0.role == .attribute || $0.role == .derived }.map(\.name)
  }

  private static let genericColumns = genericTables.mapValues { attributeColumns(of: $0) }

  @inline(__always)
  private func place(parent: Int?) -> TableRowPlace {
    let id = nextID
    nextID += 1
    return TableRowPlace(id: id, parent: parent, workout: currentWorkout)
  }

  package func begin(_ header: ExportHeader) throws { try receiver.root(header) }

  package func consume(_ element: ExportElement) throws {
    switch element {
    case .record(let record): try route(record, parent: nil)
    case .correlation(let correlation): try route(correlation)
    case .workout(let workout): try route(workout)
    case .exportDate(let date): try route(date.node, parent: nil)
    case .me(let me): try route(me.node, parent: nil)
    case .activitySummary(let summary): try route(summary.node, parent: nil)
    case .clinicalRecord(let record): try route(record.node, parent: nil)
    case .audiogram(let audiogram): try route(audiogram.node, parent: nil)
    case .visionPrescription(let prescription): try route(prescription.node, parent: nil)
    case .other(let node): try route(node, parent: nil)
    }
  }

  // MARK: Typed elements

  /// One row of a typed element: its id, its extras told before it (``embeds``) or its attributes
  /// without a column after it, then its children's rows.
  @inline(__always)
  private func row<Children: Collection>(
    parent: Int?, _ attributes: [Attribute], _ children: Children, _ send: (TableRowPlace) throws -> Void
  ) throws where Children.Element: RoutedChild {
    let place = place(parent: parent)
    if embeds { try announce(attributes, of: place.id, children) }
    try send(place)
    try extras(attributes, of: place.id)
    for child in children { try route(child.routed, parent: place.id) }
  }

  private func route(_ record: Record, parent: Int?) throws {
    if record.text != nil { return try route(Self.node(of: record), parent: parent) }
    try row(parent: parent, record.extraAttributes, record.children) { try receiver.record(record, at: $0) }
  }

  private func route(_ correlation: Correlation) throws {
    if correlation.text != nil { return try route(Self.node(of: correlation), parent: nil) }
    try row(parent: nil, correlation.extraAttributes, correlation.children) {
      try receiver.correlation(correlation, at: $0)
    }
  }

  private func route(_ workout: Workout) throws {
    if workout.text != nil { return try route(Self.node(of: workout), parent: nil) }
    defer { currentWorkout = nil }
    try row(parent: nil, workout.extraAttributes, workout.children) {
      try receiver.workout(workout, at: $0)
      // Its children's rows name it in `workout_id`.
      currentWorkout = $0.id
    }
  }

  private func route(_ entry: MetadataEntry, parent: Int) throws {
    if entry.text != nil { return try route(Self.node(of: entry), parent: parent) }
    try row(parent: parent, entry.extraAttributes, entry.extraChildren) {
      try receiver.metadata(key: entry.key, value: entry.value, at: $0)
    }
  }

  /// A child of a typed element, routed to its row.
  private func route(_ child: RoutedChildRow, parent: Int) throws {
    switch child {
    case .metadata(let entry): try route(entry, parent: parent)
    case .record(let record): try route(record, parent: parent)
    case .event(let event):
      try row(parent: parent, event.extraAttributes, event.children) { try receiver.workoutEvent(event, at: $0) }
    case .activity(let activity):
      try row(parent: parent, activity.extraAttributes, activity.children) {
        try receiver.workoutActivity(activity, at: $0)
      }
    case .statistics(let statistics):
      try row(parent: parent, statistics.extraAttributes, statistics.extraChildren) {
        try receiver.workoutStatistics(statistics, at: $0)
      }
    case .route(let route):
      try row(parent: parent, route.extraAttributes, route.children) { try receiver.workoutRoute(route, at: $0) }
    case .fileReference(let reference):
      try row(parent: parent, reference.extraAttributes, reference.extraChildren) {
        try receiver.fileReference(reference, at: $0)
      }
    case .hrvList(let list):
      try row(parent: parent, list.extraAttributes, list.children) { try receiver.hrvList(at: $0) }
    case .beat(let beat):
      try row(parent: parent, beat.extraAttributes, beat.extraChildren) { try receiver.hrvBeat(beat, at: $0) }
    case .node(let node), .location(let node): try route(node, parent: parent)
    }
  }

  // MARK: Generic elements

  /// Which row a generic element is.
  private enum GenericRow {
    case generic(TableDefinition, slots: [Int])
    case metadata(slots: [Int])
    case exportDate
    /// A row of `elements`: a kind of no table, or attributes that do not fit its table's.
    case other
  }

  private static func row(of node: ElementNode, parent: Int?) -> GenericRow {
    if let table = genericTables[node.name], node.text == nil, let columns = genericColumns[node.name],
      let slots = slots(of: node.attributes, in: columns)
    {
      return .generic(table, slots: slots)
    }
    if node.name == "MetadataEntry", node.text == nil, let slots = slots(of: node.attributes, in: ["key", "value"]) {
      return .metadata(slots: slots)
    }
    if parent == nil, node.name == "ExportDate", node.text == nil, node.attributes.count == 1,
      node.attributes[0].name == "value"
    {
      return .exportDate
    }
    return .other
  }

  private func route(_ node: ElementNode, parent: Int?) throws {
    let row = Self.row(of: node, parent: parent)
    if embeds, parent != nil, case .other = row {
      // Kept whole in its parent's extras: its ids are taken, its rows are not written.
      nextID += Self.count(node)
      return
    }
    let place = self.place(parent: parent)
    if embeds {
      try announce(
        { if case .other = row { node.attributes } else { [] } }(), of: place.id, node.children)
    }
    switch row {
    case .generic(let table, let slots): try receiver.genericRow(node, table: table, slots: slots, at: place)
    case .metadata(let slots):
      try receiver.metadata(
        key: slots[0] >= 0 ? node.attributes[slots[0]].value : nil,
        value: slots[1] >= 0 ? node.attributes[slots[1]].value : nil, at: place)
    case .exportDate: try receiver.exportDate(node.attributes[0].value, at: place)
    case .other:
      try receiver.otherElement(node, at: place)
      try extras(node.attributes, of: place.id)
    }
    for child in node.children { try route(child, parent: place.id) }
  }

  // MARK: Extras kept on their row

  /// Tells the receiver the extras of row `id`, when it has any: its children that are `elements`
  /// rows are numbered by counting the elements before them.
  private func announce<Children: Collection>(_ attributes: [Attribute], of id: Int, _ children: Children) throws
  where Children.Element: RoutedChild {
    guard !attributes.isEmpty || children.contains(where: { Self.otherNode($0.routed) != nil }) else { return }
    var extras = TableRowExtras(attributes: attributes)
    var next = id + 1
    for child in children {
      let routed = child.routed
      if let node = Self.otherNode(routed) { extras.children.append((next, node)) }
      next += Self.count(routed)
    }
    try receiver.rowExtras(extras)
  }

  /// A child as its parent's extras see it: the element, when it is a row of `elements` (a
  /// generic element that fits no table, or a typed one holding text, ``node(of:)``).
  private static func otherNode(_ child: RoutedChildRow) -> ElementNode? {
    let node: ElementNode
    switch child {
    case .node(let generic), .location(let generic): node = generic
    case .metadata(let entry) where entry.text != nil: node = Self.node(of: entry)
    case .record(let record) where record.text != nil: node = Self.node(of: record)
    default: return nil
    }
    if case .other = row(of: node, parent: 0) { return node }
    return nil
  }

  /// A Record, Correlation, Workout or MetadataEntry holding text has no table with a column for
  /// it: like `--split`, it is routed as an element of no table (a row of `elements` at the top,
  /// else kept whole in its parent's extras), its text, attributes and children in it.
  private static func node(of record: Record) -> ElementNode { NodeEmitter.node { $0.emit(record) } }
  private static func node(of correlation: Correlation) -> ElementNode { NodeEmitter.node { $0.emit(correlation) } }
  private static func node(of workout: Workout) -> ElementNode { NodeEmitter.node { $0.emit(workout) } }
  private static func node(of entry: MetadataEntry) -> ElementNode { NodeEmitter.node { $0.emit(entry) } }

  /// For each column, the index of the attribute that fills it (-1 for none); nil when the
  /// attributes are not a subsequence of the columns in order.
  package static func slots(of attributes: [Attribute], in columns: [String]) -> [Int]? {
    var slots = Array(repeating: -1, count: columns.count)
    var column = 0
    for (index, attribute) in attributes.enumerated() {
      while column < columns.count, columns[column] != attribute.name { column += 1 }
      guard column < columns.count else { return nil }
      slots[column] = index
      column += 1
    }
    return slots
  }

  @inline(__always)
  private func extras(_ attributes: [Attribute], of id: Int) throws {
    guard !embeds else { return }
    for attribute in attributes { try receiver.attribute(attribute, of: id) }
  }
}
