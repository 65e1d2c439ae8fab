/// An input problem found while building the model (a date that does not parse, a missing
/// required attribute). The reader adds the file, line and column.
struct ExportDataError: Error, CustomStringConvertible {
  let message: String
  var description: String { message }
}

/// Input beyond healthport's limits (nesting depth): an error with location that
/// `--skip-invalid` does not skip, since it may go on for as long as the input.
struct ExportLimitError: Error, CustomStringConvertible {
  let message: String
  var description: String { message }
}

/// The attributes of one typed element, read in one pass: the known ones into fields, all
/// others (and known names that do not belong to this element kind) into `extras` in order.
struct ParsedAttributes {
  var type: String?
  var unit: String?
  var value: String?
  var sourceName: String?
  var sourceVersion: String?
  var device: String?
  var deviceBytesHash: UInt64 = 0
  var creationDate: HealthDate?
  var startDate: HealthDate?
  var endDate: HealthDate?
  var date: HealthDate?
  var workoutActivityType: String?
  var duration: String?
  var durationUnit: String?
  var totalDistance: String?
  var totalDistanceUnit: String?
  var totalEnergyBurned: String?
  var totalEnergyBurnedUnit: String?
  var uuid: String?
  var average: String?
  var minimum: String?
  var maximum: String?
  var sum: String?
  var key: String?
  var bpm: String?
  var time: String?
  var path: String?
  var extras: [Attribute] = []
  /// What the device says about the product (see ``SourceProduct``).
  var deviceProduct: DeviceProduct?
  /// The Apple product named in the source name.
  var nameProduct: String?

  /// The source product: the device's Apple product, else one named in the source name, else
  /// the device's model.
  var product: String? {
    if case .apple(let product) = deviceProduct { return product }
    if let nameProduct { return nameProduct }
    if case .other(let model) = deviceProduct { return model }
    return nil
  }
}

/// The product a device string gives, cached per device (its text after the memory address).
enum DeviceProduct {
  case apple(String)
  case other(model: String?)
}

/// Unwraps a required attribute or throws a message naming it.
@inline(__always)
func require<T>(_ value: T?, _ name: StaticString, of element: StaticString) throws -> T {
  guard let value else {
    throw ExportDataError(message: "\(element) is missing its required attribute '\(name)'")
  }
  return value
}

/// Reads attributes into ``ParsedAttributes`` with interning and date parsing.
struct AttributeParser {
  /// Names, types, sources, units, metadata keys: few distinct ones, each kept.
  var interner = StringInterner()
  /// Metadata and generic attribute values, which may be unique on every element (UUIDs, dates):
  /// shared while they repeat, in fixed memory.
  var values = StringCache()
  private var deviceProducts = ByteKeyedTable<DeviceProduct>()
  private var nameProducts = ByteKeyedTable<String?>()
  // Internal for `recordTag(_:)`, which lives with the parallel reader (ParallelReading/).
  var names = AttributeNameCache()
  private var dates = DateParser()
  // The previous values of the Record fields that repeat from record to record.
  private var recentType = RecentString()
  private var recentSource = RecentString()
  private var recentSourceProduct: String?
  private var recentVersion = RecentString()
  private var recentUnit = RecentString()
  private var recentDevice = RecentString()
  private var recentDeviceProduct: DeviceProduct = .other(model: nil)
  /// ``record``, kept here: a static with a computed initial value is reached through a
  /// `swift_once` check on every access, twice per Record.
  let recordMask = AttributeParser.record

  static let record: UInt32 = mask(
    .type, .sourceName, .sourceVersion, .device, .unit, .creationDate, .startDate, .endDate, .value)
  static let correlation: UInt32 = mask(
    .type, .sourceName, .sourceVersion, .device, .creationDate, .startDate, .endDate)
  static let workout: UInt32 = mask(
    .workoutActivityType, .duration, .durationUnit, .totalDistance, .totalDistanceUnit, .totalEnergyBurned,
    .totalEnergyBurnedUnit, .sourceName, .sourceVersion, .device, .creationDate, .startDate, .endDate)
  static let workoutEvent: UInt32 = mask(.type, .date, .duration, .durationUnit)
  static let workoutActivity: UInt32 = mask(.uuid, .startDate, .endDate, .duration, .durationUnit)
  static let workoutStatistics: UInt32 = mask(
    .type, .startDate, .endDate, .average, .minimum, .maximum, .sum, .unit)
  static let workoutRoute: UInt32 = mask(
    .sourceName, .sourceVersion, .device, .creationDate, .startDate, .endDate)
  static let metadataEntry: UInt32 = mask(.key, .value)
  static let beat: UInt32 = mask(.bpm, .time)
  static let fileReference: UInt32 = mask(.path)

  /// For a reader whose name identities change meaning (a restarted parser frees its names).
  mutating func forgetNameIdentities() { names = AttributeNameCache() }

  static func mask(_ names: AttributeName...) -> UInt32 { names.reduce(0) { $0 | $1.bit } }

  mutating func parse<Attributes: ElementAttributes>(_ attributes: Attributes, allowed: UInt32, element: String) throws
    -> ParsedAttributes
  {
    var parsed = ParsedAttributes()
    for index in 0..<attributes.count {
      let name = attributes.name(at: index)
      let value = attributes.value(at: index)
      let id = AttributeName(name)
      guard id != .unknown, allowed & id.bit != 0 else {
        parsed.extras.append(Attribute(interner.intern(name.buffer), value.string))
        continue
      }
      switch id {
      case .type: parsed.type = interner.intern(value.buffer)
      case .unit: parsed.unit = interner.intern(value.buffer)
      case .value: parsed.value = values.string(value.buffer)
      case .sourceName:
        parsed.sourceName = interner.intern(value.buffer)
        parsed.nameProduct = nameProduct(value.buffer, name: parsed.sourceName!)
      case .sourceVersion: parsed.sourceVersion = interner.intern(value.buffer)
      case .device:
        parsed.device = value.string
        let restStart = DeviceString.split(value.buffer).restStart
        parsed.deviceProduct = deviceProduct(
          UnsafeBufferPointer(rebasing: value.buffer[restStart...]), device: DeviceString(parsed.device!))
      case .creationDate: parsed.creationDate = try Self.date(value, "creationDate", element)
      case .startDate: parsed.startDate = try Self.date(value, "startDate", element)
      case .endDate: parsed.endDate = try Self.date(value, "endDate", element)
      case .date: parsed.date = try Self.date(value, "date", element)
      case .workoutActivityType: parsed.workoutActivityType = interner.intern(value.buffer)
      case .duration: parsed.duration = value.string
      case .durationUnit: parsed.durationUnit = interner.intern(value.buffer)
      case .totalDistance: parsed.totalDistance = value.string
      case .totalDistanceUnit: parsed.totalDistanceUnit = interner.intern(value.buffer)
      case .totalEnergyBurned: parsed.totalEnergyBurned = value.string
      case .totalEnergyBurnedUnit: parsed.totalEnergyBurnedUnit = interner.intern(value.buffer)
      case .uuid: parsed.uuid = value.string
      case .average: parsed.average = value.string
      case .minimum: parsed.minimum = value.string
      case .maximum: parsed.maximum = value.string
      case .sum: parsed.sum = value.string
      case .key: parsed.key = interner.intern(value.buffer)
      case .bpm: parsed.bpm = value.string
      case .time: parsed.time = value.string
      case .path: parsed.path = value.string
      case .unknown: break
      }
    }
    return parsed
  }

  /// Reads a `<Record>` start tag into a ``Record``: the tag as ``recordTag(_:)`` reads and checks
  /// it (one reading of a Record's attributes for every path), its texts made Strings, the ones
  /// that repeat from Record to Record interned.
  mutating func record<Attributes: ElementAttributes>(_ attributes: Attributes) throws -> Record {
    let tag = try recordTag(attributes)
    var sourceVersion: String?
    if let version = tag.sourceVersion { sourceVersion = Self.recent(&recentVersion, &interner, version) }
    var device: DeviceString?
    if let rest = tag.deviceRest {
      device = DeviceString(address: tag.deviceAddress, zeros: tag.deviceZeros, rest: recordDeviceRest(rest))
    }
    var unit: String?
    if let bytes = tag.unit { unit = Self.recent(&recentUnit, &interner, bytes) }
    var value: String?
    if let bytes = tag.value { value = String(decoding: bytes, as: UTF8.self) }
    // The Record made in one go: made and then changed, it was copied once and destroyed.
    return Record(
      type: Self.recent(&recentType, &interner, tag.type), sourceName: recordSource(tag.sourceName).0,
      sourceVersion: sourceVersion, deviceString: device, unit: unit, creationDate: tag.creationDate,
      startDate: tag.startDate, endDate: tag.endDate, value: value, extraAttributes: tag.extraAttributes,
      sourceProduct: tag.head.sourceProduct)
  }

  /// What a ``RecordTally`` needs of a `<Record>` start tag, read and checked as ``record(_:)``
  /// reads it, without making the Record: no value, version, creation date or device kept.
  mutating func recordFacts<Attributes: ElementAttributes>(_ attributes: Attributes) throws -> RecordFacts {
    let tag = try recordTag(attributes)
    var unit: String?
    if let bytes = tag.unit { unit = Self.recent(&recentUnit, &interner, bytes) }
    return RecordFacts(
      type: Self.recent(&recentType, &interner, tag.type), unit: unit, sourceName: recordSource(tag.sourceName).0,
      sourceProduct: tag.head.sourceProduct, startDate: tag.startDate, endDate: tag.endDate, hasValue: tag.value != nil,
      extraAttributes: tag.extraAttributes.count)
  }

  private static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

  /// Throws where reading the element would: `MetadataEntry` without its `key` or `value`
  /// (``metadataEntry(_:)``), `InstantaneousBeatsPerMinute` without its `bpm` or `time`; builds nothing.
  mutating func checkRequired<Attributes: ElementAttributes>(
    _ attributes: Attributes, _ first: AttributeName, _ firstName: StaticString, _ second: AttributeName,
    _ secondName: StaticString, of element: StaticString
  ) throws {
    var hasFirst = false
    var hasSecond = false
    for index in 0..<attributes.count {
      let name = names.name(attributes, index)
      if name == first { hasFirst = true } else if name == second { hasSecond = true }
    }
    _ = try require(hasFirst ? () : nil, firstName, of: element)
    _ = try require(hasSecond ? () : nil, secondName, of: element)
  }

  /// A Record's `sourceName`: the interned name and the Apple product it names (the previous
  /// Record's when the bytes repeat).
  @inline(__always)
  private mutating func recordSource(_ bytes: UnsafeBufferPointer<UInt8>) -> (String, String?) {
    if let same = recentSource.match(bytes) { return (same, recentSourceProduct) }
    let text = interner.intern(bytes)
    let product = nameProduct(bytes, name: text)
    recentSource.remember(bytes, text)
    recentSourceProduct = product
    return (text, product)
  }

  /// The interned rest of a Record's device, which ``recordDeviceProduct(address:rest:)`` remembered.
  @inline(__always)
  private mutating func recordDeviceRest(_ rest: UnsafeBufferPointer<UInt8>) -> String {
    if let same = recentDevice.match(rest) { return same }
    let text = interner.intern(rest, limit: 1024)
    recentDevice.remember(rest, text)
    return text
  }

  /// The Apple product a Record's `sourceName` names (``recordSource(_:)``), without the name's
  /// String when the bytes repeat.
  @inline(__always)
  mutating func recordSourceProduct(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    if recentSource.matches(bytes) { return recentSourceProduct }
    return recordSource(bytes).1
  }

  /// The product of a Record's device, cached by the rest of its string, from the device's
  /// address and rest (``DeviceString/split(_:)``).
  @inline(__always)
  mutating func recordDeviceProduct(address: UInt64?, rest: UnsafeBufferPointer<UInt8>) -> DeviceProduct {
    if recentDevice.matches(rest) { return recentDeviceProduct }
    let text = interner.intern(rest, limit: 1024)
    let product = deviceProduct(rest, device: DeviceString(address: address, rest: text))
    recentDevice.remember(rest, text)
    recentDeviceProduct = product
    return product
  }

  /// The source product: the device's Apple product, else one named in the source name, else
  /// the device's model.
  @inline(__always)
  static func product(_ device: DeviceProduct?, _ named: String?) -> String? {
    switch device {
    case .apple(let apple): apple
    case .other(let model): named ?? model
    case nil: named
    }
  }

  /// The reader's rule for a Record's value (``RecordValueRule``), on the tag's bytes: Strings
  /// are made only for a message, or for the rule of CSV from other tools.
  @inline(__always)
  static func checkValue(
    _ rule: RecordValueRule, value: UnsafeBufferPointer<UInt8>?, isNumber: Bool, unit: UnsafeBufferPointer<UInt8>?,
    type: UnsafeBufferPointer<UInt8>
  ) throws {
    switch rule {
    case .numberWithUnit:
      if let unit, !unit.isEmpty, let value, !isNumber {
        throw ExportDataError(
          message: "Record value \"\(text(value))\" is not a number (a quantity with unit \(text(unit)))")
      }
    case .unchecked: break
    case .numberForQuantityTypes: try checkQuantityValue(value.map(text), of: text(type))
    }
  }

  /// The date of a Record attribute, in the export's form or, when the reader allows it, ISO 8601.
  @inline(__always)
  mutating func recordDate<Attributes: ElementAttributes>(
    _ value: ByteView, _ name: StaticString, _ attributes: Attributes
  ) throws -> HealthDate {
    guard attributes.acceptsISO8601Dates else { return try dates.parse(value, name, "Record") }
    return try dates.parseFlexible(value, name, "Record")
  }

  /// ``RecordValueRule/numberForQuantityTypes``: a quantity type's value is there and is a
  /// finite number once spaces and tabs around it are left out.
  private static func checkQuantityValue(_ value: String?, of type: String) throws {
    guard type.hasPrefix("HKQuantityTypeIdentifier") else { return }
    guard let value else { throw ExportDataError(message: "\(type) needs a value") }
    guard let number = Double(value.trimmingSpaces), number.isFinite else {
      throw ExportDataError(message: "the value \"\(value)\" of \(type) is not a number")
    }
  }

  /// True for a decimal number as Health writes them (`67`, `-0.5`, `0.00377794`, `1.23457e+06`).
  static func isNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var digits = 0
    var dots = 0
    var simple = true
    for index in 0..<bytes.count {
      let byte = bytes[index]
      if byte &- 48 < 10 {
        digits += 1
      } else if byte == UInt8(ascii: ".") {
        dots += 1
      } else if byte == UInt8(ascii: "-") && index == 0 {
        continue
      } else if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "e")
        || byte == UInt8(ascii: "E")
      {
        simple = false
      } else {
        return false
      }
    }
    // Plain decimals (nearly all values) need no further check; exponents go through Double.
    return digits > 0 && (simple ? dots <= 1 : Double(String(decoding: bytes, as: UTF8.self)) != nil)
  }

  /// The field's previous String if the bytes repeat, else the interned one (remembered).
  @inline(__always)
  private static func recent(
    _ cache: inout RecentString, _ interner: inout StringInterner, _ bytes: UnsafeBufferPointer<UInt8>
  ) -> String {
    if let same = cache.match(bytes) { return same }
    let text = interner.intern(bytes)
    cache.remember(bytes, text)
    return text
  }

  /// Reads a `<MetadataEntry key="…" value="…"/>` start tag.
  mutating func metadataEntry<Attributes: ElementAttributes>(_ attributes: Attributes) throws -> MetadataEntry {
    var key: String?
    var value: String?
    var extras: [Attribute] = []
    for index in 0..<attributes.count {
      let bytes = attributes.value(at: index)
      switch names.name(attributes, index) {
      case .key where key == nil: key = interner.intern(bytes.buffer)
      case .value where value == nil: value = values.string(bytes.buffer)
      default: extras.append(Attribute(interner.intern(attributes.name(at: index).buffer), bytes.string))
      }
    }
    var entry = MetadataEntry(
      key: try require(key, "key", of: "MetadataEntry"), value: try require(value, "value", of: "MetadataEntry"))
    if !extras.isEmpty { entry.extraAttributes = extras }
    return entry
  }

  /// Reads an `<InstantaneousBeatsPerMinute bpm="…" time="…"/>` start tag as ``parse(_:allowed:element:)``
  /// reads it (the last of a repeated name wins; every other attribute is an extra), without a
  /// ``ParsedAttributes`` (copying and destroying its thirty fields cost more than the beat).
  mutating func beat<Attributes: ElementAttributes>(_ attributes: Attributes) throws -> InstantaneousBeatsPerMinute {
    var bpm: String?
    var time: String?
    var extras: [Attribute] = []
    for index in 0..<attributes.count {
      let bytes = attributes.value(at: index)
      switch names.name(attributes, index) {
      case .bpm: bpm = bytes.string
      case .time: time = bytes.string
      default: extras.append(Attribute(interner.intern(attributes.name(at: index).buffer), bytes.string))
      }
    }
    var beat = InstantaneousBeatsPerMinute(
      bpm: try require(bpm, "bpm", of: "InstantaneousBeatsPerMinute"),
      time: try require(time, "time", of: "InstantaneousBeatsPerMinute"))
    beat.extraAttributes = extras
    return beat
  }

  /// All attributes in order, for generic elements.
  mutating func parseGeneric<Attributes: ElementAttributes>(_ attributes: Attributes) -> [Attribute] {
    var result: [Attribute] = []
    result.reserveCapacity(attributes.count)
    for index in 0..<attributes.count {
      result.append(
        Attribute(
          interner.intern(attributes.name(at: index).buffer), values.string(attributes.value(at: index).buffer)))
    }
    return result
  }

  static func date(_ value: ByteView, _ name: StaticString, _ element: String) throws -> HealthDate {
    if let date = HealthDate(utf8: UnsafeRawBufferPointer(value.buffer)) { return date }
    throw ExportDataError(
      message: "\(element) \(name) \"\(value.string)\" is not a date of the form YYYY-MM-DD HH:MM:SS ±HHMM")
  }

  /// The product of a device, cached by the device text after its memory address (the address
  /// differs on nearly every record; the rest is constant per device).
  private mutating func deviceProduct(_ rest: UnsafeBufferPointer<UInt8>, device: DeviceString) -> DeviceProduct {
    let key = UnsafeRawBufferPointer(rest)
    let hash = ByteKeyedTable<DeviceProduct>.hash(key)
    if let cached = deviceProducts.lookup(key, hash: hash) { return cached }
    let info = DeviceInfo(parsing: device.description)
    let product: DeviceProduct =
      SourceProduct.appleProduct(of: info).map { .apple($0) }
      ?? .other(model: info?.model.flatMap { $0.isEmpty ? nil : $0 })
    deviceProducts.insert(key, hash: hash, value: product)
    return product
  }

  /// The Apple product named in a source name, cached per name.
  private mutating func nameProduct(_ bytes: UnsafeBufferPointer<UInt8>, name: String) -> String? {
    let key = UnsafeRawBufferPointer(bytes)
    let hash = ByteKeyedTable<String?>.hash(key)
    if let cached = nameProducts.lookup(key, hash: hash) { return cached }
    let product = SourceProduct.appleProduct(inName: name)
    // A name of megabytes (a CSV cell) is not kept as a key: it would stay for the whole read.
    if bytes.count <= RecentString.longestRemembered { nameProducts.insert(key, hash: hash, value: product) }
    return product
  }
}

/// Parses export dates, reusing the calendar day of the previous one: a Record's three dates
/// and consecutive Records mostly share their `YYYY-MM-DD`.
struct DateParser {
  private var lastDay: (UInt64, UInt16) = (0, 0)
  private var lastDays = 0
  /// The previous date's 25 bytes and value: a Record's end is often its start, and a day's
  /// Records share their creation date. (Zero bytes match no date's text.)
  private var lastText: (UInt64, UInt64, UInt64, UInt8) = (0, 0, 0, 0)
  private var lastDate = HealthDate(secondsSince1970: 0, offsetSeconds: 0)

  mutating func parse(_ value: ByteView, _ name: StaticString, _ element: StaticString) throws -> HealthDate {
    if let date = exportForm(UnsafeRawBufferPointer(value.buffer)) { return date }
    throw Self.notADate(value, name, element)
  }

  @inline(__always)
  private mutating func exportForm(_ bytes: UnsafeRawBufferPointer) -> HealthDate? {
    guard bytes.count == 25 else { return nil }
    let text = (
      bytes.loadUnaligned(as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
      bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes[24]
    )
    if text == lastText { return lastDate }
    let day = (text.0, UInt16(truncatingIfNeeded: text.1))
    if day == lastDay, let date = HealthDate(utf8: bytes, daysSince1970: lastDays) {
      lastText = text
      lastDate = date
      return date
    }
    guard let date = HealthDate(utf8: bytes) else { return nil }
    lastDay = day
    lastDays = HealthDate.floorDiv(date.secondsSince1970 + Int64(date.offsetSeconds), 86_400)
    lastText = text
    lastDate = date
    return date
  }

  /// ``parse(_:_:_:)``, or else ISO 8601 and the other forms of ``HealthDate/flexible(_:)-(UnsafeRawBufferPointer)``.
  mutating func parseFlexible(_ value: ByteView, _ name: StaticString, _ element: StaticString) throws
    -> HealthDate
  {
    let bytes = UnsafeRawBufferPointer(value.buffer)
    if let date = exportForm(bytes) ?? HealthDate.flexible(bytes) { return date }
    throw Self.notADate(value, name, element)
  }

  private static func notADate(_ value: ByteView, _ name: StaticString, _ element: StaticString) -> ExportDataError {
    ExportDataError(
      message: "\(element) \(name) \"\(value.string)\" is not a date of the form YYYY-MM-DD HH:MM:SS ±HHMM")
  }
}

extension String {
  /// The string without leading and trailing spaces and tabs.
  var trimmingSpaces: Substring {
    var text = Substring(self)
    while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
    while let last = text.last, last == " " || last == "\t" { text.removeLast() }
    return text
  }
}

extension Record {
  /// Every field at once (the builder's hot path: no copy of a Record made and then changed).
  init(
    type: String, sourceName: String, sourceVersion: String?, deviceString: DeviceString?, unit: String?,
    creationDate: HealthDate?, startDate: HealthDate, endDate: HealthDate, value: String?,
    extraAttributes: [Attribute], sourceProduct: String?
  ) {
    self.type = type
    self.sourceName = sourceName
    self.sourceVersion = sourceVersion
    self.deviceString = deviceString
    self.unit = unit
    self.creationDate = creationDate
    self.startDate = startDate
    self.endDate = endDate
    self.value = value
    self.extraAttributes = extraAttributes
    self.children = []
    self.sourceProduct = sourceProduct
  }
}
