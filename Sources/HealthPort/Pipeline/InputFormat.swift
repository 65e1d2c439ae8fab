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
/// stream's first bytes are recognised as it, and its reader. Each is defined in its folder under
/// `Formats/`; adding one is one entry in ``FormatRegistry/standard``.
struct StreamInputFormat: Sendable {
  /// What it is reported as (the JSON reader itself tells JSON Lines from a JSON document).
  let format: InputFormat
  /// Decides from the stream's first bytes; the same for a path and for stdin.
  let recognise: @Sendable (InputHead) -> InputHead.Recognition
  /// A container is opened by path or file descriptor to find the export inside, so it cannot
  /// come from memory.
  let isContainer: Bool
  let read: @Sendable (RecognisedStream, ReadOptions, ExportSink) throws -> ReadReport
}

/// A format healthport reads from a folder given by path: how the folder is recognised as it, and
/// its reader. Each is defined in its folder under `Formats/`; adding one is one entry in
/// ``FormatRegistry/standard``.
struct FolderInputFormat: Sendable {
  /// Reads an opened folder into a sink.
  typealias Read = (ReadOptions, ExportSink) throws -> ReadReport

  /// What it is reported as.
  let format: InputFormat
  /// Decides from the folder's content.
  let recognise: @Sendable (String) -> Bool
  /// Finds what the folder holds to read (an error when it holds nothing to read), and returns
  /// its reader.
  let open: @Sendable (String) throws -> Read
}
