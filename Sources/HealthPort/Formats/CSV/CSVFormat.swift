/// CSV: how `convert --to` writes it and how an input (a table, or a `--split` folder) is
/// recognised as it, registered in ``FormatRegistry/standard``.
extension OutputFormat {
  static let csv = OutputFormat(
    name: "csv", summary: "one table of records, or a folder of tables holding everything",
    options: [.split]
  ) { request in
    if request.flag(OutputFormatOption.split.name), let path = request.path {
      return SplitFolderFormatWriter(try CSVSplitWriter(directory: path, protecting: request.input))
    }
    return try StreamFormatWriter(request, holding: ["Record"]) { CSVRecordsWriter(output: $0) }
  }
}

extension OutputFormatOption {
  /// CSV as a folder of tables holding the whole export.
  static let split = OutputFormatOption(name: "split", help: "CSV only: a folder of tables.", needsPath: true)
}

/// `--split`'s folder of tables, which the writer itself moves into place at the end of the read.
final class SplitFolderFormatWriter: FormatWriter {
  private let writer: CSVSplitWriter

  init(_ writer: CSVSplitWriter) { self.writer = writer }

  var sink: ExportSink { writer }
  func commit() throws {}
  func abort() { writer.abort() }
  func describing(_ error: Error) -> Error { writer.describing(error) }
}

extension StreamInputFormat {
  /// healthport's single records table or a CSV from another tool (``CSVInput``).
  static let csv = StreamInputFormat(
    format: .csv, recognise: CSVInput.recognise, isContainer: false,
    read: { stream, options, sink in
      var options = options
      // Rows without a source are named after a regular file; from stdin or a pipe, `stdin`.
      if let path = stream.head.fileName, options.csvDefaultSourceName == nil {
        options.csvDefaultSourceName = CSVRecordsReader.baseName(path)
      }
      return try CSVRecordsReader(source: stream.source, options: options).read(into: sink)
    })
}

extension FolderInputFormat {
  /// A folder `convert --to csv --split` wrote (its `export.csv` has the export table's header).
  static let csvSplit = FolderInputFormat(
    format: .csvSplit, recognise: CSVInput.isSplitFolder,
    open: { path in
      var directory = path
      while directory.count > 1, directory.hasSuffix("/") { directory.removeLast() }
      return { [directory] options, sink in
        try CSVSplitReader(directory: directory, options: options).read(into: sink)
      }
    })
}
