import XMLStream

extension XMLStreamError {
  /// The error as healthport reports bad input: `path:line:col: error: message` (exit 65).
  var malformed: HealthPortError { .malformed(documentName, line: line, column: column, message) }

  /// What a reader throws when the parser stopped: the error of the builder or handler that
  /// stopped it, as it is, unless it is about the input (``ExportDataError``,
  /// ``ExportLimitError``), which is worded at its place like a parse error (``malformed``).
  var readerError: any Error {
    if let underlying, !(underlying is ExportDataError || underlying is ExportLimitError) { return underlying }
    return malformed
  }
}
