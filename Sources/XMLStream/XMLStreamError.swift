/// A located problem in an XML document, printed as `path:line:col: error: message`.
public struct XMLStreamError: Error, CustomStringConvertible, Sendable {
  public let documentName: String
  public let line: Int
  public let column: Int
  public let message: String
  /// The handler's own error, when a handler stopped the parse.
  public let underlying: (any Error & Sendable)?

  public init(documentName: String, line: Int, column: Int, message: String, underlying: (any Error & Sendable)? = nil)
  {
    self.documentName = documentName
    self.line = line
    self.column = column
    self.message = message
    self.underlying = underlying
  }

  public var description: String { "\(documentName):\(line):\(column): error: \(message)" }
}
