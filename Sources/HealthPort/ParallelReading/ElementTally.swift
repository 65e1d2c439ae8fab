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

  mutating func count(_ record: Record) {
    self.record += 1
    for child in record.children {
      switch child {
      case .metadata(let entry): count(entry)
      case .heartRateVariability(let list):
        hrvList += 1
        add(list)
      case .other(let node): count(node)
      }
    }
  }

  mutating func add(_ list: HeartRateVariabilityList) {
    for child in list.children {
      switch child {
      case .beat(let beat):
        self.beat += 1
        for node in beat.extraChildren { count(node) }
      case .other(let node): count(node)
      }
    }
  }

  mutating func count(_ entry: MetadataEntry) {
    metadata += 1
    for node in entry.extraChildren { count(node) }
  }

  mutating func count(_ correlation: Correlation) {
    self.correlation += 1
    for child in correlation.children {
      switch child {
      case .metadata(let entry): count(entry)
      case .record(let record): count(record)
      case .other(let node): count(node)
      }
    }
  }

  mutating func count(_ workout: Workout) {
    self.workout += 1
    for child in workout.children {
      switch child {
      case .metadata(let entry): count(entry)
      case .event(let event): count(event)
      case .activity(let activity):
        self.activity += 1
        for child in activity.children {
          switch child {
          case .metadata(let entry): count(entry)
          case .event(let event): count(event)
          case .statistics(let value): count(value)
          case .other(let node): count(node)
          }
        }
      case .statistics(let value): count(value)
      case .route(let route):
        self.route += 1
        for child in route.children {
          switch child {
          case .metadata(let entry): count(entry)
          case .fileReference(let reference):
            fileReference += 1
            for node in reference.extraChildren { count(node) }
          case .location(let node), .other(let node): count(node)
          }
        }
      case .other(let node): count(node)
      }
    }
  }

  mutating func count(_ event: WorkoutEvent) {
    self.event += 1
    for child in event.children {
      switch child {
      case .metadata(let entry): count(entry)
      case .other(let node): count(node)
      }
    }
  }

  mutating func count(_ value: WorkoutStatistics) {
    statistics += 1
    for node in value.extraChildren { count(node) }
  }

  mutating func count(_ node: ElementNode) {
    add(node.name)
    for child in node.children { count(child) }
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
