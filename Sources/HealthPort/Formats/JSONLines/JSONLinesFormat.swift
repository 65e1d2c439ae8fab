/// JSON Lines and the JSON document: how `convert --to` writes it and how an input is recognised
/// as it, registered in ``FormatRegistry/standard``.
extension OutputFormat {
  static let jsonl = OutputFormat(name: "jsonl", summary: "JSON Lines, lossless: one element per line") { request in
    try StreamFormatWriter(request) { JSONLinesWriter(output: $0, style: .lines) }
  }

  static let json = OutputFormat(name: "json", summary: "one JSON document, lossless") { request in
    try StreamFormatWriter(request) { JSONLinesWriter(output: $0, style: .document) }
  }
}

extension StreamInputFormat {
  /// healthport's JSON Lines or JSON document: the first byte that is not white space is `{`.
  static let json = StreamInputFormat(
    format: .jsonl,
    recognise: { head in head.firstNonBlankByte.map { $0 == UInt8(ascii: "{") ? .yes : .no } ?? head.undecided },
    isContainer: false,
    read: { stream, options, sink in try JSONLinesReader(source: stream.source, options: options).read(into: sink) })
}
