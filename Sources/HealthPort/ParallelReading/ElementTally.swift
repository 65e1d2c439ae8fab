/// Counts elements of every kind, nested ones included.
struct ElementTally {
  var record = 0, metadata = 0, hrvList = 0, beat = 0, correlation = 0, workout = 0, event = 0
  var activity = 0, statistics = 0, route = 0, fileReference = 0
  var others: [String: Int] = [:]

  mutating func add(_ name: String, _ count: Int = 1) { others[name, default: 0] += count }

  /// Another tally's counts (a range's, in a parallel read).
  mutating func add(_ other: ElementTally) {
    record += other.record
    metadata += other.metadata
    hrvList += other.hrvList
    beat += other.beat
    correlation += other.correlation
    workout += other.workout
    event += other.event
    activity += other.activity
    statistics += other.statistics
    route += other.route
    fileReference += other.fileReference
    for (name, count) in other.others { others[name, default: 0] += count }
  }

  mutating func count(_ record: Record) { count(.record(record)) }

  mutating func count(_ correlation: Correlation) {
    self.correlation += 1
    count(correlation.children)
  }

  mutating func count(_ workout: Workout) {
    self.workout += 1
    count(workout.children)
  }

  mutating func count(_ node: ElementNode) { count(.node(node)) }

  private mutating func count<Children: Sequence>(_ children: Children) where Children.Element: RoutedChild {
    for child in children { count(child.routed) }
  }

  /// An element inside a top-level one (or a top-level Record or generic element), and its subtree.
  private mutating func count(_ element: RoutedChildRow) {
    switch element {
    case .metadata(let entry):
      metadata += 1
      count(entry.extraChildren)
    case .record(let record):
      self.record += 1
      count(record.children)
    case .event(let event):
      self.event += 1
      count(event.children)
    case .activity(let activity):
      self.activity += 1
      count(activity.children)
    case .statistics(let value):
      statistics += 1
      count(value.extraChildren)
    case .route(let route):
      self.route += 1
      count(route.children)
    case .fileReference(let reference):
      fileReference += 1
      count(reference.extraChildren)
    case .hrvList(let list):
      hrvList += 1
      count(list.children)
    case .beat(let beat):
      self.beat += 1
      count(beat.extraChildren)
    case .location(let node), .node(let node):
      add(node.name)
      count(node.children)
    }
  }

  func named() -> [String: Int] {
    var result = others
    let fixed: [(String, Int)] = [
      ("Record", record), ("MetadataEntry", metadata), ("HeartRateVariabilityMetadataList", hrvList),
      ("InstantaneousBeatsPerMinute", beat), ("Correlation", correlation), ("Workout", workout),
      ("WorkoutEvent", event), ("WorkoutActivity", activity), ("WorkoutStatistics", statistics),
      ("WorkoutRoute", route), ("FileReference", fileReference),
    ]
    for (name, count) in fixed where count > 0 { result[name, default: 0] += count }
    return result
  }
}
