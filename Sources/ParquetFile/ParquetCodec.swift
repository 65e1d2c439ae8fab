import CSnappy
import CZstd

/// How pages are compressed; one codec per file (parquet.thrift `CompressionCodec`).
public enum ParquetCodec: Sendable, Hashable, CustomStringConvertible {
  case uncompressed
  /// Snappy's raw block format, through libsnappy's C API.
  case snappy
  /// Zstandard at `level` (libzstd's default is 3).
  case zstd(level: Int32 = 3)

  /// The Thrift enum value.
  var thriftValue: Int32 {
    switch self {
    case .uncompressed: 0
    case .snappy: 1
    case .zstd: 6
    }
  }

  public var description: String {
    switch self {
    case .uncompressed: "UNCOMPRESSED"
    case .snappy: "SNAPPY"
    case .zstd: "ZSTD"
    }
  }
}

/// Compresses whole pages with one codec; holds libzstd's context (about a megabyte once used)
/// for its lifetime. Writers on one thread may share one (`ParquetWriter`'s `compressor:`), so
/// that many open files do not each hold a context.
public final class PageCompressor {
  public let codec: ParquetCodec
  private let zstdContext: OpaquePointer?

  public init(_ codec: ParquetCodec) throws(ParquetError) {
    self.codec = codec
    if case .zstd = codec {
      guard let context = ZSTD_createCCtx() else {
        throw .compressionFailed(codec: "ZSTD", message: "ZSTD_createCCtx returned NULL")
      }
      zstdContext = context
    } else {
      zstdContext = nil
    }
  }

  deinit {
    if let zstdContext { ZSTD_freeCCtx(zstdContext) }
  }

  /// The page being encoded, before compression: one buffer for every column of every writer
  /// sharing the compressor. A buffer per column, allocated when its first page closes, cost a
  /// page's size per column on top of the budget whenever a file that had not yet closed a page
  /// was flushed (`convert --to parquet`: +5 MB at once, on a 1 GB export).
  private var pageBody: [UInt8] = []

  /// The shared page buffer, empty, for one page; hand it back with `keepPageBody(_:)`.
  func takePageBody() -> [UInt8] {
    var body: [UInt8] = []
    swap(&body, &pageBody)
    body.removeAll(keepingCapacity: true)
    return body
  }

  /// Keeps `body`'s storage for the next page, unless one very long value made it large.
  func keepPageBody(_ body: [UInt8]) {
    pageBody = body.capacity > 4 << 20 ? [] : body
  }

  /// The page compressed; for `.uncompressed`, the same array (no copy).
  func compress(_ page: [UInt8]) throws(ParquetError) -> [UInt8] {
    switch codec {
    case .uncompressed:
      return page
    case .snappy:
      return try compress(page, capacity: snappy_max_compressed_length(page.count)) { input, output in
        var length = output.count
        let status = snappy_compress(
          input.baseAddress?.assumingMemoryBound(to: CChar.self), input.count,
          output.baseAddress?.assumingMemoryBound(to: CChar.self), &length)
        return status == SNAPPY_OK ? .success(length) : .failure("snappy_compress returned \(status.rawValue)")
      }
    case .zstd(let level):
      let context = zstdContext
      return try compress(page, capacity: ZSTD_compressBound(page.count)) { input, output in
        let result = ZSTD_compressCCtx(context, output.baseAddress, output.count, input.baseAddress, input.count, level)
        return ZSTD_isError(result) == 0 ? .success(result) : .failure(String(cString: ZSTD_getErrorName(result)))
      }
    }
  }

  private enum Outcome {
    case success(Int)
    case failure(String)
  }

  /// Runs one C compressor over `page` into a new array of `capacity` bytes, kept to the length it reports.
  private func compress(
    _ page: [UInt8], capacity: Int, _ body: (UnsafeRawBufferPointer, UnsafeMutableRawBufferPointer) -> Outcome
  ) throws(ParquetError) -> [UInt8] {
    var failure: String?
    let output = [UInt8](unsafeUninitializedCapacity: Swift.max(capacity, 1)) { buffer, count in
      switch page.withUnsafeBytes({ body($0, UnsafeMutableRawBufferPointer(buffer)) }) {
      case .success(let length): count = length
      case .failure(let message):
        failure = message
        count = 0
      }
    }
    if let failure { throw .compressionFailed(codec: codec.description, message: failure) }
    return output
  }
}
