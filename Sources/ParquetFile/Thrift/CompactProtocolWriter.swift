/// Thrift's compact protocol, the encoding of Parquet's footer and page headers: only the writing half, and
/// only the types parquet.thrift's structs use (bool, i16, i32, i64, binary, list, struct).
struct CompactProtocolWriter {
  /// The compact protocol's type nibbles.
  enum FieldType: UInt8 {
    case booleanTrue = 1
    case booleanFalse = 2
    case i16 = 4
    case i32 = 5
    case i64 = 6
    case binary = 8
    case list = 9
    case `struct` = 12
  }

  private(set) var bytes: [UInt8] = []
  /// Field ids are written as deltas from the previous field of the same struct.
  private var lastFieldID: Int16 = 0
  private var enclosingFieldIDs: [Int16] = []

  init() { bytes.reserveCapacity(256) }

  mutating func writeI16(_ id: Int16, _ value: Int16) {
    fieldHeader(id, .i16)
    varint(zigzag(Int64(value)))
  }

  mutating func writeI32(_ id: Int16, _ value: Int32) {
    fieldHeader(id, .i32)
    varint(zigzag(Int64(value)))
  }

  mutating func writeI64(_ id: Int16, _ value: Int64) {
    fieldHeader(id, .i64)
    varint(zigzag(value))
  }

  /// A bool field carries its value in the type nibble.
  mutating func writeBool(_ id: Int16, _ value: Bool) {
    fieldHeader(id, value ? .booleanTrue : .booleanFalse)
  }

  mutating func writeBinary(_ id: Int16, _ value: [UInt8]) {
    fieldHeader(id, .binary)
    varint(UInt64(value.count))
    bytes.append(contentsOf: value)
  }

  mutating func writeString(_ id: Int16, _ value: String) { writeBinary(id, Array(value.utf8)) }

  /// A struct-valued field: `body` writes the inner fields; the stop byte is added here.
  mutating func writeStruct(_ id: Int16, _ body: (inout CompactProtocolWriter) -> Void) {
    fieldHeader(id, .struct)
    writeStructBody(body)
  }

  /// A struct without field header: the top-level struct or a list element.
  mutating func writeStructBody(_ body: (inout CompactProtocolWriter) -> Void) {
    enclosingFieldIDs.append(lastFieldID)
    lastFieldID = 0
    body(&self)
    bytes.append(0)  // stop
    lastFieldID = enclosingFieldIDs.removeLast()
  }

  mutating func writeI32List(_ id: Int16, _ values: [Int32]) {
    listHeader(id, .i32, count: values.count)
    for value in values { varint(zigzag(Int64(value))) }
  }

  mutating func writeStringList(_ id: Int16, _ values: [String]) {
    listHeader(id, .binary, count: values.count)
    for value in values {
      varint(UInt64(value.utf8.count))
      bytes.append(contentsOf: value.utf8)
    }
  }

  /// A list of structs; `element` writes the fields of element `i`.
  mutating func writeStructList(_ id: Int16, count: Int, _ element: (inout CompactProtocolWriter, Int) -> Void) {
    listHeader(id, .struct, count: count)
    for index in 0..<count { writeStructBody { element(&$0, index) } }
  }

  private mutating func listHeader(_ id: Int16, _ elementType: FieldType, count: Int) {
    fieldHeader(id, .list)
    if count < 15 {
      bytes.append(UInt8(count) << 4 | elementType.rawValue)
    } else {
      bytes.append(0xF0 | elementType.rawValue)
      varint(UInt64(count))
    }
  }

  private mutating func fieldHeader(_ id: Int16, _ type: FieldType) {
    let delta = Int(id) - Int(lastFieldID)
    if delta > 0 && delta <= 15 {
      bytes.append(UInt8(delta) << 4 | type.rawValue)
    } else {
      bytes.append(type.rawValue)
      varint(zigzag(Int64(id)))
    }
    lastFieldID = id
  }

  private func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

  /// ULEB128.
  private mutating func varint(_ value: UInt64) {
    var rest = value
    while rest >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    bytes.append(UInt8(rest))
  }
}
