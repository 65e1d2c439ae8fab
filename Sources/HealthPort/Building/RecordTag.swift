/// A top-level `<Record>` start tag as read and checked, without the ``Record`` made of it: its
/// texts are the bytes the reader handed over, valid only during the start-tag callback.
///
/// For the writers that encode a Record's row on the parsing threads (``RangeWorker/startRecord(_:)``):
/// what they write of a Record depends only on these bytes, its dates and its children, so the
/// Record's Strings (and their reference counts, copies and releases, a third of the Swift side
/// of a parsing thread) are never made. ``AttributeParser/recordTag(_:)`` checks the tag exactly
/// as ``AttributeParser/record(_:)`` does; each field is the text that `record(_:)` would have
/// made the Record's field of.
struct RecordTag {
  var type: UnsafeBufferPointer<UInt8>
  var sourceName: UnsafeBufferPointer<UInt8>
  var sourceVersion: UnsafeBufferPointer<UInt8>?
  /// The device's address, when its string has the canonical head (``DeviceString/split(_:)``).
  var deviceAddress: UInt64?
  /// The device string after its address (all of it without the canonical head); nil: no device.
  var deviceRest: UnsafeBufferPointer<UInt8>?
  var unit: UnsafeBufferPointer<UInt8>?
  var creationDate: HealthDate?
  var startDate: HealthDate
  var endDate: HealthDate
  var value: UnsafeBufferPointer<UInt8>?
  var extraAttributes: [Attribute]
  /// ``Record/sourceProduct``.
  var sourceProduct: String?
}

extension AttributeParser {
  /// Reads a `<Record>` start tag as ``record(_:)`` reads it, throwing exactly where it throws,
  /// without making the Record (``RecordTag``).
  mutating func recordTag<Attributes: ElementAttributes>(_ attributes: Attributes) throws -> RecordTag {
    var type: UnsafeBufferPointer<UInt8>?
    var sourceName: UnsafeBufferPointer<UInt8>?
    var sourceVersion: UnsafeBufferPointer<UInt8>?
    var deviceAddress: UInt64?
    var deviceRest: UnsafeBufferPointer<UInt8>?
    var unit: UnsafeBufferPointer<UInt8>?
    var creationDate: HealthDate?
    var startDate: HealthDate?
    var endDate: HealthDate?
    var value: UnsafeBufferPointer<UInt8>?
    var extras: [Attribute] = []
    var deviceProduct: DeviceProduct?
    var nameProduct: String?
    var valueIsNumber = true
    for index in 0..<attributes.count {
      let bytes = attributes.value(at: index)
      let id = names.name(attributes, index)
      guard id != .unknown, recordMask & id.bit != 0 else {
        extras.append(Attribute(interner.intern(attributes.name(at: index).buffer), bytes.string))
        continue
      }
      switch id {
      case .type: type = bytes.buffer
      case .sourceName:
        sourceName = bytes.buffer
        nameProduct = recordSourceProduct(bytes.buffer)
      case .sourceVersion: sourceVersion = bytes.buffer
      case .device:
        let (address, restStart) = DeviceString.split(bytes.buffer)
        let rest = UnsafeBufferPointer(rebasing: bytes.buffer[restStart...])
        deviceAddress = address
        deviceRest = rest
        deviceProduct = recordDeviceProduct(address: address, rest: rest)
      case .unit: unit = bytes.buffer
      case .creationDate: creationDate = try recordDate(bytes, "creationDate", attributes)
      case .startDate: startDate = try recordDate(bytes, "startDate", attributes)
      case .endDate: endDate = try recordDate(bytes, "endDate", attributes)
      case .value:
        value = bytes.buffer
        if attributes.recordValueRule == .numberWithUnit { valueIsNumber = Self.isNumber(bytes.buffer) }
      default: break
      }
    }
    let recordType = try require(type, "type", of: "Record")
    let recordSource = try require(sourceName, "sourceName", of: "Record")
    let start = try require(startDate, "startDate", of: "Record")
    let end = try require(endDate, "endDate", of: "Record")
    if attributes.recordValueRule == .numberWithUnit {
      // ``checkValue``'s rule, on the bytes: Strings only for the message.
      if let unit, !unit.isEmpty, let value, !valueIsNumber {
        throw ExportDataError(
          message: "Record value \"\(Self.text(value))\" is not a number (a quantity with unit \(Self.text(unit)))")
      }
    } else {
      try Self.checkValue(
        attributes.recordValueRule, present: value != nil, isNumber: valueIsNumber, unit: unit.map(Self.text),
        type: Self.text(recordType)
      ) { value.map(Self.text) }
    }
    return RecordTag(
      type: recordType, sourceName: recordSource, sourceVersion: sourceVersion, deviceAddress: deviceAddress,
      deviceRest: deviceRest, unit: unit, creationDate: creationDate, startDate: start, endDate: end, value: value,
      extraAttributes: extras, sourceProduct: Self.product(deviceProduct, nameProduct))
  }

  private static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
}
