import ZipStream

/// What an input turned out to be (``ReadReport/format``, `info`'s `input.format`).
package enum InputFormat: String, Sendable {
  case xml, zip, folder
  /// A CSV table, or a `convert --split` folder of CSV tables.
  case csv
  case csvSplit = "csv-split"
  /// healthport's JSON Lines, or its JSON document.
  case jsonl, json
  /// A GPX route or an ECG recording's CSV given on its own.
  case gpx, ecg
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

  /// Asked in this order (each format's entry is defined in its folder under `Formats/`). A stream that none recognises is read as XML: its parser names the
  /// problem.
  static let all: [StreamInputFormat] = [zip, ecg, csv, json, gpx, xml]
  static let fallback = xml

  static let zip = StreamInputFormat(
    format: .zip,
    recognise: { head in ZipArchiveReader.hasSignature(head.bytes[...]).map { $0 ? .yes : .no } ?? head.undecided },
    isContainer: true,
    read: { stream, options, sink in
      if sink.capabilities.contains(.sideFiles) {
        return try BundleReader.readZip(stream, options: options, into: sink)
      }
      return try ExportFinder.readExportMember(of: stream) {
        try XMLExportReader(options: options).read($0, format: .zip, into: sink)
      }
    })

}
