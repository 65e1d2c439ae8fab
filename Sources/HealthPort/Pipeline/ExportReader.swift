/// Reads an Apple Health export, or healthport's own JSON Lines, JSON or CSV, into a sink: the
/// pipeline's front door. It opens the input, recognises its format once (`InputRecognizer`:
/// by content, never by the file name) and hands it to that format's reader. Every reader streams:
/// memory stays flat whatever the input size.
public final class ExportReader {
  package let path: String?
  package var options: ReadOptions

  /// `path` may name an `export.xml`, an `export.zip`, an unzipped export folder, a JSON Lines,
  /// JSON or CSV file written by healthport (or a CSV from another tool), a `--split` folder, or
  /// be nil or `-` for stdin, which is recognised the same way.
  public init(path: String?, options: ReadOptions = ReadOptions()) {
    self.path = path
    self.options = options
    memory = nil
  }

  /// Reads an export (XML, healthport's JSON Lines / JSON, or CSV; not a zip) held in memory;
  /// `name` is used in messages. For library users and the fuzz targets.
  public init(bytes: [UInt8], name: String, options: ReadOptions = ReadOptions()) {
    path = nil
    self.options = options
    memory = (bytes, name)
  }

  private let memory: (bytes: [UInt8], name: String)?

  /// Reads the whole export into `sink`; returns what was seen. Throws ``HealthPortError``.
  @discardableResult
  public func read(into sink: ExportSink) throws -> ReadReport {
    let input =
      try memory.map { try InputRecognizer.recognise(bytes: $0.bytes, name: $0.name) }
      ?? InputRecognizer.open(path)
    return try input.read(options: options, into: sink)
  }
}
