/// What a generic node becomes.
enum NodeRole {
  case exportDate, me, activitySummary, clinicalRecord, audiogram, visionPrescription, location, child, unknown
}

/// The parent context that decides how a child element is read.
enum Context {
  case root, record, correlation, workout, workoutEvent, workoutActivity, workoutRoute, hrvList, leaf, node
}

/// An element under construction.
enum Frame {
  case record(Record)
  indirect case correlation(Correlation)
  indirect case workout(Workout)
  indirect case event(WorkoutEvent)
  indirect case activity(WorkoutActivity)
  indirect case statistics(WorkoutStatistics)
  indirect case route(WorkoutRoute)
  case fileReference(FileReference)
  case metadata(MetadataEntry)
  case hrvList(HeartRateVariabilityList)
  case beat(InstantaneousBeatsPerMinute)
  case node(ElementNode, NodeRole)
  case placeholder

  var context: Context {
    switch self {
    case .record: .record
    case .correlation: .correlation
    case .workout: .workout
    case .event: .workoutEvent
    case .activity: .workoutActivity
    case .route: .workoutRoute
    case .hrvList: .hrvList
    case .statistics, .fileReference, .metadata, .beat: .leaf
    case .node, .placeholder: .node
    }
  }

  /// This frame as a generic node, for a child in a place healthport does not expect it.
  var asNode: ElementNode {
    switch self {
    case .node(let node, _): return node
    default:
      // Typed frames only arise where their parent expects them (ElementBuilder and the CSV
      // split reader both check the context first), so this is never reached.
      assertionFailure("a typed element in a place that does not expect it")
      return ElementNode(name: "?")
    }
  }

  /// Adds a finished child. The payload is moved out of `self` first (`self = .placeholder`)
  /// so that its child array is uniquely referenced and grows in place.
  mutating func attach(_ child: Frame) {
    switch self {
    case .record(var r):
      self = .placeholder
      switch child {
      case .metadata(let m): r.children.append(.metadata(m))
      case .hrvList(let l): r.children.append(.heartRateVariability(l))
      default: r.children.append(.other(child.asNode))
      }
      self = .record(r)
    case .correlation(var c):
      self = .placeholder
      switch child {
      case .metadata(let m): c.children.append(.metadata(m))
      case .record(let r): c.children.append(.record(r))
      default: c.children.append(.other(child.asNode))
      }
      self = .correlation(c)
    case .workout(var w):
      self = .placeholder
      switch child {
      case .metadata(let m): w.children.append(.metadata(m))
      case .event(let e): w.children.append(.event(e))
      case .activity(let a): w.children.append(.activity(a))
      case .statistics(let s): w.children.append(.statistics(s))
      case .route(let r): w.children.append(.route(r))
      default: w.children.append(.other(child.asNode))
      }
      self = .workout(w)
    case .event(var e):
      self = .placeholder
      if case .metadata(let m) = child {
        e.children.append(.metadata(m))
      } else {
        e.children.append(.other(child.asNode))
      }
      self = .event(e)
    case .activity(var a):
      self = .placeholder
      switch child {
      case .metadata(let m): a.children.append(.metadata(m))
      case .event(let e): a.children.append(.event(e))
      case .statistics(let s): a.children.append(.statistics(s))
      default: a.children.append(.other(child.asNode))
      }
      self = .activity(a)
    case .route(var r):
      self = .placeholder
      switch child {
      case .metadata(let m): r.children.append(.metadata(m))
      case .fileReference(let f): r.children.append(.fileReference(f))
      case .node(let n, .location): r.children.append(.location(n))
      default: r.children.append(.other(child.asNode))
      }
      self = .route(r)
    case .hrvList(var l):
      self = .placeholder
      if case .beat(let b) = child { l.children.append(.beat(b)) } else { l.children.append(.other(child.asNode)) }
      self = .hrvList(l)
    case .statistics(var s):
      self = .placeholder
      s.extraChildren.append(child.asNode)
      self = .statistics(s)
    case .fileReference(var f):
      self = .placeholder
      f.extraChildren.append(child.asNode)
      self = .fileReference(f)
    case .metadata(var m):
      self = .placeholder
      m.extraChildren.append(child.asNode)
      self = .metadata(m)
    case .beat(var b):
      self = .placeholder
      b.extraChildren.append(child.asNode)
      self = .beat(b)
    case .node(var n, let role):
      self = .placeholder
      n.children.append(child.asNode)
      self = .node(n, role)
    case .placeholder:
      break
    }
  }

  /// The finished top-level element.
  consuming func topLevelElement() -> ExportElement {
    switch consume self {
    case .record(let r): .record(r)
    case .correlation(let c): .correlation(c)
    case .workout(let w): .workout(w)
    case .node(let node, .exportDate): .exportDate(ExportDate(node: node))
    case .node(let node, .me): .me(Me(node: node))
    case .node(let node, .activitySummary): .activitySummary(ActivitySummary(node: node))
    case .node(let node, .clinicalRecord): .clinicalRecord(ClinicalRecord(node: node))
    case .node(let node, .audiogram): .audiogram(Audiogram(node: node))
    case .node(let node, .visionPrescription): .visionPrescription(VisionPrescription(node: node))
    case let other: .other(other.asNode)
    }
  }
}
