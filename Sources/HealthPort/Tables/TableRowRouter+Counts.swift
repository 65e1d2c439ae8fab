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
