import Foundation

/// A throwaway PostgreSQL cluster for one test: `initdb` into a temporary folder (as `nobody` when
/// the tests run as root, since the server refuses root), the server listening only on a Unix
/// socket in that folder (no TCP), stopped and removed by ``with(_:)`` however the test ends.
///
/// Roles: the superuser `postgres` logs in without a password; every other role needs its password
/// (SCRAM), so the tests can see a wrong one refused.
public final class PostgresCluster {
  /// The folder holding the data directory, the socket and the log.
  public let folder: URL
  public let binaries: URL
  private var running = false

  /// The folder of `initdb`, `pg_ctl` and `psql`: `HEALTHPORT_PG_BIN`, else the newest
  /// `/usr/lib/postgresql/*/bin`.
  public static var binaryFolder: URL? {
    if let path = ProcessInfo.processInfo.environment["HEALTHPORT_PG_BIN"] { return URL(fileURLWithPath: path) }
    let root = "/usr/lib/postgresql"
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
    for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
      let bin = URL(fileURLWithPath: "\(root)/\(version)/bin")
      if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
    }
    return nil
  }

  public static var isAvailable: Bool { binaryFolder != nil }

  /// True when PostGIS is installed for the server of ``binaryFolder`` (Debian's
  /// `postgresql-15-postgis-3`).
  public static var hasPostGIS: Bool {
    guard let version = binaryFolder?.deletingLastPathComponent().lastPathComponent else { return false }
    return FileManager.default.fileExists(atPath: "/usr/share/postgresql/\(version)/extension/postgis.control")
  }

  public static let skipMessage =
    "PostgreSQL's server binaries are absent (scripts/install-deps.sh installs postgresql-15): skipped "
    + "(CI sets HEALTHPORT_REQUIRE_FIXTURES=1 and fails instead)"

  /// The socket folder as a libpq URI for `database` as `user` (password optional).
  public func uri(database: String = "health", user: String = "postgres", password: String? = nil) -> String {
    let login = password.map { "\(user):\($0)" } ?? user
    return "postgresql://\(login)@/\(database)?host=\(folder.path)"
  }

  private init(folder: URL, binaries: URL) {
    self.folder = folder
    self.binaries = binaries
  }

  /// Runs `body` with a new running cluster holding an empty database `health`; stops and removes
  /// the cluster afterwards, also when `body` throws.
  public static func with<T>(_ body: (PostgresCluster) throws -> T) throws -> T {
    guard let binaries = binaryFolder else { throw ClusterError(message: skipMessage) }
    let folder = URL(fileURLWithPath: "/tmp/healthport-pg-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let cluster = PostgresCluster(folder: folder, binaries: binaries)
    defer {
      cluster.stop()
      try? FileManager.default.removeItem(at: folder)
    }
    try cluster.start()
    return try body(cluster)
  }

  private static var isRoot: Bool { getuid() == 0 }

  /// Runs a server binary (as `nobody` when root); throws with its output when it fails.
  @discardableResult
  public func runServerTool(_ tool: String, _ arguments: [String]) throws -> String {
    let path = binaries.appendingPathComponent(tool).path
    let command = Self.isRoot ? ["/usr/sbin/runuser", "-u", "nobody", "--", path] + arguments : [path] + arguments
    let result = try Self.run(command)
    guard result.status == 0 else {
      throw ClusterError(message: "\(tool) failed (\(result.status)): \(result.output)")
    }
    return result.output
  }

  private func start() throws {
    if Self.isRoot { _ = try Self.run(["/bin/chown", "nobody:nogroup", folder.path]) }
    let data = folder.appendingPathComponent("data").path
    try runServerTool(
      "initdb", ["-D", data, "-U", "postgres", "--auth-local=trust", "--encoding=UTF8", "--locale=C.UTF-8", "-N"])
    let hba = "local all postgres trust\nlocal all all scram-sha-256\n"
    try Self.writeAsServer(hba, to: "\(data)/pg_hba.conf")
    try runServerTool(
      "pg_ctl",
      [
        "-D", data, "-l", folder.appendingPathComponent("log").path, "-w", "-t", "120", "-o",
        "-c listen_addresses='' -k \(folder.path) -c fsync=on", "start",
      ])
    running = true
    try psql("CREATE DATABASE health", database: "postgres")
  }

  private static func writeAsServer(_ text: String, to path: String) throws {
    try text.write(toFile: path, atomically: false, encoding: .utf8)
  }

  /// Stops the server (fast shutdown); does nothing when it is not running.
  public func stop() {
    guard running else { return }
    running = false
    _ = try? runServerTool(
      "pg_ctl", ["-D", folder.appendingPathComponent("data").path, "-m", "fast", "-w", "-t", "60", "stop"])
  }

  /// Runs `sql` with psql as the superuser in `database`; returns its unaligned, tuples-only output.
  @discardableResult
  public func psql(_ sql: String, database: String = "health", csv: Bool = false) throws -> String {
    let result = try Self.run(
      [
        binaries.appendingPathComponent("psql").path, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", folder.path,
        "-U", "postgres", "-d", database, "-At", "-c", sql,
      ] + (csv ? ["--csv"] : []))
    guard result.status == 0 else { throw ClusterError(message: "psql failed: \(result.output)") }
    return result.output
  }

  /// Starts psql running `sql` as the superuser in `database`, without waiting: returns its
  /// process id, for ``finish(_:)``.
  public func startPSQL(_ sql: String, database: String = "health") throws -> pid_t {
    try Self.spawn(
      [
        binaries.appendingPathComponent("psql").path, "-X", "-q", "-h", folder.path, "-U", "postgres", "-d",
        database, "-c", sql,
      ], output: "/dev/null")
  }

  /// Waits for a process of ``startPSQL(_:database:)`` (or any child) to end; returns its status.
  @discardableResult
  public static func finish(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
  }

  /// Starts `command` with stdin from /dev/null and stdout and stderr into `output`.
  public static func spawn(_ command: [String], output: String) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let arguments = command.map { strdup($0) } + [nil]
    defer { for argument in arguments { free(argument) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, command[0], &actions, nil, arguments, environ)
    guard rc == 0 else { throw ClusterError(message: "cannot run \(command[0]): \(String(cString: strerror(rc)))") }
    return pid
  }

  /// Runs `command`; returns its status and its stdout and stderr together. Spawned and reaped
  /// directly (`posix_spawn`, `waitpid`): `pg_ctl start` leaves a server running that Foundation's
  /// `Process` would wait for.
  static func run(_ command: [String]) throws -> (status: Int32, output: String) {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pg-run-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let status = finish(try spawn(command, output: scratch.path))
    return (status, (try? String(contentsOf: scratch, encoding: .utf8)) ?? "")
  }

  public struct ClusterError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
  }
}
