#if canImport(Glibc)
  import Glibc
#endif

/// Options for ``ExportReader``.
public struct ReadOptions: Sendable {
  /// Bytes read and parsed at a time.
  public var chunkSize = 1 << 20
  /// Called after each chunk with the input bytes consumed and the input's size when known.
  public var progress: (@Sendable (Int64, Int64?) -> Void)?
  /// CSV input: the type of every row of a file without a `type` column (`--type`).
  public var csvDefaultType: String?
  /// CSV input: the source name of rows without one (default: the file's base name).
  public var csvDefaultSourceName: String?
  /// Pass over damaged top-level elements (reported through `onSkip` and
  /// ``ReadReport/skipped``) instead of stopping at the first.
  public var skipInvalid = false
  /// Called with each skip as it happens (`path:line:col: error: …`).
  public var onSkip: (@Sendable (String) -> Void)?
  /// Build elements and run the sink on a second thread while libxml2 parses (XML inputs): the
  /// two then share the cores instead of taking turns. On by default when the machine has more
  /// than one processor; the environment variable `HEALTHPORT_THREADS` overrides that (`1`: one
  /// thread, `2`: two). The sink is still called from one thread at a time, in document order.
  public var concurrent = ReadOptions.concurrentByDefault

  static let concurrentByDefault: Bool = {
    if let threads = getenv("HEALTHPORT_THREADS"), let count = Int(String(cString: threads)), count > 0 {
      return count > 1
    }
    return sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1
  }()

  public init() {}
}
