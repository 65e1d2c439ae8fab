#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One value of a row, for `ParquetWriter.appendRow`.
public enum ParquetValue: Sendable, Hashable {
  case null
  case boolean(Bool)
  /// INT32, and DATE as days since 1970-01-01.
  case int32(Int32)
  /// INT64, and TIMESTAMP as microseconds since 1970-01-01T00:00:00Z.
  case int64(Int64)
  case double(Double)
  case string(String)
  case bytes([UInt8])
}

/// Writes one Parquet file as a stream of row groups: values are appended column by column (or a row at
/// a time), and `flushRowGroup()` writes the open row group's column chunks; `close()` writes the footer.
///
/// Memory is bounded by one row group: its encoded pages, each column's open page and dictionary. The
/// caller decides where row groups end, from `bufferedRows`, `encodedBytes` or `bufferedBytes`.
/// A file not closed has no footer and is not a Parquet file.
public final class ParquetWriter {
  public struct Configuration: Sendable {
    /// A page closes when its values reach this many bytes (for dictionary indices, at their bit width).
    public var pageSize = 1 << 20
    /// A page closes at this many values, nulls included, whatever their size.
    public var maximumPageValues = 1 << 20
    /// A byte-array chunk's dictionary grows to at most this many bytes (PLAIN-encoded), then the rest of
    /// the chunk is PLAIN; 0 turns dictionary encoding off.
    public var dictionaryPageLimit = 1 << 20
    /// Bounds longer than this many bytes (long byte arrays) are left out of the statistics, which keep
    /// their null count, so that long text does not bloat page headers and the footer (as Arrow does).
    public var maximumStatisticsSize = 4096
    /// The footer's `created_by`.
    public var createdBy = "healthport ParquetFile"

    public init() {}
  }

  public let schema: ParquetSchema
  private let configuration: Configuration
  private var output: FileOutput
  private let closesDescriptor: Bool
  private let columns: [ColumnChunkBuilder]
  /// The same builders, for appends that borrow them without retaining (``columns`` keeps them).
  private let builders: [Unmanaged<ColumnChunkBuilder>]
  private var rowGroups: [RowGroup] = []
  private var isClosed = false

  /// Rows in the row groups already written.
  public private(set) var writtenRows: Int64 = 0

  /// Creates (or truncates) the file at `path` and writes the leading magic.
  public convenience init(
    path: String, schema: ParquetSchema, codec: ParquetCodec = .zstd(), configuration: Configuration = Configuration()
  ) throws(ParquetError) {
    try self.init(path: path, schema: schema, compressor: PageCompressor(codec), configuration: configuration)
  }

  /// The same, compressing with `compressor`, which other writers on the same thread may share.
  public convenience init(
    path: String, schema: ParquetSchema, compressor: PageCompressor, configuration: Configuration = Configuration()
  ) throws(ParquetError) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw .io(operation: "open", path: path, errno: errno) }
    try self.init(
      fileDescriptor: descriptor, closesDescriptor: true, path: path, schema: schema, compressor: compressor,
      configuration: configuration)
  }

  /// Writes to an open descriptor from its current position on, which must be where the file starts
  /// (page offsets count from the first byte written). `path` only names it in errors.
  public convenience init(
    fileDescriptor: Int32, closesDescriptor: Bool = false, path: String = "<parquet>", schema: ParquetSchema,
    codec: ParquetCodec = .zstd(), configuration: Configuration = Configuration()
  ) throws(ParquetError) {
    let compressor: PageCompressor
    do {
      compressor = try PageCompressor(codec)
    } catch {
      if closesDescriptor { Glibc.close(fileDescriptor) }
      throw error
    }
    try self.init(
      fileDescriptor: fileDescriptor, closesDescriptor: closesDescriptor, path: path, schema: schema,
      compressor: compressor, configuration: configuration)
  }

  /// Writes to an open descriptor with a compressor that other writers may share.
  public init(
    fileDescriptor: Int32, closesDescriptor: Bool = false, path: String = "<parquet>", schema: ParquetSchema,
    compressor: PageCompressor, configuration: Configuration = Configuration()
  ) throws(ParquetError) {
    self.schema = schema
    self.configuration = configuration
    self.closesDescriptor = closesDescriptor
    output = FileOutput(descriptor: fileDescriptor, path: path)
    do {
      columns = schema.columns.map { ColumnChunkBuilder($0, compressor: compressor, configuration: configuration) }
      builders = columns.map { Unmanaged.passUnretained($0) }
      try output.write(Self.magic)
    } catch {
      if closesDescriptor { Glibc.close(fileDescriptor) }
      throw error
    }
  }

  deinit {
    if !isClosed && closesDescriptor { Glibc.close(output.descriptor) }
  }

  static let magic: [UInt8] = Array("PAR1".utf8)

  // MARK: Sizes

  /// Rows in the open row group (the values of its first column).
  public var bufferedRows: Int { columns[0].valueCount }

  /// Bytes of the open row group's finished, compressed pages and its dictionaries.
  public var encodedBytes: Int { columns.reduce(0) { $0 + $1.encodedBytes } }

  /// The memory the open row group holds: its encoded pages and dictionaries (with their hash
  /// tables) and the open pages' buffers, counted by their capacity (what stays allocated).
  public var bufferedBytes: Int { columns.reduce(0) { $0 + $1.bufferedBytes } }

  // MARK: Appending

  /// Runs `body` on the builder of `column` once it is checked to take `type`. The writer holds
  /// its builders for its whole life, so the call borrows it without retaining it per value.
  @inline(__always)
  private func withBuilder(
    _ column: Int, _ type: ParquetPhysicalType?, _ appended: String,
    _ body: (ColumnChunkBuilder) throws(ParquetError) -> Void
  ) throws(ParquetError) {
    guard !isClosed else { throw .closed }
    guard column >= 0 && column < builders.count else { throw .noSuchColumn(column) }
    var failure: ParquetError?
    builders[column]._withUnsafeGuaranteedRef { builder in
      guard type == nil || builder.type == type else {
        failure = .typeMismatch(
          column: builder.column.name, columnType: builder.column.physicalType, appended: appended)
        return
      }
      do throws(ParquetError) { try body(builder) } catch { failure = error }
    }
    if let failure { throw failure }
  }

  /// Appends a null to an optional column.
  public func appendNull(to column: Int) throws(ParquetError) {
    try withBuilder(column, nil, "null") { builder throws(ParquetError) in try builder.appendNull() }
  }

  public func append(_ value: Bool, to column: Int) throws(ParquetError) {
    try withBuilder(column, .boolean, "BOOLEAN") { builder throws(ParquetError) in try builder.append(value) }
  }

  /// An INT32 value; for a DATE column, days since 1970-01-01.
  public func append(_ value: Int32, to column: Int) throws(ParquetError) {
    try withBuilder(column, .int32, "INT32") { builder throws(ParquetError) in try builder.append(value) }
  }

  /// An INT64 value; for a TIMESTAMP column, microseconds since 1970-01-01T00:00:00Z.
  public func append(_ value: Int64, to column: Int) throws(ParquetError) {
    try withBuilder(column, .int64, "INT64") { builder throws(ParquetError) in try builder.append(value) }
  }

  public func append(_ value: Double, to column: Int) throws(ParquetError) {
    try withBuilder(column, .double, "DOUBLE") { builder throws(ParquetError) in try builder.append(value) }
  }

  /// A byte array, copied before this returns.
  public func append(bytes: UnsafeRawBufferPointer, to column: Int) throws(ParquetError) {
    try withBuilder(column, .byteArray, "BYTE_ARRAY") { builder throws(ParquetError) in
      try builder.append(bytes: bytes)
    }
  }

  public func append(bytes: [UInt8], to column: Int) throws(ParquetError) {
    try withBuilder(column, .byteArray, "BYTE_ARRAY") { builder throws(ParquetError) in
      var failure: ParquetError?
      bytes.withUnsafeBytes { buffer in
        do throws(ParquetError) { try builder.append(bytes: buffer) } catch { failure = error }
      }
      if let failure { throw failure }
    }
  }

  /// A string's UTF-8 bytes. Strings whose storage repeats (interned ones) find their
  /// dictionary entry without hashing.
  public func append(_ value: String, to column: Int) throws(ParquetError) {
    try withBuilder(column, .byteArray, "BYTE_ARRAY") { builder throws(ParquetError) in
      try builder.append(string: value)
    }
  }

  /// Appends one value to each column, in schema order.
  public func appendRow(_ row: [ParquetValue]) throws(ParquetError) {
    guard row.count == columns.count else {
      throw .invalidSchema("a row of \(row.count) values for \(columns.count) columns")
    }
    for (column, value) in row.enumerated() {
      switch value {
      case .null: try appendNull(to: column)
      case .boolean(let value): try append(value, to: column)
      case .int32(let value): try append(value, to: column)
      case .int64(let value): try append(value, to: column)
      case .double(let value): try append(value, to: column)
      case .string(let value): try append(value, to: column)
      case .bytes(let value): try append(bytes: value, to: column)
      }
    }
  }

  // MARK: Row groups and the footer

  /// Writes the open row group's column chunks, if it has any row. Every column must hold as many values
  /// as the first.
  public func flushRowGroup() throws(ParquetError) {
    guard !isClosed else { throw .closed }
    let rows = bufferedRows
    guard rows > 0 else { return }
    for builder in columns where builder.valueCount != rows {
      throw .unequalColumnLengths(column: builder.column.name, values: builder.valueCount, expected: rows)
    }
    let start = output.offset
    var chunks: [ColumnChunk] = []
    chunks.reserveCapacity(columns.count)
    do {
      for builder in columns { chunks.append(try builder.flush(to: &output)) }
    } catch {
      abandon()
      throw error
    }
    rowGroups.append(
      RowGroup(
        columns: chunks, totalByteSize: chunks.reduce(0) { $0 + $1.metaData.totalUncompressedSize },
        numRows: Int64(rows), fileOffset: start, totalCompressedSize: output.offset - start,
        ordinal: Int16(truncatingIfNeeded: rowGroups.count)))
    writtenRows += Int64(rows)
  }

  /// Flushes the open row group, writes the footer (metadata, its length, `PAR1`) and, when the writer
  /// opened the file or was asked to, closes the descriptor. With `synchronize`, `fsync(2)` first, for a
  /// file that is about to be renamed into place.
  public func close(synchronize: Bool = false) throws(ParquetError) {
    try flushRowGroup()
    let footer = FileMetaData(
      schema: schema, numRows: writtenRows, rowGroups: rowGroups, createdBy: configuration.createdBy
    ).encoded()
    guard footer.count <= Int32.max else { throw .pageTooLarge(bytes: footer.count) }
    var tail = withUnsafeBytes(of: UInt32(footer.count).littleEndian) { Array($0) }
    tail.append(contentsOf: Self.magic)
    do {
      try output.write(footer)
      try output.write(tail)
    } catch {
      abandon()
      throw error
    }
    if synchronize && fsync(output.descriptor) != 0 {
      let number = errno
      abandon()
      throw .io(operation: "fsync", path: output.path, errno: number)
    }
    isClosed = true
    if closesDescriptor && Glibc.close(output.descriptor) != 0 {
      throw .io(operation: "close", path: output.path, errno: errno)
    }
  }

  /// After a failed write the file cannot be completed: the writer refuses further use.
  private func abandon() {
    isClosed = true
    if closesDescriptor { Glibc.close(output.descriptor) }
  }
}
