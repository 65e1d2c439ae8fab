/// The events of one element's serialisation, shared by the XML and JSON writers so that the
/// attribute order of typed elements (FORMAT.md §2.2) is written down once.
///
/// For each element: ``begin(_:)``, its attributes in order, then either ``endEmpty()`` or
/// ``beginContent(text:)``, the children, ``endContent(_:)``.
protocol ElementEmitter {
  mutating func begin(_ name: Name)
  mutating func attribute(_ name: Name, _ value: String)
  mutating func attribute(_ name: Name, _ date: HealthDate)
  /// A `device` attribute, rebuilt from its compact form exactly as written.
  mutating func attribute(_ name: Name, _ device: DeviceString)
  /// An attribute whose value is a number written as text (kept as written).
  mutating func numericAttribute(_ name: Name, _ value: String)
  mutating func endEmpty()
  mutating func beginContent(text: String?)
  mutating func endContent(_ name: Name)
}

extension ElementEmitter {
  @inline(__always)
  mutating func attribute(_ name: Name, _ value: String?) {
    if let value { attribute(name, value) }
  }

  @inline(__always)
  mutating func attribute(_ name: Name, _ date: HealthDate?) {
    if let date { attribute(name, date) }
  }

  @inline(__always)
  mutating func attribute(_ name: Name, _ device: DeviceString?) {
    if let device { attribute(name, device) }
  }

  @inline(__always)
  mutating func numericAttribute(_ name: Name, _ value: String?) {
    if let value { numericAttribute(name, value) }
  }

  @inline(__always)
  mutating func extras(_ attributes: [Attribute]) {
    for attribute in attributes { self.attribute(Name(attribute.name), attribute.value) }
  }

  /// Writes the element's children (if any) and closes it.
  @inline(__always)
  mutating func finish<C>(_ name: Name, _ children: [C], text: String? = nil, _ each: (inout Self, C) -> Void) {
    if children.isEmpty && text == nil {
      endEmpty()
      return
    }
    beginContent(text: text)
    for child in children { each(&self, child) }
    endContent(name)
  }

  // MARK: Typed elements, in the attribute order the Health app writes (FORMAT.md §2.2)

  mutating func emit(_ element: ExportElement) {
    switch element {
    case .record(let record): emit(record)
    case .correlation(let correlation): emit(correlation)
    case .workout(let workout): emit(workout)
    case .exportDate(let element): emit(element.node)
    case .me(let element): emit(element.node)
    case .activitySummary(let element): emit(element.node)
    case .clinicalRecord(let element): emit(element.node)
    case .audiogram(let element): emit(element.node)
    case .visionPrescription(let element): emit(element.node)
    case .other(let node): emit(node)
    }
  }

  mutating func emit(_ record: Record) {
    begin("Record")
    attribute("type", record.type)
    attribute("sourceName", record.sourceName)
    attribute("sourceVersion", record.sourceVersion)
    attribute("device", record.deviceString)
    attribute("unit", record.unit)
    attribute("creationDate", record.creationDate)
    attribute("startDate", record.startDate)
    attribute("endDate", record.endDate)
    numericAttribute("value", record.value)
    extras(record.extraAttributes)
    finish("Record", record.children) { emitter, child in
      switch child {
      case .metadata(let entry): emitter.emit(entry)
      case .heartRateVariability(let list): emitter.emit(list)
      case .other(let node): emitter.emit(node)
      }
    }
  }

  mutating func emit(_ entry: MetadataEntry) {
    begin("MetadataEntry")
    attribute("key", entry.key)
    attribute("value", entry.value)
    extras(entry.extraAttributes)
    finish("MetadataEntry", entry.extraChildren) { $0.emit($1) }
  }

  mutating func emit(_ list: HeartRateVariabilityList) {
    begin("HeartRateVariabilityMetadataList")
    extras(list.extraAttributes)
    finish("HeartRateVariabilityMetadataList", list.children) { emitter, child in
      switch child {
      case .beat(let beat):
        emitter.begin("InstantaneousBeatsPerMinute")
        emitter.numericAttribute("bpm", beat.bpm)
        emitter.attribute("time", beat.time)
        emitter.extras(beat.extraAttributes)
        emitter.finish("InstantaneousBeatsPerMinute", beat.extraChildren) { $0.emit($1) }
      case .other(let node): emitter.emit(node)
      }
    }
  }

  mutating func emit(_ correlation: Correlation) {
    begin("Correlation")
    attribute("type", correlation.type)
    attribute("sourceName", correlation.sourceName)
    attribute("sourceVersion", correlation.sourceVersion)
    attribute("device", correlation.deviceString)
    attribute("creationDate", correlation.creationDate)
    attribute("startDate", correlation.startDate)
    attribute("endDate", correlation.endDate)
    extras(correlation.extraAttributes)
    finish("Correlation", correlation.children) { emitter, child in
      switch child {
      case .metadata(let entry): emitter.emit(entry)
      case .record(let record): emitter.emit(record)
      case .other(let node): emitter.emit(node)
      }
    }
  }

  mutating func emit(_ workout: Workout) {
    begin("Workout")
    attribute("workoutActivityType", workout.workoutActivityType)
    numericAttribute("duration", workout.duration)
    attribute("durationUnit", workout.durationUnit)
    numericAttribute("totalDistance", workout.totalDistance)
    attribute("totalDistanceUnit", workout.totalDistanceUnit)
    numericAttribute("totalEnergyBurned", workout.totalEnergyBurned)
    attribute("totalEnergyBurnedUnit", workout.totalEnergyBurnedUnit)
    attribute("sourceName", workout.sourceName)
    attribute("sourceVersion", workout.sourceVersion)
    attribute("device", workout.deviceString)
    attribute("creationDate", workout.creationDate)
    attribute("startDate", workout.startDate)
    attribute("endDate", workout.endDate)
    extras(workout.extraAttributes)
    finish("Workout", workout.children) { emitter, child in
      switch child {
      case .metadata(let entry): emitter.emit(entry)
      case .event(let event): emitter.emit(event)
      case .activity(let activity): emitter.emit(activity)
      case .statistics(let statistics): emitter.emit(statistics)
      case .route(let route): emitter.emit(route)
      case .other(let node): emitter.emit(node)
      }
    }
  }

  mutating func emit(_ event: WorkoutEvent) {
    begin("WorkoutEvent")
    attribute("type", event.type)
    attribute("date", event.date)
    numericAttribute("duration", event.duration)
    attribute("durationUnit", event.durationUnit)
    extras(event.extraAttributes)
    finish("WorkoutEvent", event.children) { emitter, child in
      switch child {
      case .metadata(let entry): emitter.emit(entry)
      case .other(let node): emitter.emit(node)
      }
    }
  }

  mutating func emit(_ activity: WorkoutActivity) {
    begin("WorkoutActivity")
    attribute("uuid", activity.uuid)
    attribute("startDate", activity.startDate)
    attribute("endDate", activity.endDate)
    numericAttribute("duration", activity.duration)
    attribute("durationUnit", activity.durationUnit)
    extras(activity.extraAttributes)
    finish("WorkoutActivity", activity.children) { emitter, child in
      switch child {
      case .metadata(let entry): emitter.emit(entry)
      case .event(let event): emitter.emit(event)
      case .statistics(let statistics): emitter.emit(statistics)
      case .other(let node): emitter.emit(node)
      }
    }
  }

  mutating func emit(_ statistics: WorkoutStatistics) {
    begin("WorkoutStatistics")
    attribute("type", statistics.type)
    attribute("startDate", statistics.startDate)
    attribute("endDate", statistics.endDate)
    numericAttribute("average", statistics.average)
    numericAttribute("minimum", statistics.minimum)
    numericAttribute("maximum", statistics.maximum)
    numericAttribute("sum", statistics.sum)
    attribute("unit", statistics.unit)
    extras(statistics.extraAttributes)
    finish("WorkoutStatistics", statistics.extraChildren) { $0.emit($1) }
  }

  mutating func emit(_ route: WorkoutRoute) {
    begin("WorkoutRoute")
    attribute("sourceName", route.sourceName)
    attribute("sourceVersion", route.sourceVersion)
    attribute("device", route.deviceString)
    attribute("creationDate", route.creationDate)
    attribute("startDate", route.startDate)
    attribute("endDate", route.endDate)
    extras(route.extraAttributes)
    finish("WorkoutRoute", route.children) { emitter, child in
      switch child {
      case .metadata(let entry): emitter.emit(entry)
      case .fileReference(let reference):
        emitter.begin("FileReference")
        emitter.attribute("path", reference.path)
        emitter.extras(reference.extraAttributes)
        emitter.finish("FileReference", reference.extraChildren) { $0.emit($1) }
      case .location(let node), .other(let node): emitter.emit(node)
      }
    }
  }

  /// A generic element: attributes in their stored order, then its text and children.
  mutating func emit(_ node: ElementNode) {
    let name = Name(node.name)
    begin(name)
    for attribute in node.attributes {
      if GenericNumbers.isNumeric(attribute.name, in: node.name) {
        numericAttribute(Name(attribute.name), attribute.value)
      } else {
        self.attribute(Name(attribute.name), attribute.value)
      }
    }
    finish(name, node.children, text: node.text) { $0.emit($1) }
  }
}

/// An element or attribute name: a literal for the typed elements (copied without a look at its
/// bytes), or a string read from the input.
struct Name: ExpressibleByStringLiteral {
  enum Storage {
    case literal(StaticString)
    case string(String)
  }
  let storage: Storage

  init(stringLiteral value: StaticString) { storage = .literal(value) }
  init(_ string: String) { storage = .string(string) }

  /// Appends the name's UTF-8 bytes.
  @inline(__always)
  func append(to out: inout [UInt8]) {
    switch storage {
    case .literal(let text):
      out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    case .string(let text): out.append(contentsOf: text.utf8)
    }
  }

  /// Appends the name as a JSON string (literals are plain ASCII identifiers: no escaping).
  @inline(__always)
  func appendJSON(to out: inout [UInt8]) {
    switch storage {
    case .literal:
      out.append(UInt8(ascii: "\""))
      append(to: &out)
      out.append(UInt8(ascii: "\""))
    case .string(let text): JSONEscaping.appendString(text, to: &out)
    }
  }
}

extension DeviceString {
  /// Appends the address as lowercase hex digits without leading zeros, as the export writes it.
  @inline(__always)
  static func appendHex(_ address: UInt64, to out: inout [UInt8]) {
    let digits = max(1, (64 - address.leadingZeroBitCount + 3) / 4)
    for index in stride(from: digits - 1, through: 0, by: -1) {
      let digit = UInt8((address >> (UInt64(index) * 4)) & 15)
      out.append(digit < 10 ? 48 + digit : 87 + digit)
    }
  }
}

/// Remembers the escaped bytes of recently written long strings, keyed by the identity of their
/// storage: the reader shares one String per device (``DeviceString/rest``), so the same few
/// device strings are escaped once instead of once per record. A cached entry keeps its String
/// alive, so an equal storage address always means the same string.
struct EscapedStringCache {
  private var keys = [UnsafeRawPointer?](repeating: nil, count: 32)
  private var strings = [String](repeating: "", count: 32)
  private var values = [[UInt8]](repeating: [], count: 32)

  @inline(__always)
  mutating func append(_ text: String, to out: inout [UInt8], escape: (String, inout [UInt8]) -> Void) {
    guard text.utf8.count > 15,
      let key = text.utf8.withContiguousStorageIfAvailable({ UnsafeRawPointer($0.baseAddress) }) ?? nil
    else {
      escape(text, &out)
      return
    }
    let slot = Int(bitPattern: UInt(bitPattern: key) >> 4) & 31
    if keys[slot] == key {
      out.append(contentsOf: values[slot])
      return
    }
    var escaped: [UInt8] = []
    escape(text, &escaped)
    keys[slot] = key
    strings[slot] = text
    values[slot] = escaped
    out.append(contentsOf: escaped)
  }
}

/// Which attributes of generic elements hold numbers (for the typed `numbers` of JSON output).
enum GenericNumbers {
  static let activitySummary: Set<String> = [
    "activeEnergyBurned", "activeEnergyBurnedGoal", "appleMoveTime", "appleMoveTimeGoal", "appleMoveMinutes",
    "appleMoveMinutesGoal", "appleExerciseTime", "appleExerciseTimeGoal", "appleStandHours", "appleStandHoursGoal",
  ]
  static let sensitivityPoint: Set<String> = [
    "frequencyValue", "leftEarValue", "rightEarValue", "leftEarClampingRangeLowerBound",
    "leftEarClampingRangeUpperBound", "rightEarClampingRangeLowerBound", "rightEarClampingRangeUpperBound",
  ]
  static let eye: Set<String> = [
    "sphere", "cylinder", "axis", "add", "vertex", "prismAmount", "prismAngle", "farPD", "nearPD", "baseCurve",
    "diameter",
  ]
  static let location: Set<String> = [
    "latitude", "longitude", "altitude", "horizontalAccuracy", "verticalAccuracy", "course", "speed",
  ]

  @inline(__always)
  static func isNumeric(_ attribute: String, in element: String) -> Bool {
    switch element {
    case "ActivitySummary": activitySummary.contains(attribute)
    case "SensitivityPoint": sensitivityPoint.contains(attribute)
    case "RightEye", "LeftEye": eye.contains(attribute)
    case "Location": location.contains(attribute)
    default: false
    }
  }
}
