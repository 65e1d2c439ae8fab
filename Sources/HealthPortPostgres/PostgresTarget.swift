import HealthPort
import PostgresClient

/// A `--db` that names a PostgreSQL database, and the errors a person reads about it.
package enum PostgresTarget {
  /// True when `--db` is a libpq URI (`postgresql://…` or `postgres://…`); anything else is a
  /// SQLite path.
  package static func isURI(_ database: String) -> Bool {
    database.hasPrefix("postgresql://") || database.hasPrefix("postgres://")
  }

  /// The URI as messages show it: without a password (in the user part or as `password=`).
  package static func redacted(_ uri: String) -> String {
    var text = uri
    if let scheme = text.firstRange(of: "://") {
      let rest = text[scheme.upperBound...]
      let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
      let authority = rest[..<authorityEnd]
      if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
        text.replaceSubrange(colon..<at, with: "")
      }
    }
    if let query = text.firstIndex(of: "?") {
      let parameters = text[text.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false)
      let kept = parameters.map { $0.hasPrefix("password=") ? "password=…" : String($0) }
      text = String(text[...query]) + kept.joined(separator: "&")
    }
    return text
  }

  /// An error as `healthport load: error: …`.
  static func failure(_ message: String) -> HealthPortError {
    HealthPortError(.failure, file: "healthport load", message: message)
  }

  static func failure(_ reason: HealthPortError.Reason) -> HealthPortError {
    HealthPortError(reason, file: "healthport load")
  }

  /// Connects to `uri`, turning libpq's failures into one line naming the server.
  static func connect(_ uri: String) throws -> PGConnection {
    do {
      return try PGConnection(conninfo: uri)
    } catch let error as PGError {
      throw connectionError(error, uri: uri)
    }
  }

  /// What a failed connection means, in one line.
  static func connectionError(_ error: PGError, uri: String) -> HealthPortError {
    let server = redacted(uri)
    let message = error.message
    if message.contains("password authentication failed") || message.contains("no password supplied")
      || message.contains("authentication failed")
    {
      return failure(
        "the PostgreSQL server of \(server) refused the login (\(message)); give the password in the URI, "
          + "in PGPASSWORD or in ~/.pgpass")
    }
    if message.contains("does not exist") {
      return failure("the PostgreSQL server of \(server) answered: \(message); create it first (createdb)")
    }
    if message.contains("Connection refused") || message.contains("No such file or directory")
      || message.contains("could not connect") || message.contains("could not translate host name")
      || message.contains("timeout expired")
    {
      return failure(
        "cannot reach the PostgreSQL server of \(server) (\(message)): is it running, and are the host, "
          + "port or socket folder right?")
    }
    return failure("cannot connect to the PostgreSQL server of \(server): \(message)")
  }

  /// A server error during a load, in one line naming the server; the load was rolled back.
  static func storeError(_ error: PGError, uri: String, schema: String) -> HealthPortError {
    let server = redacted(uri)
    if error.isConnection {
      return failure(
        "lost the connection to the PostgreSQL server of \(server) (\(error.message)); the export in flight "
          + "was rolled back: run the load again")
    }
    if error.isPermission {
      return failure(
        "the PostgreSQL server of \(server) refused: \(error.message); the role needs CREATE on the "
          + "database (to create schema \(schema)) or on schema \(schema); nothing was changed")
    }
    return failure(
      "the PostgreSQL server of \(server) refused the load: \(error.description); nothing of this export was kept")
  }
}
