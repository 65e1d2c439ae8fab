/// The reading of a `<Record>` start tag, which every path makes its Record of
/// (``AttributeParser/record(_:)``, ``AttributeParser/recordFacts(_:)``) and a parallel read hands
/// to the writers that encode from it (``RecordTag``).
extension AttributeParser {
  /// Reads a `<Record>` start tag as ``record(_:)`` reads it, throwing exactly where it throws,
  /// without making the Record.
  mutating func recordTag<Attributes: ElementAttributes>(_ attributes: Attributes) throws -> RecordTag {
    var type: UnsafeBufferPointer<UInt8>?
    var sourceName: UnsafeBufferPointer<UInt8>?
    var sourceVersion: UnsafeBufferPointer<UInt8>?
    var deviceAddress: UInt64?
    var deviceZeros: UInt8 = 0
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
        let (address, zeros, restStart) = DeviceString.split(bytes.buffer)
        let rest = UnsafeBufferPointer(rebasing: bytes.buffer[restStart...])
        deviceAddress = address
        deviceZeros = zeros
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
    try Self.checkValue(
      attributes.recordValueRule, value: value, isNumber: valueIsNumber, unit: unit, type: recordType)
    let head = RecordHead(
      type: recordType, sourceName: recordSource, startDate: start,
      sourceProduct: Self.product(deviceProduct, nameProduct))
    return RecordTag(
      head: head, sourceVersion: sourceVersion, deviceAddress: deviceAddress, deviceZeros: deviceZeros,
      deviceRest: deviceRest, unit: unit, creationDate: creationDate, endDate: end, value: value,
      extraAttributes: extras)
  }
}
