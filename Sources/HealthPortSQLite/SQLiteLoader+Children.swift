import HealthPort
import SQLiteStore

/// A stored row whose children are being stored: the name its `metadata` and `extras` rows give as
/// their owner, its id, and the workout (and activity) that its events, statistics, activities and
/// routes name. The loader's row for an element that the table router calls a parent.
struct StoredParent {
  enum Kind: String {
    case record, correlation, workout
    case correlationRecord = "correlation_record"
    case activity = "workout_activity"
    case event = "workout_event"
    case route = "workout_route"
    case hrvList = "hrv_list"
  }

  let kind: Kind
  let id: Int64
  /// The workout a workout's descendants belong to (0 outside workouts).
  var workoutID: Int64 = 0
  /// The activity an activity's events and statistics belong to.
  var activityID: Int64?
  /// A route's first `FileReference` (its `file_path`), by sibling position; a later one is kept in extras.
  var firstFileReference = -1

  var owner: String { kind.rawValue }
}

/// The children of every stored row, walked once: each child is the row the table router names
/// (``RoutedChild/routed``), stored under its parent with its position among its siblings.
extension SQLiteLoader {
  func insertChildren<Children: Collection>(_ children: Children, of parent: StoredParent) throws
  where Children.Element: RoutedChild {
    for (position, child) in children.enumerated() { try insertChild(child.routed, of: parent, position) }
  }

  private func insertChild(_ child: RoutedChildRow, of parent: StoredParent, _ position: Int) throws {
    switch child {
    case .metadata(let entry): try insertMetadata(entry, owner: parent.owner, parent.id, position)
    case .record(let record): try insertCorrelationRecord(record, correlationID: parent.id, position)
    case .event(let event):
      try insert(event, workoutID: parent.workoutID, activityID: parent.activityID, position)
    case .activity(let activity): try insert(activity, workoutID: parent.workoutID, position)
    case .statistics(let statistics):
      try insert(statistics, workoutID: parent.workoutID, activityID: parent.activityID, position)
    case .route(let route): try insert(route, workoutID: parent.workoutID, position)
    case .fileReference(let reference):
      // The first reference is the route's `file_path`; any further one (and unknown attributes) go to extras.
      if position != parent.firstFileReference {
        try insertExtra(
          ElementNode(name: "FileReference", attributes: [Attribute("path", reference.path)]),
          owner: parent.owner, parent.id, position)
      }
      try insertExtras(reference.extraAttributes, owner: "file_reference", parent.id)
    case .location(let node): try insertLocation(node, routeID: parent.id, position)
    case .hrvList(let list):
      // A correlation's record keeps its list whole, as XML.
      guard parent.kind == .record else {
        return try insertExtra(Self.node(of: list), owner: parent.owner, parent.id, position)
      }
      try insertExtras(list.extraAttributes, owner: "hrv_list", parent.id)
      if let beats = Self.plainBeats(list) { return try insertBeats(beats, recordID: parent.id) }
      try insertChildren(list.children, of: StoredParent(kind: .hrvList, id: parent.id))
    case .beat(let beat):
      var b = Binder(s.insertBeat, text)
      try addBeat(to: &b, beat, recordID: parent.id, position)
      let beatID = try insertRow(&b, into: .hrvBeats)
      try insertExtras(beat.extraAttributes, children: beat.extraChildren, owner: "hrv_beat", beatID)
    case .node(let node): try insertExtra(node, owner: parent.owner, parent.id, position)
    }
  }
}
