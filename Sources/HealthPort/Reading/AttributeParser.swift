import XMLStream

/// An input problem found while building the model (a date that does not parse, a missing
/// required attribute). The XML layer adds the file, line and column.
struct ExportDataError: Error, CustomStringConvertible {
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
  /// Bytes of the `device` value with its memory address removed, plus the source name: the key
  /// of the product cache.
  var productKey: [UInt8] = []

  func require<T>(_ value: T?, _ name: String, of element: String) throws -> T {
    guard let value else {
      throw ExportDataError(message: "\(element) is missing its required attribute '\(name)'")
    }
    return value
  }
}

/// Reads attributes into ``ParsedAttributes`` with interning and date parsing.
struct AttributeParser {
  var interner = StringInterner()

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

  static func mask(_ names: AttributeName...) -> UInt32 { names.reduce(0) { $0 | $1.bit } }

  mutating func parse(_ attributes: XMLAttributes, allowed: UInt32, element: String) throws -> ParsedAttributes {
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
      case .value: parsed.value = interner.intern(value.buffer)
      case .sourceName: parsed.sourceName = interner.intern(value.buffer)
      case .sourceVersion: parsed.sourceVersion = interner.intern(value.buffer)
      case .device:
        parsed.device = value.string
        Self.appendMaskedDevice(value.buffer, to: &parsed.productKey)
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

  /// All attributes in order, for generic elements.
  mutating func parseGeneric(_ attributes: XMLAttributes) -> [Attribute] {
    var result: [Attribute] = []
    result.reserveCapacity(attributes.count)
    for index in 0..<attributes.count {
      result.append(
        Attribute(
          interner.intern(attributes.name(at: index).buffer), interner.intern(attributes.value(at: index).buffer)))
    }
    return result
  }

  static func date(_ value: XMLBytes, _ name: String, _ element: String) throws -> HealthDate {
    if let date = HealthDate(utf8: UnsafeRawBufferPointer(value.buffer)) { return date }
    throw ExportDataError(
      message: "\(element) \(name) \"\(value.string)\" is not a date of the form YYYY-MM-DD HH:MM:SS ±HHMM")
  }

  /// Copies a device string without the `0x…` address that follows `HKDevice: `.
  static func appendMaskedDevice(_ bytes: UnsafeBufferPointer<UInt8>, to key: inout [UInt8]) {
    var index = 0
    let count = bytes.count
    while index < count {
      let byte = bytes[index]
      key.append(byte)
      index += 1
      if byte == UInt8(ascii: "x"), index >= 2, bytes[index - 2] == UInt8(ascii: "0") {
        while index < count, Self.isHex(bytes[index]) { index += 1 }
      }
    }
  }

  @inline(__always)
  static func isHex(_ byte: UInt8) -> Bool {
    (48...57).contains(byte) || (97...102).contains(byte) || (65...70).contains(byte)
  }
}
