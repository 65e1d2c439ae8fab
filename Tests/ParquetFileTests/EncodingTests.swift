import Testing

@testable import ParquetFile

/// Byte-exact checks of the encoders against examples worked by hand from parquet-format's
/// `Encodings.md` and Thrift's compact protocol specification.
@Suite("Thrift compact protocol and the RLE / bit-packing hybrid")
struct EncodingTests {
  @Test("fields: short deltas in one byte, long ones with a zigzag id; bools in the type nibble; stop byte")
  func compactFields() {
    var writer = CompactProtocolWriter()
    writer.writeStructBody { writer in
      writer.writeI32(1, 1)  // delta 1, i32 (5); zigzag(1) = 2
      writer.writeString(4, "a")  // delta 3, binary (8); length 1
      writer.writeI64(20, -1)  // delta 16: long form, i64 (6), zigzag(20) = 40; zigzag(-1) = 1
      writer.writeBool(21, true)  // delta 1, BOOLEAN_TRUE (1)
      writer.writeI16(22, -300)  // delta 1, i16 (4); zigzag(-300) = 599 = 0xD7 0x04
    }
    #expect(writer.bytes == [0x15, 0x02, 0x38, 0x01, 0x61, 0x06, 0x28, 0x01, 0x11, 0x14, 0xD7, 0x04, 0x00])
  }

  @Test("nested structs restart field deltas and restore the outer one")
  func compactNesting() {
    var writer = CompactProtocolWriter()
    writer.writeStructBody { writer in
      writer.writeI32(2, 0)
      writer.writeStruct(5) { $0.writeI32(1, 3) }
      writer.writeI32(6, 0)
    }
    // 0x25 00 | struct field delta 3 (0x3C) | inner 0x15 06, stop | delta 1 i32 0x15 00 | stop
    #expect(writer.bytes == [0x25, 0x00, 0x3C, 0x15, 0x06, 0x00, 0x15, 0x00, 0x00])
  }

  @Test("list headers: size in the high nibble below 15, else 0xF and a varint size")
  func compactLists() {
    var short = CompactProtocolWriter()
    short.writeStructBody { $0.writeI32List(1, [0, 3, 8]) }
    #expect(short.bytes == [0x19, 0x35, 0x00, 0x06, 0x10, 0x00])
    var long = CompactProtocolWriter()
    long.writeStructBody { $0.writeI32List(1, Array(repeating: 1, count: 15)) }
    #expect(long.bytes == [0x19, 0xF5, 0x0F] + Array(repeating: 0x02, count: 15) + [0x00])
  }

  @Test("a TIMESTAMP(MICROS, UTC) leaf: type, repetition, name, converted type, then the nested logical type")
  func timestampSchemaElement() {
    var writer = CompactProtocolWriter()
    writer.writeStructBody { SchemaElement(.timestamp("t", optional: true)).encode(&$0) }
    #expect(
      writer.bytes == [
        0x15, 0x04,  // 1: type INT64 (2)
        0x25, 0x02,  // 3: repetition OPTIONAL (1)
        0x18, 0x01, 0x74,  // 4: name "t"
        0x25, 0x14,  // 6: converted type TIMESTAMP_MICROS (10)
        0x4C,  // 10: logicalType, a union
        0x8C,  // 8: TIMESTAMP
        0x11,  // 1: isAdjustedToUTC true
        0x1C, 0x2C, 0x00, 0x00,  // 2: unit { 2: MICROS {} }
        0x00, 0x00, 0x00,  // ends of TimestampType, LogicalType, SchemaElement
      ])
  }

  @Test("the bit-packing example of Encodings.md: 0…7 at bit width 3")
  func bitPackedExample() {
    var output: [UInt8] = []
    RLEHybridEncoder.encode([UInt32](0...7), bitWidth: 3, into: &output)
    // header (1 group << 1) | 1, then 10001000 11000110 11111010
    #expect(output == [0x03, 0x88, 0xC6, 0xFA])
  }

  @Test("a run of eight or more equal values is an RLE run with its value in whole bytes")
  func rleRuns() {
    var ones: [UInt8] = []
    RLEHybridEncoder.encode([UInt8](repeating: 1, count: 10), bitWidth: 1, into: &ones)
    #expect(ones == [0x14, 0x01])
    var wide: [UInt8] = []
    RLEHybridEncoder.encode([UInt32](repeating: 0x1234, count: 300), bitWidth: 13, into: &wide)
    #expect(wide == [0xD8, 0x04, 0x34, 0x12])  // 600 as a varint, then two bytes of value
  }

  @Test("short runs are bit-packed, padded to a group of eight, then a long run is RLE")
  func mixedRuns() {
    var output: [UInt8] = []
    RLEHybridEncoder.encode([UInt8]([1, 0, 1]) + [UInt8](repeating: 0, count: 5 + 9), bitWidth: 1, into: &output)
    // One group (1,0,1,0,0,0,0,0) = 0b00000101, then a run of 9 zeros.
    #expect(output == [0x03, 0x05, 0x12, 0x00])
    var tail: [UInt8] = []
    RLEHybridEncoder.encode([UInt8]([1, 1, 0]), bitWidth: 1, into: &tail)
    #expect(tail == [0x03, 0x03])
  }

  @Test("index bit widths", arguments: [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (256, 8), (257, 9)])
  func indexBitWidths(count: Int, width: Int) {
    #expect(RLEHybridEncoder.bitWidth(forIndicesBelow: count) == width)
  }

  @Test("the dictionary finds what it holds, byte for byte, across growth, and refuses what passes its limit")
  func dictionary() {
    var dictionary = ByteArrayDictionary()
    let words = (0..<5000).map { Array("word-\($0)".utf8) } + [[], [0xFF], [0x00]]
    for round in 0..<2 {
      for (number, word) in words.enumerated() {
        word.withUnsafeBytes { #expect(dictionary.entry(for: $0, limit: .max) == number, "round \(round)") }
      }
    }
    #expect(dictionary.count == words.count)
    for (number, word) in words.enumerated() { dictionary.withEntry(number) { #expect(Array($0) == word) } }
    let plainLength = words.reduce(0) { $0 + 4 + $1.count }
    #expect(dictionary.plainBytes.count == plainLength)
    let full = Array("one more".utf8)
    full.withUnsafeBytes { #expect(dictionary.entry(for: $0, limit: plainLength + 4 + 7) == nil) }
    full.withUnsafeBytes { #expect(dictionary.entry(for: $0, limit: plainLength + 4 + 8) == words.count) }
  }
}
