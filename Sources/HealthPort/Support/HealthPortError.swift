/// An error healthport reports, as fields: where (file, line, column, each when known) and a
/// message in neutral words; inside the package also what kind of problem and what is wrong as
/// data (`kind`, `reason`).
///
/// The library never names a command-line option, nor picks an exit code: the command-line tool
/// turns `kind` into the exit code and `reason` into the words a person reads (one function,
/// docs/errors.md). ``description`` prints the neutral form: `path:line:col: error: message`,
/// `path: error: message`, or `error: message` when no file is involved.
public struct HealthPortError: Error, CustomStringConvertible, Sendable {
  package enum Kind: Sendable, Equatable {
    /// A bad command line; thrown by the command-line tool only.
    case usage
    /// A value the caller chose cannot be used: a name, a date, an output path.
    case badRequest
    /// Missing or unreadable input, or a failed write.
    case failure
    /// Malformed or unusable input data.
    case malformed
  }

  package var kind: Kind
  /// The file the problem is in or about (a path, `<stdin>`, `archive.zip:member.xml`); nil when
  /// it concerns no file (an option's value, a sample's contents).
  public var file: String?
  /// 1-based; nil when not known.
  public var line: Int?
  /// 1-based (a field number for CSV); nil when not known.
  public var column: Int?
  /// What is wrong, as data; nil when ``message`` says it all in words that name no option.
  package var reason: Reason?
  /// The problem in neutral words (no option names).
  public var message: String

  package init(_ kind: Kind, file: String? = nil, line: Int? = nil, column: Int? = nil, message: String) {
    self.kind = kind
    self.file = file
    self.line = line
    self.column = column
    self.message = message
  }

  /// An error that carries its reason; its kind and neutral message follow from it.
  package init(_ reason: Reason, file: String? = nil, line: Int? = nil, column: Int? = nil) {
    self.init(reason.kind, file: file, line: line, column: column, message: reason.neutralMessage)
    self.reason = reason
  }

  /// A located input problem.
  package static func malformed(_ path: String, line: Int, column: Int, _ message: String) -> HealthPortError {
    HealthPortError(.malformed, file: path, line: line, column: column, message: message)
  }

  /// `path:line:column: error: message`, or as much of it as is known.
  public var description: String { located(message) }

  /// `message` after this error's location: `path:line:col: error: message`, `path: error:
  /// message` or `error: message`.
  package func located(_ message: String) -> String {
    guard let file else { return "error: \(message)" }
    guard let line else { return "\(file): error: \(message)" }
    return "\(file):\(line):\(column.map { "\($0):" } ?? "") error: \(message)"
  }
}
