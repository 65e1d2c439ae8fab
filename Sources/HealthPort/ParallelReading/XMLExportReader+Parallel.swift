extension XMLExportReader {
  /// Reads a recognised stream: a regular file (or bytes in memory) larger than one range is
  /// split by offset, anything else is cut as it streams (``ParallelExportReader``).
  func read(_ stream: RecognisedStream, format: InputFormat, into sink: ExportSink) throws -> ReadReport {
    if parallel, let document = document(stream), document.size > options.rangeSize {
      return try ParallelExportReader(document: document, options: options, format: format).read(into: sink)
    }
    return try read(stream.source, format: format, into: sink)
  }

  /// Reads `source`, the export file of a folder: by offset, as a file given by its path is read,
  /// when it is a regular file larger than one range (no range is copied out of the stream: about
  /// 4 MB less at peak with two threads); else as a stream.
  func read(file source: ByteSource, format: InputFormat, into sink: ExportSink) throws -> ReadReport {
    if parallel, let document = (source as? FileByteSource)?.document(), document.size > options.rangeSize {
      return try ParallelExportReader(document: document, options: options, format: format).read(into: sink)
    }
    return try read(source, format: format, into: sink)
  }

  /// Reads `source` (a zip member, stdin, a pipe, a file in a folder) with several parsers when
  /// more than one thread may be used, else with one.
  func read(_ source: ByteSource, format: InputFormat, into sink: ExportSink) throws -> ReadReport {
    guard parallel else { return try readInSequence(source, format: format, into: sink) }
    return try ParallelExportReader(.stream(source), options: options, format: format).read(into: sink)
  }

  /// More than one parser may run. `--skip-invalid` reads in sequence: its recovery restarts
  /// parsers where damage ends.
  private var parallel: Bool { options.concurrent && options.threads > 1 && !options.skipInvalid }

  private func document(_ stream: RecognisedStream) -> RandomAccessDocument? {
    if let path = stream.path { return FileDocument(path: path) }
    if let memory = (stream.source as? PrefixedByteSource)?.base as? MemoryByteSource {
      return MemoryDocument(bytes: memory.bytes, name: memory.displayName)
    }
    return nil
  }
}
