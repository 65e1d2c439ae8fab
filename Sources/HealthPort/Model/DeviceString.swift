#if canImport(Glibc)
  import Glibc
#endif

/// A `device` attribute stored compactly: the `0x…` memory address as a number and the rest of
/// the string shared between all records of the same device.
///
/// `<<HKDevice: 0x282e3a260>, name:iPhone, …>` differs from record to record only in the address,
/// so the reader keeps one String per device and an integer per record, and `text` rebuilds
/// the exact original. An address written with leading zeros (`0x0282e3a260`) keeps their count
/// in ``addressZeros``, so its records share the rest too. Strings not in that canonical form are
/// kept whole in `rest`.
package struct DeviceString: Hashable, Sendable, CustomStringConvertible {
  /// The address, when the string has the canonical `<<HKDevice: 0x…` head.
  package var address: UInt64?
  /// How many `0` digits the address was written with before its shortest hex form (0 nearly
  /// always). Declared after the address, so it takes the padding there and the struct stays 32 bytes.
  package var addressZeros: UInt8 = 0
  /// What follows the address (everything, when `address` is nil).
  package var rest: String

  /// The canonical head, `<<HKDevice: 0x`: 14 bytes.
  static let headText: StaticString = "<<HKDevice: 0x"
  static let headCount = 14
  /// Its bytes 0–7 and 6–13 as little-endian words: `split` compares the head as two loads
  /// rather than through a shared array (which both parsing threads would retain).
  static let headFirstWord: UInt64 = 0x6976_6544_4B48_3C3C  // "<<HKDevi"
  static let headSecondWord: UInt64 = 0x7830_203A_6563_6976  // "vice: 0x"

  package init(_ text: String) {
    var text = text
    self = text.withUTF8 { DeviceString(bytes: $0, rest: { String(decoding: $0, as: UTF8.self) }) }
  }

  init(bytes: UnsafeBufferPointer<UInt8>, rest makeRest: (UnsafeBufferPointer<UInt8>) -> String) {
    let (address, zeros, restStart) = Self.split(bytes)
    self.address = address
    addressZeros = zeros
    rest = makeRest(UnsafeBufferPointer(rebasing: bytes[restStart...]))
  }

  package init(address: UInt64?, zeros: UInt8 = 0, rest: String) {
    self.address = address
    addressZeros = address == nil ? 0 : zeros
    self.rest = rest
  }

  /// The address, the count of its leading zeros and where the rest starts, for the canonical
  /// form: `<<HKDevice: 0x`, 1–16 lowercase hex digits, then `>`. Otherwise (nil, 0, 0).
  static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> (address: UInt64?, zeros: UInt8, restStart: Int) {
    let headCount = Self.headCount
    guard bytes.count > headCount + 1, let base = bytes.baseAddress else { return (nil, 0, 0) }
    let raw = UnsafeRawPointer(base)
    guard raw.loadUnaligned(as: UInt64.self).littleEndian == Self.headFirstWord,
      raw.loadUnaligned(fromByteOffset: 6, as: UInt64.self).littleEndian == Self.headSecondWord
    else { return (nil, 0, 0) }
    var index = headCount
    var value: UInt64 = 0
    let end = min(bytes.count, headCount + 16)
    while index < end {
      let byte = base[index]
      // '0'–'9' and 'a'–'f' only: `byte | 0x20` would also take 'A'–'F', which the export never writes.
      let decimal = byte &- UInt8(ascii: "0")
      let letter = byte &- UInt8(ascii: "a")
      let digit: UInt8
      if decimal < 10 {
        digit = decimal
      } else if letter < 6 {
        digit = letter &+ 10
      } else {
        break
      }
      value = value << 4 | UInt64(digit)
      index += 1
    }
    let digits = index - headCount
    guard digits > 0, index < bytes.count, base[index] == UInt8(ascii: ">") else { return (nil, 0, 0) }
    return (value, UInt8(truncatingIfNeeded: digits - Self.hexDigitCount(value)), index)
  }

  /// The digits of `value` in its shortest hex form (1 for zero).
  @inline(__always)
  static func hexDigitCount(_ value: UInt64) -> Int { max(1, (64 - value.leadingZeroBitCount + 3) / 4) }

  /// Appends the address as written: `zeros` leading zeros, then its shortest hex form.
  @inline(__always)
  static func appendHex<Out: ByteAppender & ~Copyable>(_ address: UInt64, zeros: UInt8, to out: inout Out) {
    if zeros != 0 {
      for _ in 0..<zeros { out.append(UInt8(ascii: "0")) }
    }
    appendHex(address, to: &out)
  }

  /// The string exactly as written.
  package var description: String {
    var bytes: [UInt8] = []
    append(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the string exactly as written.
  package func append(to bytes: inout [UInt8]) {
    if let address {
      Self.headText.withUTF8Buffer { bytes.append(contentsOf: $0) }
      Self.appendHex(address, zeros: addressZeros, to: &bytes)
    }
    bytes.append(contentsOf: rest.utf8)
  }

}
