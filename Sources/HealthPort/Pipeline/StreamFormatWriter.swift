/// A format written as one stream: to `-o PATH` (atomically: nothing appears there unless the
/// conversion succeeds) or to stdout.
final class StreamFormatWriter: FormatWriter {
  let output: OutputStream
  let sink: ExportSink
  let heldElements: Set<String>?

  init(
    _ request: OutputRequest, holding heldElements: Set<String>? = nil, sink makeSink: (OutputStream) -> ExportSink
  ) throws {
    output = try request.path.map { try OutputStream(path: $0, protecting: request.input) } ?? OutputStream()
    sink = makeSink(output)
    self.heldElements = heldElements
  }

  func commit() throws { try output.commit() }
  func abort() { output.abort() }
  func warnings(_ report: ReadReport) -> [String] {
    readWarnings(report) + ((sink as? WriterWarnings)?.writerWarnings ?? [])
  }
}
