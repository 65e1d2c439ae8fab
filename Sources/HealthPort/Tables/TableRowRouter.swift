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

  private func route(_ record: Record, parent: Int?) throws {
    if record.text != nil { return try route(Self.node(of: record), parent: parent) }
    let place = place(parent: parent)
    if embeds {
      try announce(
        record.extraAttributes, of: place.id,
        record.children.lazy.map { child in
          switch child {
          case .metadata(let entry): Self.child(entry)
          case .heartRateVariability(let list): .known(Self.count(list))
          case .other(let node): .node(node)
          }
        })
    }
    try receiver.record(record, at: place)
    try extras(record.extraAttributes, of: place.id)
    for child in record.children {
      switch child {
      case .metadata(let entry): try route(entry, parent: place.id)
      case .heartRateVariability(let list): try route(list, parent: place.id)
      case .other(let node): try route(node, parent: place.id)
      }
    }
  }

  private func route(_ correlation: Correlation) throws {
    if correlation.text != nil { return try route(Self.node(of: correlation), parent: nil) }
    let place = place(parent: nil)
    if embeds {
      try announce(
        correlation.extraAttributes, of: place.id,
        correlation.children.lazy.map { child in
          switch child {
          case .metadata(let entry): Self.child(entry)
          case .record(let record): Self.child(record)
          case .other(let node): .node(node)
          }
        })
    }
    try receiver.correlation(correlation, at: place)
    try extras(correlation.extraAttributes, of: place.id)
    for child in correlation.children {
      switch child {
      case .metadata(let entry): try route(entry, parent: place.id)
      case .record(let record): try route(record, parent: place.id)
      case .other(let node): try route(node, parent: place.id)
      }
    }
  }

  private func route(_ workout: Workout) throws {
    if workout.text != nil { return try route(Self.node(of: workout), parent: nil) }
    let place = place(parent: nil)
    if embeds {
      try announce(
        workout.extraAttributes, of: place.id,
        workout.children.lazy.map { child in
          switch child {
          case .metadata(let entry): Self.child(entry)
          case .event(let event): .known(Self.count(event))
          case .activity(let activity): .known(Self.count(activity))
          case .statistics(let statistics): .known(1 + Self.count(statistics.extraChildren))
          case .route(let route): .known(Self.count(route))
          case .other(let node): .node(node)
          }
        })
    }
    try receiver.workout(workout, at: place)
    try extras(workout.extraAttributes, of: place.id)
    currentWorkout = place.id
    defer { currentWorkout = nil }
    for child in workout.children {
      switch child {
      case .metadata(let entry): try route(entry, parent: place.id)
      case .event(let event): try route(event, parent: place.id)
      case .activity(let activity): try route(activity, parent: place.id)
      case .statistics(let statistics): try route(statistics, parent: place.id)
      case .route(let route): try self.route(route, parent: place.id)
      case .other(let node): try self.route(node, parent: place.id)
      }
    }
  }

  private func route(_ event: WorkoutEvent, parent: Int) throws {
    let place = place(parent: parent)
    if embeds {
      try announce(
        event.extraAttributes, of: place.id,
        event.children.lazy.map { child in
          switch child {
          case .metadata(let entry): Self.child(entry)
          case .other(let node): .node(node)
          }
        })
    }
    try receiver.workoutEvent(event, at: place)
    try extras(event.extraAttributes, of: place.id)
    for child in event.children {
      switch child {
      case .metadata(let entry): try route(entry, parent: place.id)
      case .other(let node): try route(node, parent: place.id)
      }
    }
  }

  private func route(_ activity: WorkoutActivity, parent: Int) throws {
    let place = place(parent: parent)
    if embeds {
      try announce(
        activity.extraAttributes, of: place.id,
        activity.children.lazy.map { child in
          switch child {
          case .metadata(let entry): Self.child(entry)
          case .event(let event): .known(Self.count(event))
          case .statistics(let statistics): .known(1 + Self.count(statistics.extraChildren))
          case .other(let node): .node(node)
          }
        })
    }
    try receiver.workoutActivity(activity, at: place)
    try extras(activity.extraAttributes, of: place.id)
    for child in activity.children {
      switch child {
      case .metadata(let entry): try route(entry, parent: place.id)
      case .event(let event): try route(event, parent: place.id)
      case .statistics(let statistics): try route(statistics, parent: place.id)
      case .other(let node): try route(node, parent: place.id)
      }
    }
  }

  private func route(_ statistics: WorkoutStatistics, parent: Int) throws {
    let place = place(parent: parent)
    if embeds {
      try announce(statistics.extraAttributes, of: place.id, statistics.extraChildren.lazy.map { .node($0) })
    }
    try receiver.workoutStatistics(statistics, at: place)
    try extras(statistics.extraAttributes, of: place.id)
    for node in statistics.extraChildren { try route(node, parent: place.id) }
  }

  private func route(_ workoutRoute: WorkoutRoute, parent: Int) throws {
    let place = place(parent: parent)
    if embeds {
      try announce(
        workoutRoute.extraAttributes, of: place.id,
        workoutRoute.children.lazy.map { child in
          switch child {
          case .metadata(let entry): Self.child(entry)
          case .fileReference(let reference): .known(1 + Self.count(reference.extraChildren))
          case .location(let node), .other(let node): .node(node)
          }
        })
    }
    try receiver.workoutRoute(workoutRoute, at: place)
    try extras(workoutRoute.extraAttributes, of: place.id)
    for child in workoutRoute.children {
      switch child {
      case .metadata(let entry): try route(entry, parent: place.id)
      case .fileReference(let reference):
        let referencePlace = self.place(parent: place.id)
        if embeds {
          try announce(reference.extraAttributes, of: referencePlace.id, reference.extraChildren.lazy.map { .node($0) })
        }
        try receiver.fileReference(reference, at: referencePlace)
        try extras(reference.extraAttributes, of: referencePlace.id)
        for node in reference.extraChildren { try route(node, parent: referencePlace.id) }
      case .location(let node), .other(let node): try route(node, parent: place.id)
      }
    }
  }

  private func route(_ entry: MetadataEntry, parent: Int) throws {
    if entry.text != nil { return try route(Self.node(of: entry), parent: parent) }
    let place = place(parent: parent)
    if embeds { try announce(entry.extraAttributes, of: place.id, entry.extraChildren.lazy.map { .node($0) }) }
    try receiver.metadata(key: entry.key, value: entry.value, at: place)
    try extras(entry.extraAttributes, of: place.id)
    for node in entry.extraChildren { try route(node, parent: place.id) }
  }

  private func route(_ list: HeartRateVariabilityList, parent: Int) throws {
    let place = place(parent: parent)
    if embeds {
      try announce(
        list.extraAttributes, of: place.id,
        list.children.lazy.map { child in
          switch child {
          case .beat(let beat): .known(1 + Self.count(beat.extraChildren))
          case .other(let node): .node(node)
          }
        })
    }
    try receiver.hrvList(at: place)
    try extras(list.extraAttributes, of: place.id)
    for child in list.children {
      switch child {
      case .beat(let beat):
        let beatPlace = self.place(parent: place.id)
        if embeds { try announce(beat.extraAttributes, of: beatPlace.id, beat.extraChildren.lazy.map { .node($0) }) }
        try receiver.hrvBeat(beat, at: beatPlace)
        try extras(beat.extraAttributes, of: beatPlace.id)
        for node in beat.extraChildren { try route(node, parent: beatPlace.id) }
      case .other(let node): try route(node, parent: place.id)
      }
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
        { if case .other = row { node.attributes } else { [] } }(), of: place.id, node.children.lazy.map { .node($0) })
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

  /// A child of a row's element: a typed one (its element count) or a generic node.
  private enum Child {
    case known(Int)
    case node(ElementNode)
  }

  /// Tells the receiver the extras of row `id`, when it has any: its children that are `elements`
  /// rows are numbered by counting the elements before them.
  private func announce(_ attributes: [Attribute], of id: Int, _ children: some Collection<Child>) throws {
    guard
      !attributes.isEmpty
        || children.contains(where: { if case .node(let node) = $0 { Self.isOther(node) } else { false } })
    else { return }
    var extras = TableRowExtras(attributes: attributes)
    var next = id + 1
    for child in children {
      switch child {
      case .known(let count): next += count
      case .node(let node):
        if Self.isOther(node) { extras.children.append((next, node)) }
        next += Self.count(node)
      }
    }
    try receiver.rowExtras(extras)
  }

  /// A Record, Correlation, Workout or MetadataEntry holding text has no table with a column for
  /// it: like `--split`, it is routed as an element of no table (a row of `elements` at the top,
  /// else kept whole in its parent's extras), its text, attributes and children in it.
  private static func node(of record: Record) -> ElementNode { NodeEmitter.node { $0.emit(record) } }
  private static func node(of correlation: Correlation) -> ElementNode { NodeEmitter.node { $0.emit(correlation) } }
  private static func node(of workout: Workout) -> ElementNode { NodeEmitter.node { $0.emit(workout) } }
  private static func node(of entry: MetadataEntry) -> ElementNode { NodeEmitter.node { $0.emit(entry) } }

  /// A typed child as its parent's extras see it: a node when it holds text (``node(of:)``).
  private static func child(_ entry: MetadataEntry) -> Child {
    entry.text == nil ? .known(count(entry)) : .node(node(of: entry))
  }

  private static func child(_ record: Record) -> Child {
    record.text == nil ? .known(count(record)) : .node(node(of: record))
  }

  private static func isOther(_ node: ElementNode) -> Bool {
    if case .other = row(of: node, parent: 0) { true } else { false }
  }

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
