#if canImport(Glibc)
  import Glibc
#endif

/// Options for ``ExportReader``.
public struct ReadOptions: Sendable {
  /// Bytes read and parsed at a time.
  package var chunkSize = 1 << 20
  /// Called after each chunk with the input bytes consumed and the input's size when known.
  public var progress: (@Sendable (Int64, Int64?) -> Void)?
  /// CSV input: the type of every row of a file without a `type` column (`--type`).
  package var csvDefaultType: String?
  /// CSV input: the source name of rows without one (default: the file's base name).
  package var csvDefaultSourceName: String?
  /// Pass over damaged top-level elements (reported through `onSkip` and
  /// ``ReadReport/skipped``) instead of stopping at the first.
  public var skipInvalid = false
  /// The command answers from the export alone (`info`): a zip that ends after its export, inside
  /// a later member, is read up to that member with a warning (``ReadReport/notes``) rather than
  /// an error, as with ``skipInvalid``.
  package var answersFromExport = false
  /// Called with each skip as it happens (`path:line:col: error: …`).
  package var onSkip: (@Sendable (String) -> Void)?
  /// Build elements and run the sink on a second thread while libxml2 parses (XML inputs): the
  /// two then share the cores instead of taking turns. On by default when the machine has more
  /// than one processor; the environment variable `HEALTHPORT_THREADS` overrides that (`1`: one
  /// thread, `2`: two). The sink is still called from one thread at a time, in document order.
  public var concurrent = ReadOptions.concurrentByDefault

  static let concurrentByDefault: Bool = threadsByDefault > 1

  /// Parsers that read one export file (or bytes in memory) at once, each on its own range of it
  /// (`ParallelExportReader`); used when `concurrent` is on and this is above one. Default: the
  /// processors; `HEALTHPORT_THREADS` overrides it.
  package var threads = ReadOptions.threadsByDefault
  /// Bytes per range of a parallel read of a file. `HEALTHPORT_RANGE_BYTES` overrides it (for tests).
  package var rangeSize = ReadOptions.rangeSizeByDefault
  /// Bytes per range of a parallel read of a stream (a zip member, stdin), whose ranges' bytes
  /// are held until delivered as well: 256 KiB, half a file's. `HEALTHPORT_RANGE_BYTES`
  /// overrides it too. With 512 KiB, a 4.2 GB zip read peaked 4 to 5 MB higher, as fast.
  package var streamRangeSize = ReadOptions.streamRangeSizeByDefault

  static let threadsByDefault: Int = {
    if let threads = getenv("HEALTHPORT_THREADS"), let count = Int(String(cString: threads)), count > 0 {
      return min(count, 64)
    }
    return max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
  }()

  /// `HEALTHPORT_RANGE_BYTES`, when set.
  private static let rangeSizeOverride: Int? = {
    guard let bytes = getenv("HEALTHPORT_RANGE_BYTES"), let count = Int(String(cString: bytes)), count > 0 else {
      return nil
    }
    return count
  }()

  static let streamRangeSizeByDefault = rangeSizeOverride ?? 256 << 10

  static let rangeSizeByDefault: Int = {
    if let rangeSizeOverride { return rangeSizeOverride }
    // 512 KiB: as fast as 1 MiB on the 1 GB export (6.68 s against 7.26 s, medians of 3) and 4 MB
    // less at peak, which keeps `--split` of a whole bundle under 40 MB.
    return 512 << 10
  }()

  /// The defaults: concurrent on a machine with more than one processor; an invalid element stops the read.
  public init() {}
}
