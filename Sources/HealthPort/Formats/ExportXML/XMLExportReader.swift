import XMLStream

/// Reads Apple's export XML as a stream through libxml2's SAX2 push parser (``XMLPushParser``),
/// handing each top-level element to a sink as soon as its end tag is read. Memory stays flat
/// whatever the input size. ``ExportReader`` opens the input and calls it.
struct XMLExportReader {
  let options: ReadOptions

  /// Recognised by its first byte that is not white space (after a UTF-8 byte order mark): `<`.
  /// Anything no format recognises is read as XML too, so that the parser names the problem.
  static func recognise(_ head: InputHead) -> InputHead.Recognition {
    head.firstNonBlankByte.map { $0 == UInt8(ascii: "<") ? .yes : .no } ?? head.undecided
  }

  /// Reads `source` into `sink` with one parser; `format` is what the report names (`xml`, or
  /// the `zip` or `folder` the document was found in).
  func readInSequence(_ source: ByteSource, format: InputFormat, into sink: ExportSink) throws -> ReadReport {
    let builder = ElementBuilder()
    builder.interest = sink.interest
    let parser = XMLPushParser(
      documentName: source.displayName, handler: XMLElementFeed(builder), concurrent: options.concurrent)
    var report = ReadReport(documentName: source.displayName, format: format)
    // Set from the builder's callbacks, which may run on the handler thread while this one
    // updates `report`: kept apart, and read after the parser has finished.
    var hasBrokenDTD = false
    var skipped: [String] = []
    builder.onRoot = { name, attributes in
      guard name == "HealthData" else {
        throw ExportDataError(
          message: "not an Apple Health export: the root element is <\(name)>, expected <HealthData>")
      }
      let prolog = parser.prologBytes
      hasBrokenDTD = XMLExportReader.isBrokenDTD(prolog)
      try sink.begin(ExportHeader(prolog: prolog, rootAttributes: attributes, rootName: name))
    }
    builder.onElement = { try sink.consume($0) }
    // The closures capture the parser, which holds the builder: break the cycle so that the
    // parser and the sink are released, also when the read fails.
    defer {
      builder.onRoot = { _, _ in }
      builder.onElement = { _ in }
    }

    let recovery = options.skipInvalid ? DamageRecovery(parser: parser, builder: builder) : nil
    if let recovery {
      builder.skipInvalid = true
      builder.onSkip = { [options] message in
        let current = recovery.parser
        let located = "\(source.displayName):\(current.line):\(current.column): error: \(message); skipped the element"
        skipped.append(located)
        options.onSkip?(located)
      }
    }
    defer { builder.onSkip = { _ in } }
    if let locating = sink as? ElementLocating {
      locating.documentName = source.displayName
      locating.locate = { [unowned parser] in
        let current = recovery?.parser ?? parser
        return (current.line, current.column)
      }
    }
    defer { (sink as? ElementLocating)?.locate = nil }
    // Runs first on the way out: no callback may still be running when the closures are reset.
    defer {
      recovery?.parser.waitForHandler()
      parser.waitForHandler()
    }

    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: options.chunkSize, alignment: 64)
    defer { buffer.deallocate() }
    do {
      while true {
        let count = try source.read(into: buffer)
        if count == 0 { break }
        report.documentBytes += Int64(count)
        let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
        if let recovery {
          try recovery.feed(chunk) {
            skipped.append($0)
            self.options.onSkip?($0)
          }
        } else {
          try parser.feed(chunk)
        }
        options.progress?(source.bytesConsumed, source.totalBytes)
      }
      if let recovery {
        try recovery.finish {
          skipped.append($0)
          self.options.onSkip?($0)
        }
      } else {
        try parser.finish()
      }
    } catch let error as XMLStreamError {
      throw error.readerError
    }
    report.hasBrokenDTD = hasBrokenDTD
    report.skipped = skipped
    var counts = RangeCounts(builder, parser)
    // A recovering read filtered the bytes itself.
    counts.removedControlCharacters = recovery?.removedControlCharacters ?? parser.removedControlCharacters
    counts.firstControlCharacterOffset = recovery?.firstControlCharacterOffset ?? parser.firstControlCharacterOffset
    report.take(counts)
    try sink.end(report)
    return report
  }

  /// The iOS 16.0 DTD leaves `VisionPrescription`'s ATTLIST unclosed, so `<!ELEMENT RightEye`
  /// follows an attribute line instead of a `>` (README, "How the reader treats Apple's quirks").
  static func isBrokenDTD(_ prolog: [UInt8]) -> Bool {
    let needle = Array("<!ELEMENT RightEye".utf8)
    guard prolog.count >= needle.count else { return false }
    for start in 0...(prolog.count - needle.count)
    where prolog[start] == needle[0] && prolog[start..<(start + needle.count)].elementsEqual(needle) {
      var before = start - 1
      while before >= 0, [0x20, 0x0A, 0x0D, 0x09].contains(prolog[before]) { before -= 1 }
      return before >= 0 && prolog[before] != UInt8(ascii: ">")
    }
    return false
  }
}
