/// An error healthport reports to a person: `path:line:col: error: message` (or `path: error: …`
/// when there is no position), with the exit code its kind calls for.
public struct HealthPortError: Error, CustomStringConvertible, Sendable {
  public enum Kind: Sendable {
    /// A bad command line (exit 64).
    case usage
    /// Missing or unreadable input, or a failed write (exit 1).
    case failure
    /// Malformed or unusable input data (exit 65).
    case malformed
  }

  public let kind: Kind
  public let message: String

  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  /// A located input problem.
  public static func malformed(_ path: String, line: Int, column: Int, _ message: String) -> HealthPortError {
    HealthPortError(.malformed, "\(path):\(line):\(column): error: \(message)")
  }

  public var exitCode: Int32 {
    switch kind {
    case .usage: 64
    case .failure: 1
    case .malformed: 65
    }
  }

  public var description: String { message }
}
