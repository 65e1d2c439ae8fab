/// The children of a row's element, as ``TableRowRouter`` routes and numbers them (and the SQLite
/// loader stores them): each typed child kind names its row once (``RoutedChild/routed``), and an
/// element's subtree takes one id per element, in document order.
package enum RoutedChildRow {
  case metadata(MetadataEntry)
  case record(Record)
  case event(WorkoutEvent)
  case activity(WorkoutActivity)
  case statistics(WorkoutStatistics)
  case route(WorkoutRoute)
  case fileReference(FileReference)
  case hrvList(HeartRateVariabilityList)
  case beat(InstantaneousBeatsPerMinute)
  /// A route's inline `Location` (a generic element to the router).
  case location(ElementNode)
  /// A generic element.
  case node(ElementNode)
}

/// A child of a row's element: which row it is.
package protocol RoutedChild {
  var routed: RoutedChildRow { get }
}

extension ElementNode: RoutedChild {
  package var routed: RoutedChildRow { .node(self) }
}

extension Record.Child: RoutedChild {
  package var routed: RoutedChildRow {
    switch self {
    case .metadata(let entry): .metadata(entry)
    case .heartRateVariability(let list): .hrvList(list)
    case .other(let node): .node(node)
    }
  }
}

extension Correlation.Child: RoutedChild {
  package var routed: RoutedChildRow {
    switch self {
    case .metadata(let entry): .metadata(entry)
    case .record(let record): .record(record)
    case .other(let node): .node(node)
    }
  }
}

extension Workout.Child: RoutedChild {
  package var routed: RoutedChildRow {
    switch self {
    case .metadata(let entry): .metadata(entry)
    case .event(let event): .event(event)
    case .activity(let activity): .activity(activity)
    case .statistics(let statistics): .statistics(statistics)
    case .route(let route): .route(route)
    case .other(let node): .node(node)
    }
  }
}

extension WorkoutChildNode: RoutedChild {
  package var routed: RoutedChildRow {
    switch self {
    case .metadata(let entry): .metadata(entry)
    case .other(let node): .node(node)
    }
  }
}

extension WorkoutActivity.Child: RoutedChild {
  package var routed: RoutedChildRow {
    switch self {
    case .metadata(let entry): .metadata(entry)
    case .event(let event): .event(event)
    case .statistics(let statistics): .statistics(statistics)
    case .other(let node): .node(node)
    }
  }
}

extension WorkoutRoute.Child: RoutedChild {
  package var routed: RoutedChildRow {
    switch self {
    case .metadata(let entry): .metadata(entry)
    case .fileReference(let reference): .fileReference(reference)
    case .location(let node): .location(node)
    case .other(let node): .node(node)
    }
  }
}

extension HeartRateVariabilityList.Child: RoutedChild {
  package var routed: RoutedChildRow {
    switch self {
    case .beat(let beat): .beat(beat)
    case .other(let node): .node(node)
    }
  }
}

extension TableRowRouter {
  /// The elements of a subtree (each takes one id).
  package static func count(_ node: ElementNode) -> Int { subtree(node.children) }

  /// An element with these children: itself and theirs.
  static func subtree<Children: Collection>(_ children: Children) -> Int where Children.Element: RoutedChild {
    children.reduce(1) { $0 + count($1.routed) }
  }

  /// The ids a child's subtree takes (a typed one holding text is counted as the node it is routed as).
  static func count(_ child: RoutedChildRow) -> Int {
    switch child {
    case .metadata(let entry): subtree(entry.extraChildren)
    case .record(let record): subtree(record.children)
    case .event(let event): subtree(event.children)
    case .activity(let activity): subtree(activity.children)
    case .statistics(let statistics): subtree(statistics.extraChildren)
    case .route(let route): subtree(route.children)
    case .fileReference(let reference): subtree(reference.extraChildren)
    case .hrvList(let list): subtree(list.children)
    case .beat(let beat): subtree(beat.extraChildren)
    case .node(let node), .location(let node): subtree(node.children)
    }
  }
}
