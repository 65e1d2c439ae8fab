/// How many ids an element's routing takes: one per element of its subtree, in document order
/// (``TableRowRouter`` numbers the children of a row's element from these counts).
extension TableRowRouter {
  /// The elements of a subtree (each takes one id).
  package static func count(_ node: ElementNode) -> Int { 1 + count(node.children) }
  static func count(_ nodes: [ElementNode]) -> Int { nodes.reduce(0) { $0 + count($1) } }
  static func count(_ entry: MetadataEntry) -> Int { 1 + count(entry.extraChildren) }
  static func count(_ list: HeartRateVariabilityList) -> Int {
    list.children.reduce(1) { total, child in
      switch child {
      case .beat(let beat): total + 1 + count(beat.extraChildren)
      case .other(let node): total + count(node)
      }
    }
  }
  static func count(_ record: Record) -> Int {
    record.children.reduce(1) { total, child in
      switch child {
      case .metadata(let entry): total + count(entry)
      case .heartRateVariability(let list): total + count(list)
      case .other(let node): total + count(node)
      }
    }
  }
  static func count(_ event: WorkoutEvent) -> Int {
    event.children.reduce(1) { total, child in
      switch child {
      case .metadata(let entry): total + count(entry)
      case .other(let node): total + count(node)
      }
    }
  }
  static func count(_ activity: WorkoutActivity) -> Int {
    activity.children.reduce(1) { total, child in
      switch child {
      case .metadata(let entry): total + count(entry)
      case .event(let event): total + count(event)
      case .statistics(let statistics): total + 1 + count(statistics.extraChildren)
      case .other(let node): total + count(node)
      }
    }
  }
  static func count(_ route: WorkoutRoute) -> Int {
    route.children.reduce(1) { total, child in
      switch child {
      case .metadata(let entry): total + count(entry)
      case .fileReference(let reference): total + 1 + count(reference.extraChildren)
      case .location(let node), .other(let node): total + count(node)
      }
    }
  }
}
