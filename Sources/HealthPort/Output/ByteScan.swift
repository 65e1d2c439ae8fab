/// The writers' first look at a field, eight bytes at a time: does any byte need escaping or
/// quoting? The XML, JSON and CSV escapers each ask it with their own bytes, and copy the field in
/// one go when the answer is no (nearly always).
///
/// The word tests are the "has a zero byte" bit trick, on the word XORed with the byte sought,
/// and its "has a byte less than n" form for the control characters; both are exact.
enum ByteScan {
  @inline(__always) static var ones: UInt64 { 0x0101_0101_0101_0101 }
  @inline(__always) static var highs: UInt64 { 0x8080_8080_8080_8080 }

  /// True when one of the eight bytes of `word` is `byte`.
  @inline(__always)
  static func has(_ byte: UInt8, in word: UInt64) -> Bool {
    let x = word ^ (ones &* UInt64(byte))
    return (x &- ones) & ~x & highs != 0
  }

  /// True when one of the eight bytes of `word` is a control character (below 0x20).
  @inline(__always)
  static func hasControl(_ word: UInt64) -> Bool { (word &- ones &* 0x20) & ~word & highs != 0 }

  /// True when a byte of `bytes` is one that `byte` accepts: eight at a time through `word`,
  /// which must accept a word exactly when `byte` accepts one of its bytes, then the rest.
  @inline(__always)
  static func contains(
    _ bytes: UnsafeBufferPointer<UInt8>, word: (UInt64) -> Bool, byte: (UInt8) -> Bool
  ) -> Bool {
    let count = bytes.count
    guard let base = bytes.baseAddress else { return false }
    var index = 0
    while index + 8 <= count {
      if word(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) { return true }
      index += 8
    }
    while index < count {
      if byte(base[index]) { return true }
      index += 1
    }
    return false
  }
}
