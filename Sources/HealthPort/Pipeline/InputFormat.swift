import ZipStream

/// What an input turned out to be (``ReadReport/format``, `info`'s `input.format`).
public enum InputFormat: String, Sendable {
  case xml, zip, folder
  /// A CSV table, or a `convert --split` folder of CSV tables.
  case csv
  case csvSplit = "csv-split"
  /// healthport's JSON Lines, or its JSON document.
  case jsonl, json
}

/// A format healthport reads from a byte stream (a file, stdin, bytes in memory): how the
/// stream's first bytes are recognised as it, and its reader. Adding an input format is one
/// entry in ``all``.
struct StreamInputFormat: Sendable {
  /// What it is reported as (the JSON reader itself tells JSON Lines from a JSON document).
  let format: InputFormat
  /// Decides from the stream's first bytes; the same for a path and for stdin.
  let recognise: @Sendable (InputHead) -> InputHead.Recognition
  /// A container is opened by path or file descriptor to find the export inside, so it cannot
  /// come from memory.
  let isContainer: Bool
  let read: @Sendable (RecognisedStream, ReadOptions, ExportSink) throws -> ReadReport

  /// Asked in this order. A stream that none recognises is read as XML: its parser names the
  /// problem.
  static let all: [StreamInputFormat] = [zip, csv, json, xml]
  static let fallback = xml

  static let zip = StreamInputFormat(
    format: .zip,
    recognise: { head in ZipArchiveReader.hasSignature(head.bytes[...]).map { $0 ? .yes : .no } ?? head.undecided },
    isContainer: true,
    read: { stream, options, sink in
      let member = try ExportFinder.exportMember(of: stream)
      return try XMLExportReader(options: options).read(member, format: .zip, into: sink)
    })

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

  /// healthport's JSON Lines or JSON document: the first byte that is not white space is `{`.
  static let json = StreamInputFormat(
    format: .jsonl,
    recognise: { head in head.firstNonBlankByte.map { $0 == UInt8(ascii: "{") ? .yes : .no } ?? head.undecided },
    isContainer: false,
    read: { stream, options, sink in try JSONLinesReader(source: stream.source, options: options).read(into: sink) })

  static let xml = StreamInputFormat(
    format: .xml, recognise: XMLExportReader.recognise, isContainer: false,
    read: { stream, options, sink in try XMLExportReader(options: options).read(stream.source, format: .xml, into: sink)
    }
  )
}
