/// Finds the control characters that XML 1.0 forbids: `\x00`–`\x08`, `\x0B`, `\x0C`, `\x0E`–`\x1F`.
enum ControlCharacters {
  @inline(__always)
  static func isForbidden(_ byte: UInt8) -> Bool {
    byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D
  }

  /// The index of the first forbidden byte, scanning sixteen bytes at a time: a block is only looked
  /// at byte by byte when it holds a byte below 0x20 other than tab, line feed and return.
  static func firstForbidden(in bytes: UnsafeRawBufferPointer) -> Int? {
    guard let base = bytes.baseAddress else { return nil }
    let count = bytes.count
    var index = 0
    let space = SIMD16<UInt8>(repeating: 0x20)
    let tab = SIMD16<UInt8>(repeating: 0x09)
    let lineFeed = SIMD16<UInt8>(repeating: 0x0A)
    let carriageReturn = SIMD16<UInt8>(repeating: 0x0D)
    while index + 16 <= count {
      let block = base.loadUnaligned(fromByteOffset: index, as: SIMD16<UInt8>.self)
      let control = block .< space
      if any(control), any(control .& .!(block .== tab .| block .== lineFeed .| block .== carriageReturn)) {
        for offset in index..<(index + 16) where isForbidden(bytes[offset]) { return offset }
      }
      index += 16
    }
    while index < count {
      if isForbidden(bytes[index]) { return index }
      index += 1
    }
    return nil
  }
}
