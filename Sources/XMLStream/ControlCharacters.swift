/// Finds the control characters that XML 1.0 forbids: `\x00`–`\x08`, `\x0B`, `\x0C`, `\x0E`–`\x1F`.
enum ControlCharacters {
  @inline(__always)
  static func isForbidden(_ byte: UInt8) -> Bool {
    byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D
  }

  /// The index of the first forbidden byte, scanning eight bytes at a time: a word is only
  /// looked at byte by byte when it holds some byte below 0x20 (usually a line feed).
  static func firstForbidden(in bytes: UnsafeRawBufferPointer) -> Int? {
    guard let base = bytes.baseAddress else { return nil }
    let count = bytes.count
    var index = 0
    let ones: UInt64 = 0x2020_2020_2020_2020
    let highs: UInt64 = 0x8080_8080_8080_8080
    while index + 8 <= count {
      let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
      if (word &- ones) & ~word & highs != 0 {
        for offset in index..<(index + 8) where isForbidden(bytes[offset]) { return offset }
      }
      index += 8
    }
    while index < count {
      if isForbidden(bytes[index]) { return index }
      index += 1
    }
    return nil
  }
}
