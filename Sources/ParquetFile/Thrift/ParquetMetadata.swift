/// The parquet.thrift structs this writer fills in, each encoding itself with the compact protocol.
/// Field ids are the specification's; optional fields this writer never sets are left out.

/// parquet.thrift `Encoding`.
enum Encoding: Int32, Comparable {
  case plain = 0
  case rle = 3
  case rleDictionary = 8

  static func < (lhs: Encoding, rhs: Encoding) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// parquet.thrift `PageType`.
enum PageType: Int32 {
  case dataPage = 0
  case dictionaryPage = 2
}

struct Statistics: Equatable {
  var nullCount: Int64
  /// PLAIN encodings of the bounds (byte arrays without their length); nil when the chunk has no value to order.
  var minValue: [UInt8]?
  var maxValue: [UInt8]?

  func encode(_ writer: inout CompactProtocolWriter) {
    writer.writeI64(3, nullCount)
    if let maxValue { writer.writeBinary(5, maxValue) }
    if let minValue { writer.writeBinary(6, minValue) }
  }
}

struct DataPageHeader {
  var numValues: Int32
  var encoding: Encoding
  var statistics: Statistics

  func encode(_ writer: inout CompactProtocolWriter) {
    writer.writeI32(1, numValues)
    writer.writeI32(2, encoding.rawValue)
    writer.writeI32(3, Encoding.rle.rawValue)  // definition levels
    writer.writeI32(4, Encoding.rle.rawValue)  // repetition levels (none: the schema is flat)
    writer.writeStruct(5) { statistics.encode(&$0) }
  }
}

struct DictionaryPageHeader {
  var numValues: Int32

  func encode(_ writer: inout CompactProtocolWriter) {
    writer.writeI32(1, numValues)
    writer.writeI32(2, Encoding.plain.rawValue)
  }
}

struct PageHeader {
  enum Kind {
    case data(DataPageHeader)
    case dictionary(DictionaryPageHeader)
  }

  var kind: Kind
  var uncompressedPageSize: Int32
  var compressedPageSize: Int32

  func encoded() -> [UInt8] {
    var writer = CompactProtocolWriter()
    writer.writeStructBody { writer in
      switch kind {
      case .data: writer.writeI32(1, PageType.dataPage.rawValue)
      case .dictionary: writer.writeI32(1, PageType.dictionaryPage.rawValue)
      }
      writer.writeI32(2, uncompressedPageSize)
      writer.writeI32(3, compressedPageSize)
      switch kind {
      case .data(let header): writer.writeStruct(5) { header.encode(&$0) }
      case .dictionary(let header): writer.writeStruct(7) { header.encode(&$0) }
      }
    }
    return writer.bytes
  }
}

struct PageEncodingStats: Hashable {
  var pageType: PageType
  var encoding: Encoding
  var count: Int32
}

struct ColumnMetaData {
  var type: ParquetPhysicalType
  var encodings: [Encoding]
  var path: [String]
  var codec: ParquetCodec
  var numValues: Int64
  var totalUncompressedSize: Int64
  var totalCompressedSize: Int64
  var dataPageOffset: Int64
  var dictionaryPageOffset: Int64?
  var statistics: Statistics
  var encodingStats: [PageEncodingStats]

  func encode(_ writer: inout CompactProtocolWriter) {
    writer.writeI32(1, type.rawValue)
    writer.writeI32List(2, encodings.map(\.rawValue))
    writer.writeStringList(3, path)
    writer.writeI32(4, codec.thriftValue)
    writer.writeI64(5, numValues)
    writer.writeI64(6, totalUncompressedSize)
    writer.writeI64(7, totalCompressedSize)
    writer.writeI64(9, dataPageOffset)
    if let dictionaryPageOffset { writer.writeI64(11, dictionaryPageOffset) }
    writer.writeStruct(12) { statistics.encode(&$0) }
    writer.writeStructList(13, count: encodingStats.count) { writer, index in
      writer.writeI32(1, encodingStats[index].pageType.rawValue)
      writer.writeI32(2, encodingStats[index].encoding.rawValue)
      writer.writeI32(3, encodingStats[index].count)
    }
  }
}

struct ColumnChunk {
  /// Where the chunk's first page starts (the deprecated offset of the metadata; writers set the chunk's start).
  var fileOffset: Int64
  var metaData: ColumnMetaData

  func encode(_ writer: inout CompactProtocolWriter) {
    writer.writeI64(2, fileOffset)
    writer.writeStruct(3) { metaData.encode(&$0) }
  }
}

struct RowGroup {
  var columns: [ColumnChunk]
  var totalByteSize: Int64
  var numRows: Int64
  var fileOffset: Int64
  var totalCompressedSize: Int64
  var ordinal: Int16

  func encode(_ writer: inout CompactProtocolWriter) {
    writer.writeStructList(1, count: columns.count) { columns[$1].encode(&$0) }
    writer.writeI64(2, totalByteSize)
    writer.writeI64(3, numRows)
    writer.writeI64(5, fileOffset)
    writer.writeI64(6, totalCompressedSize)
    writer.writeI16(7, ordinal)
  }
}

/// parquet.thrift `LogicalType`, a union: one field set, each an (empty or small) struct.
enum LogicalType {
  case string
  case date
  case timestampMicros(isAdjustedToUTC: Bool)

  func encode(_ writer: inout CompactProtocolWriter) {
    switch self {
    case .string: writer.writeStruct(1) { _ in }  // STRING
    case .date: writer.writeStruct(6) { _ in }  // DATE
    case .timestampMicros(let isAdjustedToUTC):
      writer.writeStruct(8) { timestamp in  // TIMESTAMP
        timestamp.writeBool(1, isAdjustedToUTC)
        timestamp.writeStruct(2) { $0.writeStruct(2) { _ in } }  // unit: TimeUnit MICROS
      }
    }
  }
}

/// parquet.thrift `ConvertedType`, the legacy annotation written beside a `LogicalType` for older readers.
enum ConvertedType: Int32 {
  case utf8 = 0
  case date = 6
  case timestampMicros = 10
}

/// parquet.thrift `SchemaElement`: the root (a group with children) or a flat leaf column.
struct SchemaElement {
  var type: ParquetPhysicalType?
  /// `FieldRepetitionType`: 0 REQUIRED, 1 OPTIONAL; nil for the root.
  var repetitionType: Int32?
  var name: String
  var numChildren: Int32?
  var convertedType: ConvertedType?
  var logicalType: LogicalType?

  static func root(children: Int) -> SchemaElement {
    SchemaElement(name: "schema", numChildren: Int32(children))
  }

  init(
    type: ParquetPhysicalType? = nil, repetitionType: Int32? = nil, name: String, numChildren: Int32? = nil,
    convertedType: ConvertedType? = nil, logicalType: LogicalType? = nil
  ) {
    self.type = type
    self.repetitionType = repetitionType
    self.name = name
    self.numChildren = numChildren
    self.convertedType = convertedType
    self.logicalType = logicalType
  }

  init(_ column: ParquetColumn) {
    self.init(type: column.physicalType, repetitionType: column.isOptional ? 1 : 0, name: column.name)
    switch column.logicalType {
    case .none: break
    case .string: (convertedType, logicalType) = (.utf8, .string)
    case .date: (convertedType, logicalType) = (.date, .date)
    // TIMESTAMP_MICROS means adjusted to UTC, so it fits only this logical type.
    case .timestampMicrosUTC: (convertedType, logicalType) = (.timestampMicros, .timestampMicros(isAdjustedToUTC: true))
    }
  }

  func encode(_ writer: inout CompactProtocolWriter) {
    if let type { writer.writeI32(1, type.rawValue) }
    if let repetitionType { writer.writeI32(3, repetitionType) }
    writer.writeString(4, name)
    if let numChildren { writer.writeI32(5, numChildren) }
    if let convertedType { writer.writeI32(6, convertedType.rawValue) }
    if let logicalType { writer.writeStruct(10) { logicalType.encode(&$0) } }
  }
}

/// The footer.
struct FileMetaData {
  var schema: ParquetSchema
  var numRows: Int64
  var rowGroups: [RowGroup]
  var createdBy: String

  func encoded() -> [UInt8] {
    let elements = [SchemaElement.root(children: schema.columns.count)] + schema.columns.map(SchemaElement.init)
    var writer = CompactProtocolWriter()
    writer.writeStructBody { writer in
      writer.writeI32(1, 1)  // version
      writer.writeStructList(2, count: elements.count) { elements[$1].encode(&$0) }
      writer.writeI64(3, numRows)
      writer.writeStructList(4, count: rowGroups.count) { rowGroups[$1].encode(&$0) }
      writer.writeString(6, createdBy)
      // Every column's min and max follow its type's order (ColumnOrder TYPE_ORDER), so readers may use them.
      writer.writeStructList(7, count: schema.columns.count) { writer, _ in writer.writeStruct(1) { _ in } }
    }
    return writer.bytes
  }
}
