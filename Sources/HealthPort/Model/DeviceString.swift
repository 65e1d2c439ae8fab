#if canImport(Glibc)
  import Glibc
#endif

/// A `device` attribute stored compactly: the `0x…` memory address as a number and the rest of
/// the string shared between all records of the same device.
///
/// `<<HKDevice: 0x282e3a260>, name:iPhone, …>` differs from record to record only in the address,
/// so the reader keeps one String per device and an integer per record, and ``text`` rebuilds
/// the exact original. Strings not in that canonical form are kept whole in `rest`.
public struct DeviceString: Hashable, Sendable, CustomStringConvertible {
  /// The address, when the string has the canonical `<<HKDevice: 0x…` head.
  public var address: UInt64?
  /// What follows the address (everything, when `address` is nil).
  public var rest: String

  static let head = Array("<<HKDevice: 0x".utf8)

  public init(_ text: String) {
    var text = text
    self = text.withUTF8 { DeviceString(bytes: $0, rest: { String(decoding: $0, as: UTF8.self) }) }
  }

  init(bytes: UnsafeBufferPointer<UInt8>, rest makeRest: (UnsafeBufferPointer<UInt8>) -> String) {
    let (address, restStart) = Self.split(bytes)
    self.address = address
    rest = makeRest(UnsafeBufferPointer(rebasing: bytes[restStart...]))
  }

  public init(address: UInt64?, rest: String) {
    self.address = address
    self.rest = rest
  }

  /// The address and where the rest starts, for the canonical form: `<<HKDevice: 0x`, 1–16
  /// lowercase hex digits without a leading zero, then `>`. Otherwise (nil, 0).
  static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64?, Int) {
    let head = Self.head
    guard bytes.count > head.count + 1,
      head.withUnsafeBytes({ memcmp($0.baseAddress!, bytes.baseAddress!, head.count) }) == 0
    else { return (nil, 0) }
    var index = head.count
    var value: UInt64 = 0
    while index < bytes.count, index - head.count < 16 {
      let byte = bytes[index]
      let digit: UInt64
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - 48)
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(byte - 87)
      default: digit = 16
      }
      if digit == 16 { break }
      value = value << 4 | digit
      index += 1
    }
    let digits = index - head.count
    guard digits > 0, index < bytes.count, bytes[index] == UInt8(ascii: ">"),
      digits == 1 || bytes[head.count] != UInt8(ascii: "0")
    else { return (nil, 0) }
    return (value, index)
  }

  /// The string exactly as written.
  public var description: String {
    var bytes: [UInt8] = []
    append(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the string exactly as written.
  public func append(to bytes: inout [UInt8]) {
    if let address {
      bytes.append(contentsOf: Self.head)
      Self.appendHex(address, to: &bytes)
    }
    bytes.append(contentsOf: rest.utf8)
  }

}
