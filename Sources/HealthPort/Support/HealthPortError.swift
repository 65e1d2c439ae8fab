/// An error healthport reports to a person, as fields: what kind of problem (which picks the exit
/// code), where (file, line, column, each when known) and the message.
///
/// ``description`` prints `path:line:col: error: message`, `path: error: message`, or
/// `error: message` when no file is involved; the command-line tool puts `healthport <command>: `
/// in front of the last form. No message holds that wording itself.
public struct HealthPortError: Error, CustomStringConvertible, Sendable {
  package enum Kind: Sendable {
    /// A bad command line (exit 64).
    case usage
    /// Missing or unreadable input, or a failed write (exit 1).
    case failure
    /// Malformed or unusable input data (exit 65).
    case malformed

    /// The exit status this kind calls for (`sysexits.h`: 64 `EX_USAGE`, 65 `EX_DATAERR`).
    package var exitCode: Int32 {
      switch self {
      case .usage: 64
      case .failure: 1
      case .malformed: 65
      }
    }
  }

  package var kind: Kind
  /// The file the problem is in or about (a path, `<stdin>`, `archive.zip:member.xml`); nil when
  /// it concerns no file (an option's value, a sample's contents).
  public var file: String?
  /// 1-based; nil when not known.
  public var line: Int?
  /// 1-based (a field number for CSV); nil when not known.
  public var column: Int?
  /// What is wrong, in words.
  public var message: String

  package init(_ kind: Kind, file: String? = nil, line: Int? = nil, column: Int? = nil, message: String) {
    self.kind = kind
    self.file = file
    self.line = line
    self.column = column
    self.message = message
  }

  /// A located input problem.
  package static func malformed(_ path: String, line: Int, column: Int, _ message: String) -> HealthPortError {
    HealthPortError(.malformed, file: path, line: line, column: column, message: message)
  }

  package var exitCode: Int32 { kind.exitCode }

  /// `path:line:column: error: message`, or as much of it as is known.
  public var description: String {
    guard let file else { return "error: \(message)" }
    guard let line else { return "\(file): error: \(message)" }
    return "\(file):\(line):\(column.map { "\($0):" } ?? "") error: \(message)"
  }
}
