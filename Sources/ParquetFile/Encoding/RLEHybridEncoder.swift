/// Parquet's RLE / bit-packing hybrid (Encodings.md), for definition levels and dictionary indices.
///
/// A run of eight or more equal values becomes an RLE run (`count << 1`, then the value in
/// `ceil(bitWidth / 8)` bytes); everything else goes into bit-packed runs of groups of eight values
/// (`groups << 1 | 1`, then `bitWidth` bytes per group, least significant bit first). The last group
/// is padded with zeros, which readers ignore because the page states its value count.
enum RLEHybridEncoder {
  static func encode<Values: RandomAccessCollection>(
    _ values: Values, bitWidth: Int, into output: inout [UInt8]
  ) where Values.Element: FixedWidthInteger, Values.Index == Int {
    precondition(bitWidth >= 1 && bitWidth <= 32)
    let end = values.endIndex
    var index = values.startIndex
    while index < end {
      let run = runLength(values, from: index)
      if run >= 8 {
        appendVarint(UInt64(run) << 1, to: &output)
        let value = UInt64(truncatingIfNeeded: values[index])
        for byte in 0..<((bitWidth + 7) / 8) { output.append(UInt8(truncatingIfNeeded: value >> (8 * byte))) }
        index += run
        continue
      }
      // Bit-pack groups of eight until a long run starts at a group boundary or the values end.
      var groupsEnd = index
      repeat {
        groupsEnd = Swift.min(groupsEnd + 8, end)
      } while groupsEnd < end && runLength(values, from: groupsEnd) < 8
      let groups = (groupsEnd - index + 7) / 8
      appendVarint(UInt64(groups) << 1 | 1, to: &output)
      bitPack(values, from: index, to: groupsEnd, groups: groups, bitWidth: bitWidth, into: &output)
      index = groupsEnd
    }
  }

  /// How many values equal `values[start]` follow from `start`, counted up to eight is enough to decide,
  /// but the whole run is counted so that an RLE run takes all of it.
  @inline(__always)
  private static func runLength<Values: RandomAccessCollection>(_ values: Values, from start: Int) -> Int
  where Values.Element: FixedWidthInteger, Values.Index == Int {
    let first = values[start]
    var next = start + 1
    while next < values.endIndex && values[next] == first { next += 1 }
    return next - start
  }

  private static func bitPack<Values: RandomAccessCollection>(
    _ values: Values, from start: Int, to end: Int, groups: Int, bitWidth: Int, into output: inout [UInt8]
  ) where Values.Element: FixedWidthInteger, Values.Index == Int {
    var accumulator: UInt64 = 0
    var bits = 0
    let mask: UInt64 = (1 << UInt64(bitWidth)) - 1
    for position in start..<(start + groups * 8) {
      let value = position < end ? UInt64(truncatingIfNeeded: values[position]) & mask : 0
      accumulator |= value << UInt64(bits)
      bits += bitWidth
      while bits >= 8 {
        output.append(UInt8(truncatingIfNeeded: accumulator))
        accumulator >>= 8
        bits -= 8
      }
    }
    // Groups of eight values always fill whole bytes, so nothing is left over.
  }

  /// ULEB128, as the run headers use.
  static func appendVarint(_ value: UInt64, to output: inout [UInt8]) {
    var rest = value
    while rest >= 0x80 {
      output.append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    output.append(UInt8(rest))
  }

  /// The bit width that holds every index below `count` (at least 1).
  static func bitWidth(forIndicesBelow count: Int) -> Int {
    count <= 2 ? 1 : Int.bitWidth - (count - 1).leadingZeroBitCount
  }
}
