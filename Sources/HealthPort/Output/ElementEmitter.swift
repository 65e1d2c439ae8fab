/// The events of one element's serialisation, shared by the XML and JSON writers so that the
/// attribute order of typed elements (the Health app's, not the DTD's) is written down once.
///
/// For each element: ``begin(_:)``, its attributes in order, then either ``endEmpty()`` or
/// ``beginContent(text:)``, the children, ``endContent(_:)``.
protocol ElementEmitter: ~Copyable {
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
  /// Writes a Record's `type`, `sourceName` and `sourceVersion` attributes by calling `write`,
  /// or from a copy of what it wrote for the previous Record with the same three strings.
  mutating func recordHead(_ record: Record, _ write: (inout Self, Record) -> Void)
  /// A Record's start and attributes, before its children: by default the attribute events in
  /// order; a writer that encodes Records from their start tags writes them with that encoder.
  mutating func beginRecord(_ record: Record)
}

extension ElementEmitter where Self: ~Copyable {
  @inline(__always)
  mutating func recordHead(_ record: Record, _ write: (inout Self, Record) -> Void) { write(&self, record) }

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
    for index in attributes.indices { attribute(Name(attributes[index].name), attributes[index].value) }
  }

  /// Writes the element's children (if any) and closes it.
  @inline(__always)
  mutating func finish<C: RoutedChild>(_ name: Name, _ children: [C], text: String? = nil) {
    if children.isEmpty && text == nil {
      endEmpty()
      return
    }
    beginContent(text: text)
    for index in children.indices { emit(children[index].routed) }  // borrowed: `for … in` copies each child
    endContent(name)
  }

  /// A child of a typed element, whichever element it is in.
  mutating func emit(_ child: RoutedChildRow) {
    switch child {
    case .metadata(let entry): emit(entry)
    case .record(let record): emit(record)
    case .event(let event): emit(event)
    case .activity(let activity): emit(activity)
    case .statistics(let statistics): emit(statistics)
    case .route(let route): emit(route)
    case .fileReference(let reference): emit(reference)
    case .hrvList(let list): emit(list)
    case .beat(let beat): emit(beat)
    case .location(let node), .node(let node): emit(node)
    }
  }

  // MARK: Typed elements, in the attribute order the Health app writes

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
    beginRecord(record)
    finishRecord(record.children, text: record.text)
  }

  mutating func beginRecord(_ record: Record) {
    begin("Record")
    // The record is passed to the closure rather than captured: a capture would copy it.
    recordHead(record) { emitter, record in
      emitter.attribute("type", record.type)
      emitter.attribute("sourceName", record.sourceName)
      emitter.attribute("sourceVersion", record.sourceVersion)
    }
    attribute("device", record.deviceString)
    attribute("unit", record.unit)
    attribute("creationDate", record.creationDate)
    attribute("startDate", record.startDate)
    attribute("endDate", record.endDate)
    numericAttribute("value", record.value)
    extras(record.extraAttributes)
  }

  /// A Record's text and children, and its end: after its attributes.
  @inline(__always)
  mutating func finishRecord(_ children: RecordChildren, text: String?) {
    guard let array = children.unpacked else {
      // Over ``RecordChildren/packingStart`` children: each packed one made as it is written.
      beginContent(text: text)
      for child in children { emit(child.routed) }
      return endContent("Record")
    }
    finish("Record", array, text: text)
  }

  mutating func emit(_ entry: MetadataEntry) {
    begin("MetadataEntry")
    attribute("key", entry.key)
    attribute("value", entry.value)
    extras(entry.extraAttributes)
    finish("MetadataEntry", entry.extraChildren, text: entry.text)
  }

  mutating func emit(_ list: HeartRateVariabilityList) {
    begin("HeartRateVariabilityMetadataList")
    extras(list.extraAttributes)
    finish("HeartRateVariabilityMetadataList", list.children)
  }

  mutating func emit(_ beat: InstantaneousBeatsPerMinute) {
    begin("InstantaneousBeatsPerMinute")
    numericAttribute("bpm", beat.bpm)
    attribute("time", beat.time)
    extras(beat.extraAttributes)
    finish("InstantaneousBeatsPerMinute", beat.extraChildren)
  }

  /// `sourceName` to `endDate`, in the order a Correlation, Workout and WorkoutRoute write them
  /// (a Record writes its `unit` among them).
  mutating func sourceAndDates(_ sample: some SourcedSample) {
    attribute("sourceName", sample.sourceName)
    attribute("sourceVersion", sample.sourceVersion)
    attribute("device", sample.deviceString)
    attribute("creationDate", sample.creationDate)
    attribute("startDate", sample.startDate)
    attribute("endDate", sample.endDate)
  }

  mutating func emit(_ correlation: Correlation) {
    begin("Correlation")
    attribute("type", correlation.type)
    sourceAndDates(correlation)
    extras(correlation.extraAttributes)
    finish("Correlation", correlation.children, text: correlation.text)
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
    sourceAndDates(workout)
    extras(workout.extraAttributes)
    finish("Workout", workout.children, text: workout.text)
  }

  mutating func emit(_ event: WorkoutEvent) {
    begin("WorkoutEvent")
    attribute("type", event.type)
    attribute("date", event.date)
    numericAttribute("duration", event.duration)
    attribute("durationUnit", event.durationUnit)
    extras(event.extraAttributes)
    finish("WorkoutEvent", event.children)
  }

  mutating func emit(_ activity: WorkoutActivity) {
    begin("WorkoutActivity")
    attribute("uuid", activity.uuid)
    attribute("startDate", activity.startDate)
    attribute("endDate", activity.endDate)
    numericAttribute("duration", activity.duration)
    attribute("durationUnit", activity.durationUnit)
    extras(activity.extraAttributes)
    finish("WorkoutActivity", activity.children)
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
    finish("WorkoutStatistics", statistics.extraChildren)
  }

  mutating func emit(_ route: WorkoutRoute) {
    begin("WorkoutRoute")
    sourceAndDates(route)
    extras(route.extraAttributes)
    finish("WorkoutRoute", route.children)
  }

  mutating func emit(_ reference: FileReference) {
    begin("FileReference")
    attribute("path", reference.path)
    extras(reference.extraAttributes)
    finish("FileReference", reference.extraChildren)
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
    finish(name, node.children, text: node.text)
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
  func append<Out: ByteAppender & ~Copyable>(to out: inout Out) {
    switch storage {
    case .literal(let text): out.append(text)
    case .string(let text): text.withUTF8Bytes { out.append(bytes: $0) }
    }
  }

  /// Appends `"name":`, after a comma when `comma`, and before the opening quote of a string
  /// value when `quote`: for a literal name, one capacity check, one copy and a few stores.
  @inline(__always)
  func appendJSONKey(to out: inout ByteBuffer, comma: Bool, quote: Bool) {
    guard case .literal(let text) = storage else {
      if comma { out.append(UInt8(ascii: ",")) }
      appendJSON(to: &out)
      out.append(UInt8(ascii: ":"))
      if quote { out.append(UInt8(ascii: "\"")) }
      return
    }
    let length = text.utf8CodeUnitCount
    let name = text.utf8Start
    out.appendUnsafe(maxCount: length + 6) { pointer in
      var index = 0
      if comma {
        pointer[0] = UInt8(ascii: ",")
        index = 1
      }
      pointer[index] = UInt8(ascii: "\"")
      ByteBuffer.copy(name, to: pointer + index + 1, count: length)
      index += length + 1
      // `":"` in one little-endian store; its last quote is kept when `quote`.
      UnsafeMutableRawPointer(pointer + index).storeBytes(of: 0x0022_3A22 as UInt32, as: UInt32.self)
      return index + (quote ? 3 : 2)
    }
  }

  /// Appends ` name="` (an XML attribute's start): for a literal name, one capacity check, one
  /// copy and two stores.
  @inline(__always)
  func appendXMLAttributeStart(to out: inout ByteBuffer) {
    guard case .literal(let text) = storage else {
      out.append(0x20)
      append(to: &out)
      out.append("=\"")
      return
    }
    let length = text.utf8CodeUnitCount
    let name = text.utf8Start
    out.appendUnsafe(maxCount: length + 3) { pointer in
      pointer[0] = 0x20
      ByteBuffer.copy(name, to: pointer + 1, count: length)
      UnsafeMutableRawPointer(pointer + 1 + length).storeBytes(of: 0x223D as UInt16, as: UInt16.self)
      return length + 3
    }
  }

  /// Appends the name as a JSON string (literals are plain ASCII identifiers: no escaping).
  @inline(__always)
  func appendJSON<Out: ByteAppender & ~Copyable>(to out: inout Out) {
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
  ///
  /// All sixteen digits are computed at once in two words (each nibble spread to a byte, then
  /// turned into its ASCII digit), and the leading zeros shifted out before the store.
  @inline(__always)
  static func appendHex<Out: ByteAppender & ~Copyable>(_ address: UInt64, to out: inout Out) {
    let digits = max(1, (64 - address.leadingZeroBitCount + 3) / 4)
    // Digits 0–7 (most significant first) in `high`, 8–15 in `low`, first digit in the lowest byte.
    let high = hexDigits(UInt32(truncatingIfNeeded: address >> 32))
    let low = hexDigits(UInt32(truncatingIfNeeded: address))
    let skipped = UInt64(16 - digits)
    let first: UInt64
    let second: UInt64
    if skipped >= 8 {
      first = low >> (8 * (skipped - 8))
      second = 0
    } else if skipped == 0 {
      first = high
      second = low
    } else {
      first = high >> (8 * skipped) | low << (8 * (8 - skipped))
      second = low >> (8 * skipped)
    }
    out.appendUnsafe(maxCount: 16) { pointer in
      let raw = UnsafeMutableRawPointer(pointer)
      raw.storeBytes(of: first, toByteOffset: 0, as: UInt64.self)
      raw.storeBytes(of: second, toByteOffset: 8, as: UInt64.self)
      return digits
    }
  }

  /// The eight hex digits of `value`, most significant first from the lowest byte.
  @inline(__always)
  static func hexDigits(_ value: UInt32) -> UInt64 {
    var x = UInt64(value)
    x = (x | x << 16) & 0x0000_FFFF_0000_FFFF
    x = (x | x << 8) & 0x00FF_00FF_00FF_00FF
    x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F
    // Nibble i (least significant first) is now in byte i; the text wants the most significant first.
    x = x.byteSwapped
    let letters = ((x &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
    return x &+ 0x3030_3030_3030_3030 &+ letters &* 39
  }
}

/// Remembers the escaped bytes of recently written strings, keyed by their identity (see
/// ``EncodedFieldCache``): the reader shares one String per type, source, unit and device, so
/// the same few strings are escaped once instead of once per element. Short strings are cached
/// too (their identity is their bytes; a hit skips the copy out of the String). Direct-mapped,
/// 64 slots. Values that vary (numbers) should bypass it.
struct EscapedStringCache: ~Copyable {
  private static let slotCount = 64
  private let slots: UnsafeMutablePointer<EncodedFieldCache>

  init() {
    slots = .allocate(capacity: Self.slotCount)
    slots.initialize(repeating: EncodedFieldCache(), count: Self.slotCount)
  }

  deinit {
    slots.deinitialize(count: Self.slotCount)
    slots.deallocate()
  }

  /// Appends `text` as `encode` escapes it (from its UTF-8), from the cache when it can.
  @inline(__always)
  func append(
    _ text: String, to out: inout ByteBuffer, encode: (UnsafeBufferPointer<UInt8>, inout ByteBuffer) -> Void
  ) {
    let words = unsafeBitCast(text, to: (UInt64, UInt64).self)
    let slot = Int(truncatingIfNeeded: ((words.0 ^ words.1) &* 0x9E37_79B9_7F4A_7C15) >> 58)
    slots[slot].append(text, to: &out, encode: encode)
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
