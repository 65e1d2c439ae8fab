import HealthPort
import ParquetFile

#if canImport(Glibc)
  import Glibc
#endif

/// One open Parquet file of a table's partition.
final class ParquetPartFile {
  let writer: ParquetWriter
  unowned let table: ParquetTableWriter
  /// `type=…/year=…/` (empty without partitioning).
  let partition: String
  /// Where it is written, and where it goes once the run succeeds.
  let writtenPath: String
  let finalPath: String
  let registration: TemporaryFiles.Registration?
  var rowsSinceSizeCheck = 0
  /// The dataset's row count when this file last got a row.
  var lastUse = 0

  init(
    writer: ParquetWriter, table: ParquetTableWriter, partition: String, writtenPath: String, finalPath: String,
    registration: TemporaryFiles.Registration?
  ) {
    self.writer = writer
    self.table = table
    self.partition = partition
    self.writtenPath = writtenPath
    self.finalPath = finalPath
    self.registration = registration
  }
}

/// The limits that keep memory flat whatever the export's size.
package struct ParquetLimits: Sendable {
  /// A row group closes at this many rows…
  package var rowGroupRows = 1_000_000
  /// …or this many encoded bytes (below ``bufferedBytes``, so that a row group mostly ends by
  /// its own size rather than by its file being closed).
  package var rowGroupBytes = 4 << 20
  /// At most this many bytes buffered over all open files (every buffer of their open row
  /// groups, by capacity); beyond it the largest file is closed early (its partition starts a new
  /// part file when it gets rows again). A 100 MB export must already fill it for the peak to be
  /// the same at every size. With 16 MiB it was not: in a 1 GB export's 50 MB of
  /// heart-rate-variability Records (a 100 MB export has 5) the open files' buffers, `hrv_beats`'
  /// among them, grew past what a 100 MB export reaches, and the peak rose 5–6 MB above it.
  /// Figures in docs/benchmarks.md.
  package var bufferedBytes = 8 << 20
  /// At most this many files open at once; beyond it the least recently used is closed.
  package var openFiles = 128
  /// A page closes at this many values (ParquetFile's default is 1M). Every row adds a value to
  /// each of a table's columns, so all their open pages grow (and double their buffers) at the
  /// same rows: with 128 Ki values a `records` file's open pages alone held 15 MB and jumped by
  /// 5 MB between two budget checks.
  package var pageValues = 1 << 15
  package init() {}
}

/// The files of one run in a dataset folder: where they are written, the limits over all of
/// them, and how the run ends (see ``ParquetDatasetFolder``).
final class ParquetDataset {
  let folder: ParquetDatasetFolder
  let codec: ParquetCodec
  let limits: ParquetLimits
  /// `person=NAME/`, or empty.
  let personFolder: String
  private var open: [ObjectIdentifier: ParquetPartFile] = [:]
  private var clock = 0
  private var rowsSinceMemoryCheck = 0
  private var nextPart = 0
  private var createdFolders: Set<String> = []
  /// One compressor for every file: a zstd context per open file would cost a megabyte each.
  private var compressor: PageCompressor?

  init(folder: ParquetDatasetFolder, codec: ParquetCodec, limits: ParquetLimits, person: String?) {
    self.folder = folder
    self.codec = codec
    self.limits = limits
    personFolder = person.map { "person=" + HivePath.escape($0) + "/" } ?? ""
  }

  /// A writer's error as the user reads it: a failed system call as `path: error: cannot
  /// write: reason`, the path in the folder the user named.
  func failure(_ error: ParquetError) -> HealthPortError {
    guard case .io(let operation, let path, let number) = error else {
      return HealthPortError(.failure, message: error.description)
    }
    let failure = HealthPortError(
      .failure, file: path, message: "cannot \(operation): \(String(cString: strerror(number)))")
    return folder.describing(failure) as? HealthPortError ?? failure
  }

  /// Opens a new part file of `table` in `partition`, closing the least recently used file
  /// first when too many are open.
  func openPart(table: ParquetTableWriter, partition: String) throws -> ParquetPartFile {
    if open.count >= limits.openFiles, let part = open.values.min(by: { $0.lastUse < $1.lastUse }) {
      try closeEarly(part)
    }
    let relativeFolder = table.layout.name + "/" + personFolder + partition
    try folder.makeFolders(relativeFolder, created: &createdFolders)
    nextPart += 1
    let name = "part-\(folder.runID)-\(String(nextPart, radix: 10).leftPadded(to: 5)).parquet"
    let (writtenPath, finalPath) = folder.paths(relativeFolder + name)
    var configuration = ParquetWriter.Configuration()
    configuration.createdBy = "healthport"
    // A page of dictionary indices closes at 1 MiB of packed indices, which for a column of few
    // distinct values (units, sources) is millions of values held as 4-byte indices meanwhile:
    // many partitions open at once would each hold that much.
    configuration.maximumPageValues = limits.pageValues
    if compressor == nil {
      do { compressor = try PageCompressor(codec) } catch { throw failure(error) }
    }
    var registration: TemporaryFiles.Registration?
    var opened: ParquetWriter?
    // Registered and created as one step for an interruption on another thread.
    try TemporaryFiles.whileCreating {
      registration = TemporaryFiles.registerFile(writtenPath)
      do throws(ParquetError) {
        opened = try ParquetWriter(
          path: writtenPath, schema: table.layout.schema, compressor: compressor!, configuration: configuration)
      } catch {
        TemporaryFiles.unregister(registration)
        throw failure(error)
      }
      return (writtenPath, false)
    }
    guard let writer = opened else { throw HealthPortError(.failure, message: "cannot open \(writtenPath)") }
    folder.written.append((writtenPath, finalPath, registration))
    let part = ParquetPartFile(
      writer: writer, table: table, partition: partition, writtenPath: writtenPath, finalPath: finalPath,
      registration: registration)
    open[ObjectIdentifier(part)] = part
    return part
  }

  /// After each row: closes the row group at its limits, and now and then the largest file
  /// when the open files buffer too much.
  @inline(__always)
  func rowAppended(to part: ParquetPartFile) throws {
    clock += 1
    part.lastUse = clock
    part.rowsSinceSizeCheck += 1
    do {
      if part.writer.bufferedRows >= limits.rowGroupRows {
        try part.writer.flushRowGroup()
        part.rowsSinceSizeCheck = 0
      } else if part.rowsSinceSizeCheck >= 1024 {
        part.rowsSinceSizeCheck = 0
        if part.writer.encodedBytes >= limits.rowGroupBytes { try part.writer.flushRowGroup() }
      }
    } catch {
      throw failure(error)
    }
    rowsSinceMemoryCheck += 1
    // Often enough that the open files pass the budget by little before the largest is closed.
    if rowsSinceMemoryCheck >= 1024 {
      rowsSinceMemoryCheck = 0
      try keepWithinBudget()
    }
  }

  private func keepWithinBudget() throws {
    var sizes = open.values.map { ($0, $0.writer.bufferedBytes) }
    var total = sizes.reduce(0) { $0 + $1.1 }
    while total > limits.bufferedBytes, let largest = sizes.indices.max(by: { sizes[$0].1 < sizes[$1].1 }) {
      total -= sizes[largest].1
      try closeEarly(sizes[largest].0)
      sizes.remove(at: largest)
    }
  }

  private func closeEarly(_ part: ParquetPartFile) throws {
    part.table.forget(part)
    try close(part)
  }

  /// Writes a part file's footer; it stays where it was written until ``ParquetDatasetFolder/commit``.
  func close(_ part: ParquetPartFile) throws {
    open[ObjectIdentifier(part)] = nil
    do {
      try part.writer.close(synchronize: folder.isExisting)
    } catch {
      throw failure(error)
    }
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
