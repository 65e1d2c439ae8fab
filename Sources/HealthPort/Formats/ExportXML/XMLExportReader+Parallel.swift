extension XMLExportReader {
  /// Reads a recognised stream: with ``ParallelExportReader`` when it is a regular file (or bytes
  /// in memory) larger than one range and more than one thread may be used, else in sequence.
  /// `--skip-invalid` reads in sequence: its recovery restarts parsers where damage ends.
  func read(_ stream: RecognisedStream, format: InputFormat, into sink: ExportSink) throws -> ReadReport {
    if let document = parallelDocument(stream) {
      return try ParallelExportReader(document: document, options: options, format: format).read(into: sink)
    }
    return try read(stream.source, format: format, into: sink)
  }

  private func parallelDocument(_ stream: RecognisedStream) -> RandomAccessDocument? {
    guard options.concurrent, options.threads > 1, !options.skipInvalid else { return nil }
    let document: RandomAccessDocument?
    if let path = stream.path {
      document = FileDocument(path: path)
    } else if let memory = (stream.source as? PrefixedByteSource)?.base as? MemoryByteSource {
      document = MemoryDocument(bytes: memory.bytes, name: memory.displayName)
    } else {
      document = nil
    }
    guard let document, document.size > options.rangeSize else { return nil }
    return document
  }
}
