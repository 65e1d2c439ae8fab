/// A child of a typed element as one of every kind the model knows: each element's `Child` enum
/// names its kinds once (``RoutedChild/routed``), so that a walk over the tree is one switch over
/// this enum, whichever element the child is in. ``TableRowRouter`` routes and numbers each as a
/// row (and the SQLite loader stores it), the writers emit it (``ElementEmitter``), and a summary
/// counts it (``ElementTally``).
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

/// A child of a typed element: which kind it is.
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
