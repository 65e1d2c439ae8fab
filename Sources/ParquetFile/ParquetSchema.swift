/// The physical types this writer stores (parquet.thrift `Type`; the raw value is the Thrift enum).
public enum ParquetPhysicalType: Int32, Sendable, Hashable, CustomStringConvertible {
  case boolean = 0
  case int32 = 1
  case int64 = 2
  case double = 5
  case byteArray = 6

  public var description: String {
    switch self {
    case .boolean: "BOOLEAN"
    case .int32: "INT32"
    case .int64: "INT64"
    case .double: "DOUBLE"
    case .byteArray: "BYTE_ARRAY"
    }
  }
}

/// The logical types this writer annotates columns with (parquet.thrift `LogicalType`).
public enum ParquetLogicalType: Sendable, Hashable {
  case none
  /// UTF-8 text in a `BYTE_ARRAY` column.
  case string
  /// Days since 1970-01-01 in an `INT32` column.
  case date
  /// Microseconds since 1970-01-01T00:00:00Z in an `INT64` column (`isAdjustedToUTC = true`).
  case timestampMicrosUTC

  /// The one physical type each annotation applies to; nil for `.none`.
  var requiredPhysicalType: ParquetPhysicalType? {
    switch self {
    case .none: nil
    case .string: .byteArray
    case .date: .int32
    case .timestampMicrosUTC: .int64
    }
  }
}

/// One flat column: a leaf directly under the schema root.
public struct ParquetColumn: Sendable, Hashable {
  public var name: String
  public var physicalType: ParquetPhysicalType
  public var logicalType: ParquetLogicalType
  /// Optional columns accept nulls and carry definition levels; required ones do not.
  public var isOptional: Bool
  /// For a byte-array column: false when its values rarely repeat (an id, a string with an
  /// address in it), so that it is PLAIN from the start instead of hashing every value into a
  /// dictionary that only fills up.
  public var usesDictionary = true

  public init(
    _ name: String, _ physicalType: ParquetPhysicalType, logicalType: ParquetLogicalType = .none,
    optional: Bool = false
  ) {
    self.name = name
    self.physicalType = physicalType
    self.logicalType = logicalType
    self.isOptional = optional
  }

  /// A UTF-8 text column (`BYTE_ARRAY` annotated `STRING`).
  public static func string(_ name: String, optional: Bool = false, dictionary: Bool = true) -> ParquetColumn {
    var column = ParquetColumn(name, .byteArray, logicalType: .string, optional: optional)
    column.usesDictionary = dictionary
    return column
  }

  /// A UTC timestamp in microseconds (`INT64` annotated `TIMESTAMP(MICROS, true)`).
  public static func timestamp(_ name: String, optional: Bool = false) -> ParquetColumn {
    ParquetColumn(name, .int64, logicalType: .timestampMicrosUTC, optional: optional)
  }

  /// A calendar day (`INT32` annotated `DATE`).
  public static func date(_ name: String, optional: Bool = false) -> ParquetColumn {
    ParquetColumn(name, .int32, logicalType: .date, optional: optional)
  }
}

/// A flat schema: at least one column, names unique and non-empty, each logical type on its physical type.
public struct ParquetSchema: Sendable, Hashable {
  public let columns: [ParquetColumn]

  public init(_ columns: [ParquetColumn]) throws(ParquetError) {
    guard !columns.isEmpty else { throw .invalidSchema("a schema needs at least one column") }
    var seen = Set<String>()
    for column in columns {
      guard !column.name.isEmpty else { throw .invalidSchema("a column has an empty name") }
      guard seen.insert(column.name).inserted else {
        throw .invalidSchema("column \"\(column.name)\" appears twice")
      }
      if let required = column.logicalType.requiredPhysicalType, required != column.physicalType {
        throw .invalidSchema(
          "column \"\(column.name)\": \(column.logicalType) needs \(required), not \(column.physicalType)")
      }
    }
    self.columns = columns
  }
}
