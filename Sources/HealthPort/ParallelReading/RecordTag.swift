/// A top-level `<Record>` start tag as read and checked, without the ``Record`` made of it: its
/// texts are the bytes the reader handed over, valid only during the start-tag callback.
///
/// For the writers that encode a Record's row on the parsing threads (``RangeWorker/startRecord(_:)``):
/// what they write of a Record depends only on these bytes, its dates and its children, so the
/// Record's Strings, and their reference counts, copies and releases, are never made. ``AttributeParser/recordTag(_:)`` reads and checks every
/// Record's start tag (``AttributeParser/record(_:)`` makes its Record from the tag); each field
/// is the text the Record's field is made of.
struct RecordTag {
  /// What a pipeline stage decides on (``RangeStagePart``): type, source name and product, start.
  var head: RecordHead
  var sourceVersion: UnsafeBufferPointer<UInt8>?
  /// The device's address, when its string has the canonical head (``DeviceString/split(_:)``).
  var deviceAddress: UInt64?
  /// The address's leading zeros (``DeviceString/addressZeros``).
  var deviceZeros: UInt8 = 0
  /// The device string after its address (all of it without the canonical head); nil: no device.
  var deviceRest: UnsafeBufferPointer<UInt8>?
  var unit: UnsafeBufferPointer<UInt8>?
  var creationDate: HealthDate?
  var endDate: HealthDate
  var value: UnsafeBufferPointer<UInt8>?
  var extraAttributes: [Attribute]

  var type: UnsafeBufferPointer<UInt8> { head.type }
  var sourceName: UnsafeBufferPointer<UInt8> { head.sourceName }
  var startDate: HealthDate { head.startDate }
}
