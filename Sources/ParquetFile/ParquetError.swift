/// What can go wrong while writing a Parquet file.
public enum ParquetError: Error, Sendable, Hashable, CustomStringConvertible {
  case invalidSchema(String)
  /// A column index outside the schema.
  case noSuchColumn(Int)
  /// A value of one type appended to a column of another.
  case typeMismatch(column: String, columnType: ParquetPhysicalType, appended: String)
  /// A null appended to a required column.
  case nullInRequiredColumn(column: String)
  /// A byte array longer than Parquet's 32-bit lengths allow.
  case valueTooLarge(column: String, bytes: Int)
  /// At a row group's end, a column holds a different number of values than the first column.
  case unequalColumnLengths(column: String, values: Int, expected: Int)
  /// An encoded page or footer does not fit Parquet's 32-bit sizes.
  case pageTooLarge(bytes: Int)
  case compressionFailed(codec: String, message: String)
  /// A system call failed; `errno` is its error number.
  case io(operation: String, path: String, errno: Int32)
  /// The writer was used after `close()` or after a failed write.
  case closed

  public var description: String {
    switch self {
    case .invalidSchema(let message): "invalid Parquet schema: \(message)"
    case .noSuchColumn(let index): "no column \(index) in the Parquet schema"
    case .typeMismatch(let column, let columnType, let appended):
      "column \"\(column)\" is \(columnType): cannot append \(appended)"
    case .nullInRequiredColumn(let column): "column \"\(column)\" is required: cannot append null"
    case .valueTooLarge(let column, let bytes): "column \"\(column)\": a value of \(bytes) bytes is too large"
    case .unequalColumnLengths(let column, let values, let expected):
      "column \"\(column)\" has \(values) values in the row group, expected \(expected)"
    case .pageTooLarge(let bytes): "a Parquet page or footer of \(bytes) bytes is too large"
    case .compressionFailed(let codec, let message): "\(codec) compression failed: \(message)"
    case .io(let operation, let path, let number): "\(path): \(operation) failed: \(String(cString: strerror(number)))"
    case .closed: "the Parquet writer is closed"
    }
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
