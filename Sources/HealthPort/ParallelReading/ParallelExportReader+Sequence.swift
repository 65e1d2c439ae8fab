import XMLStream

extension ParallelExportReader {
  /// Reads the rest of the document from `start` (a verified boundary: the line feed before a
  /// top-level element, or the end of the document) into `sink` with one parser, restarted there
  /// as after damage: fed the document's own root start tag on a line of its own, with a line
  /// offset that makes its positions the file's (`root.line`: where the root tag really is, for
  /// libxml2's messages that name it). Returns the document's size: `start` and the bytes read
  /// from there.
  func readInSequence(
    from start: Int, index: Int, lineFeeds: Int, root: (tag: [UInt8], line: Int), board: RangeBoard,
    into sink: ExportSink, counts: inout RangeCounts
  ) throws -> Int {
    let rootTag = root.tag
    board.stopParsers()
    let builder = ElementBuilder()
    builder.interest = sink.interest
    builder.resumeAfterDamage()
    builder.onElement = { try sink.consume($0) }
    let parser = XMLPushParser(
      documentName: displayName, handler: XMLElementFeed(builder), concurrent: options.concurrent)
    defer {
      parser.waitForHandler()
      builder.onElement = { _ in }
    }
    // The parser's line 1 holds the root tag and the boundary's line feed: the file's line there.
    parser.lineOffset = lineFeeds
    parser.rootLine = root.line
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: options.chunkSize, alignment: 64)
    defer { buffer.deallocate() }
    let source: ByteSource
    switch input {
    case .document(let document): source = DocumentByteSource(document, from: start)
    case .stream: source = RemainingRanges(board: board, from: index, name: displayName)
    }
    var bytes = start
    do {
      try rootTag.withUnsafeBytes { try parser.feed($0) }
      while true {
        let count = try source.read(into: buffer)
        if count == 0 { break }
        bytes += count
        try parser.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        options.progress?(source.bytesConsumed, source.totalBytes)
      }
      try parser.finish()
    } catch let error as XMLStreamError {
      throw error.readerError
    }
    counts.add(builder, parser, shift: start - rootTag.count)
    return bytes
  }
}
