import Testing
import XMLStream

@testable import HealthPort

/// A handler's own error, which is not about the input.
private struct HandlerFailure: Error, Sendable, Equatable {
  let code: Int
}

@Suite("A parse error as every XML reader reports it")
struct XMLStreamErrorReadingTests {
  static func error(underlying: (any Error & Sendable)?) -> XMLStreamError {
    XMLStreamError(documentName: "export.xml", line: 12, column: 7, message: "a message", underlying: underlying)
  }

  @Test("a parse error, or one about the input, is malformed input at its place (exit 65)")
  func aboutTheInput() throws {
    for underlying: (any Error & Sendable)? in [
      nil, ExportDataError(message: "bad date"), ExportLimitError(message: "too deep"),
    ] {
      let thrown = try #require(Self.error(underlying: underlying).readerError as? HealthPortError)
      #expect(thrown.description == "export.xml:12:7: error: a message")
      #expect(thrown.kind == .malformed)
    }
  }

  @Test("a handler's own error passes as it is")
  func handlersOwn() {
    let thrown = Self.error(underlying: HandlerFailure(code: 3)).readerError
    #expect(thrown as? HandlerFailure == HandlerFailure(code: 3))
  }

  @Test("located: always malformed, whatever stopped the parser")
  func located() {
    let error = Self.error(underlying: HandlerFailure(code: 3)).malformed
    #expect(error.description == "export.xml:12:7: error: a message")
    #expect(error.kind == .malformed)
  }
}
