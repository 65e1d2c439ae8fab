/// The output formats of the core library, as ``FormatRegistry/standard`` lists them.
extension OutputFormat {
  static let csv = OutputFormat(
    name: "csv", summary: "one table of records, or with --split a folder of tables holding everything",
    options: [.split]
  ) { request in
    if request.flag(OutputFormatOption.split.name), let path = request.path {
      return SplitFolderFormatWriter(try CSVSplitWriter(directory: path, protecting: request.input))
    }
    return try StreamFormatWriter(request) { CSVRecordsWriter(output: $0) }
  }

  static let jsonl = OutputFormat(name: "jsonl", summary: "JSON Lines, lossless: one element per line") { request in
    try StreamFormatWriter(request) { JSONLinesWriter(output: $0, style: .lines) }
  }

  static let json = OutputFormat(name: "json", summary: "one JSON document, lossless") { request in
    try StreamFormatWriter(request) { JSONLinesWriter(output: $0, style: .document) }
  }

  static let xml = OutputFormat(name: "xml", summary: "the export XML format, byte-faithful") { request in
    try StreamFormatWriter(request) { XMLExportWriter(output: $0) }
  }
}

extension OutputFormatOption {
  /// `--to csv --split`: a folder of tables holding the whole export.
  static let split = OutputFormatOption(
    name: "--split", help: "CSV only: a folder of tables (needs -o DIR).", needsPath: true,
    missingPathMessage: "--split writes a folder of tables: give it with -o DIR")
}

/// A format written as one stream: to `-o PATH` (atomically: nothing appears there unless the
/// conversion succeeds) or to stdout.
final class StreamFormatWriter: FormatWriter {
  let output: OutputStream
  let sink: ExportSink

  init(_ request: OutputRequest, sink makeSink: (OutputStream) -> ExportSink) throws {
    output = try request.path.map { try OutputStream(path: $0, protecting: request.input) } ?? OutputStream()
    sink = makeSink(output)
  }

  func commit() throws { try output.commit() }
  func abort() { output.abort() }
}

/// `--split`'s folder of tables, which the writer itself moves into place at the end of the read.
final class SplitFolderFormatWriter: FormatWriter {
  private let writer: CSVSplitWriter

  init(_ writer: CSVSplitWriter) { self.writer = writer }

  var sink: ExportSink { writer }
  func commit() throws {}
  func abort() { writer.abort() }
}
