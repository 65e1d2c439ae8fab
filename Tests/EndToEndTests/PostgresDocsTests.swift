import Foundation
import TestSupport
import Testing

/// The examples of docs/postgresql.md, read from the page itself and run against a throwaway
/// cluster (``PostgresCluster``) after loading `Samples/export.zip`.
///
/// Each example is a fence after a `<!-- tested: TAG -->` comment; the tag says what the test
/// checks. How the page's examples meet the test cluster, the one mapping:
/// - every URI `postgresql://[user[:password]@][host][:port]/dbname[?params]` loses its host and
///   port and gets `host=` the cluster's socket folder as its first parameter (its other
///   parameters kept): `postgresql://me@db.example.org/health?sslmode=require` runs as
///   `postgresql://me@/health?host=FOLDER&sslmode=require`; the lines the page expects on stderr
///   are mapped the same way;
/// - the role `me` exists, with the password `secret` in a password file (`PGPASSFILE`, as a user's
///   `~/.pgpass`);
/// - `export.zip` is `Samples/export.zip` (the commands run in a folder holding a copy);
/// - `createdb` and `psql` run as the cluster's superuser over its socket.
///
/// The situations of the error examples (the server stopped, a role without `CREATE`, another
/// session holding the schema's lock) are the test's; each error example is a command after `$`
/// and the lines it prints, where `…` stands for any text (the server's words).
@Suite("docs/postgresql.md: its examples run as the page says", .needsPostgres, .serialized)
struct PostgresDocsTests {
  static let page = Harness.repoRoot.appendingPathComponent("docs/postgresql.md")

  /// What each tag of the page means to the test; every tag must be on the page once.
  static let knownTags: Set<String> = [
    "commands", "sql recent", "sql steps per day", "sql heart rate per day", "postgis commands", "sql postgis",
    "error server down", "error no database", "error wrong password", "error no permission",
    "error postgis refused", "error lock",
  ]

  /// A fenced block of a Markdown page, with the tag of the `<!-- tested: … -->` comment before it.
  struct Example {
    var file: String
    var line: Int
    var tag: String?
    var lines: [String]
  }

  /// Every fenced block of `url`, in order.
  static func examples(_ url: URL) throws -> [Example] {
    let text = try String(contentsOf: url, encoding: .utf8)
    var examples: [Example] = []
    var tag: String?
    var open: Example?
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      if var block = open {
        if line.hasPrefix("```") {
          examples.append(block)
          open = nil
        } else {
          block.lines.append(String(line))
          open = block
        }
      } else if line.hasPrefix("```") {
        open = Example(file: url.lastPathComponent, line: index + 1, tag: tag, lines: [])
        tag = nil
      } else if let match = line.wholeMatch(of: /<!-- tested: (.+) -->/) {
        tag = String(match.1)
      } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
        tag = nil  // a mark belongs to the fence right after it
      }
    }
    return examples
  }

  /// The page's examples by tag.
  static func tagged() throws -> [String: Example] {
    var byTag: [String: Example] = [:]
    for example in try examples(page) {
      guard let tag = example.tag else { continue }
      #expect(byTag[tag] == nil, "postgresql.md:\(example.line): tag \(tag) twice")
      byTag[tag] = example
    }
    return byTag
  }

  static func example(_ tag: String) throws -> Example {
    try #require(try tagged()[tag], "docs/postgresql.md has no example tagged \(tag)")
  }

  // MARK: The mapping

  /// A URI of the page on `cluster`: host and port dropped, `host=` the socket folder.
  static func onCluster(_ uri: String, _ cluster: PostgresCluster) -> String {
    guard let scheme = uri.range(of: "://") else { return uri }
    let rest = uri[scheme.upperBound...]
    let pathStart = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
    let authority = rest[..<pathStart]
    let login = authority.lastIndex(of: "@").map { String(authority[...$0]) } ?? ""
    let tail = rest[pathStart...]
    let path = tail.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    let parameters = (path.count == 2 ? path[1].split(separator: "&").map(String.init) : [])
      .filter { !$0.hasPrefix("host=") && !$0.hasPrefix("port=") }
    let query = (["host=\(cluster.folder.path)"] + parameters).joined(separator: "&")
    return String(uri[..<scheme.upperBound]) + login + String(path.first ?? "") + "?" + query
  }

  /// Every URI in `text` mapped by ``onCluster(_:_:)``.
  static func mapURIs(_ text: String, _ cluster: PostgresCluster) -> String {
    text.replacing(/postgres(ql)?:\/\/[^\s']+/) { onCluster(String($0.output.0), cluster) }
  }

  /// The words of a shell line as the shell splits them (single and double quotes, a `#` comment),
  /// leading `NAME=value` words as the environment.
  static func command(_ line: String) -> (environment: [String: String], words: [String]) {
    var words: [String] = []
    var word = ""
    var inWord = false
    var quote: Character?
    for character in line {
      if let open = quote {
        if character == open { quote = nil } else { word.append(character) }
      } else if character == "'" || character == "\"" {
        quote = character
        inWord = true
      } else if character == " " || character == "\t" {
        if inWord { words.append(word) }
        word = ""
        inWord = false
      } else if character == "#" && !inWord {
        break
      } else {
        word.append(character)
        inWord = true
      }
    }
    if inWord { words.append(word) }
    var environment: [String: String] = [:]
    while let first = words.first, let match = first.wholeMatch(of: /([A-Z_][A-Z0-9_]*)=(.*)/) {
      environment[String(match.1)] = String(match.2)
      words.removeFirst()
    }
    return (environment, words)
  }

  /// The folder the commands run in (`export.zip` a copy of the sample's) and the password file.
  struct Workplace {
    var folder: URL
    var passwords: URL

    init() throws {
      folder = try Harness.temporaryDirectory()
      try FileManager.default.copyItem(
        at: Harness.samples.appendingPathComponent("export.zip"), to: folder.appendingPathComponent("export.zip"))
      passwords = folder.appendingPathComponent("pgpass")
      _ = FileManager.default.createFile(
        atPath: passwords.path, contents: Data("*:*:*:me:secret\n".utf8), attributes: [.posixPermissions: 0o600])
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
  }

  /// Runs one shell line of the page on `cluster`; its status and its stderr.
  static func run(_ line: String, on cluster: PostgresCluster, in place: Workplace) throws -> (
    status: Int32, stderr: String
  ) {
    let (environment, words) = command(line)
    guard let program = words.first else { return (0, "") }
    let arguments = words.dropFirst().map { mapURIs($0, cluster) }
    switch program {
    case "healthport":
      let result = try Harness.run(
        arguments, in: place.folder, environment: environment.merging(["PGPASSFILE": place.passwords.path]) { $1 })
      return (result.status, result.stderr)
    case "createdb", "psql":
      let tool = cluster.binaries.appendingPathComponent(program).path
      let result = try Harness.runTool(tool, ["-h", cluster.folder.path, "-U", "postgres"] + arguments)
      return (result.status, result.output)
    default:
      Issue.record("no way to run \(program) of: \(line)")
      return (127, "")
    }
  }

  /// Runs every line of a commands example; each must succeed quietly but for the load's summary.
  static func runCommands(_ example: Example, on cluster: PostgresCluster, in place: Workplace) throws {
    for line in example.lines where !command(line).words.isEmpty {
      let result = try run(line, on: cluster, in: place)
      #expect(result.status == 0, "\(example.file):\(example.line): \(line)\n\(result.stderr)")
      #expect(
        !result.stderr.contains("error") && !result.stderr.contains("warning"),
        "\(example.file):\(example.line): \(line)\n\(result.stderr)")
    }
  }

  /// True when `text` is `pattern`, each `…` of it standing for any text.
  static func matches(_ text: String, _ pattern: String) -> Bool {
    let parts = pattern.components(separatedBy: "…")
    guard parts.count > 1 else { return text == pattern }
    var rest = Substring(text)
    guard rest.hasPrefix(parts[0]) else { return false }
    rest = rest.dropFirst(parts[0].count)
    for part in parts.dropFirst().dropLast() {
      guard let found = rest.range(of: part) else { return false }
      rest = rest[found.upperBound...]
    }
    return rest.hasSuffix(parts[parts.count - 1])
  }

  /// Runs the `$` command of an error example; expects exit 1 and the lines after it on stderr.
  static func expectError(_ tag: String, on cluster: PostgresCluster, in place: Workplace) throws {
    let example = try example(tag)
    let commands = example.lines.filter { $0.hasPrefix("$ ") }
    #expect(commands.count == 1, "\(example.file):\(example.line): one command after $")
    guard let line = commands.first else { return }
    let expected = example.lines.filter { !$0.hasPrefix("$ ") && !$0.isEmpty }.map { mapURIs($0, cluster) }
    let result = try run(String(line.dropFirst(2)), on: cluster, in: place)
    #expect(result.status == 1, "\(tag): exit \(result.status)\n\(result.stderr)")
    let actual = result.stderr.split(separator: "\n").map(String.init)
    let same = actual.count == expected.count && zip(actual, expected).allSatisfy { matches($0, $1) }
    let lines = expected.joined(separator: "\n")
    #expect(same, "\(example.file):\(example.line) (\(tag)) expects\n\(lines)\ngot\n\(result.stderr)")
  }

  // MARK: Independent answers

  /// From `Samples/export.xml` and the GPX files of `Samples/export.zip`, by Python: the top-level
  /// records, those that began within 7 days before each instant of `instants`, the average heart
  /// rate per local day (the first 10 characters of `startDate`), and each route's haversine length
  /// (R = 6,371,008.8 m), shortest first.
  static func independent(_ instants: [Double]) throws -> [String: Any] {
    try SQLiteExpectations.python(
      #"""
      import json, math, sys, zipfile
      import xml.etree.ElementTree as ET
      from datetime import datetime
      root = ET.parse(sys.argv[1]).getroot()
      instant = lambda text: datetime.strptime(text, "%Y-%m-%d %H:%M:%S %z").timestamp()
      records = [e for e in root if e.tag == "Record"]
      recent = [sum(1 for e in records if instant(e.get("startDate")) >= float(t) - 7 * 86400) for t in sys.argv[3:]]
      days = {}
      for e in records:
          if e.get("type") == "HKQuantityTypeIdentifierHeartRate":
              days.setdefault(e.get("startDate")[:10], []).append(float(e.get("value")))
      heart = [[day, sum(v) / len(v)] for day, v in sorted(days.items())]
      routes = []
      with zipfile.ZipFile(sys.argv[2]) as archive:
          for name in archive.namelist():
              if name.endswith(".gpx"):
                  points = [(math.radians(float(p.get("lat"))), math.radians(float(p.get("lon"))))
                            for p in ET.fromstring(archive.read(name)).iter() if p.tag.endswith("trkpt")]
                  metres = 0.0
                  for (a, b), (c, d) in zip(points, points[1:]):
                      h = math.sin((c - a) / 2) ** 2 + math.cos(a) * math.cos(c) * math.sin((d - b) / 2) ** 2
                      metres += 2 * 6371008.8 * math.asin(math.sqrt(h))
                  routes.append(metres)
      export = instant(root.find("ExportDate").get("value"))
      print(json.dumps({"records": len(records), "recent": recent, "heart": heart, "routes": sorted(routes),
                        "export": export}))
      """#,
      [
        Harness.samples.appendingPathComponent("export.xml").path,
        Harness.samples.appendingPathComponent("export.zip").path,
      ] + instants.map { String($0) })
  }

  /// The statements of a SQL example.
  static func statements(_ example: Example) -> [String] {
    example.lines.joined(separator: "\n").components(separatedBy: ";")
      .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
  }

  static func rows(_ cluster: PostgresCluster, _ sql: String) throws -> [[String]] {
    CSVTestParser.rows(try cluster.psql(sql, csv: true))
  }

  static func close(_ a: String, _ b: Double) -> Bool {
    guard let x = Double(a) else { return false }
    return abs(x - b) <= 1e-9 * max(abs(x), abs(b))
  }

  /// The rows of a command's CSV answer on the sample, without the header.
  static func answer(_ arguments: [String]) throws -> [[String]] {
    let result = try Harness.run(
      arguments + [Harness.samples.appendingPathComponent("export.zip").path, "--format", "csv"])
    #expect(result.status == 0, "\(arguments): \(result.stderr)")
    return Array(CSVTestParser.rows(result.stdoutText).dropFirst())
  }

  // MARK: The tests

  @Test("every example of the page is tagged, and every tag is one this test checks")
  func everyExampleTagged() throws {
    let examples = try Self.examples(Self.page)
    // The first fence is the command's synopsis.
    for example in examples.dropFirst() {
      #expect(example.tag != nil, "postgresql.md:\(example.line): an example no test runs")
    }
    let tags = examples.compactMap(\.tag)
    #expect(Set(tags) == Self.knownTags, "tags on the page: \(tags)")
    #expect(tags.count == Set(tags).count, "a tag twice: \(tags)")
  }

  @Test(
    "the commands load the sample (also the README's and other pages' PostgreSQL loads); the queries answer as the commands and Python do"
  )
  func commandsAndQueries() throws {
    let place = try Workplace()
    defer { place.remove() }
    // Every other page's fenced `healthport load … --db postgres…` line, run the same way.
    let pages =
      [Harness.repoRoot.appendingPathComponent("README.md")]
      + (try FileManager.default.contentsOfDirectory(
        at: Harness.repoRoot.appendingPathComponent("docs"), includingPropertiesForKeys: nil))
      .filter { $0.pathExtension == "md" && $0.lastPathComponent != "postgresql.md" }
    var elsewhere: [String] = []
    for page in pages {
      for example in try Self.examples(page) {
        for line in example.lines {
          let words = Self.command(line).words
          if words.first == "healthport", words.dropFirst().first == "load",
            words.contains(where: { $0.hasPrefix("postgresql://") || $0.hasPrefix("postgres://") })
          {
            elsewhere.append(line)
          }
        }
      }
    }
    #expect(!elsewhere.isEmpty, "the README's PostgreSQL load is not found")
    try PostgresCluster.with { cluster in
      try cluster.psql("CREATE ROLE me LOGIN PASSWORD 'secret'", database: "postgres")
      try cluster.psql("DROP DATABASE health", database: "postgres")  // the page's createdb makes it
      let commands = try Self.example("commands")
      try Self.runCommands(commands, on: cluster, in: place)
      for line in elsewhere {
        let result = try Self.run(line, on: cluster, in: place)
        #expect(result.status == 0, "\(line)\n\(result.stderr)")
      }
      let now = Date().timeIntervalSince1970
      let truth = try Self.independent([now])
      let records = truth["records"] as? Int ?? -1
      // Each schema a command names holds the sample's records.
      var schemas: Set<String> = ["healthport"]
      for line in commands.lines {
        let words = Self.command(line).words
        if let at = words.firstIndex(of: "--schema"), at + 1 < words.count { schemas.insert(words[at + 1]) }
      }
      #expect(schemas.count == 2, "\(schemas)")
      for schema in schemas {
        #expect(try cluster.psql("SELECT count(*) FROM \(schema).records") == "\(records)\n", "\(schema)")
      }

      // The records of the last 7 days: now (none in the sample), and at the export's date.
      let recent = try #require(Self.statements(try Self.example("sql recent")).first)
      let exportDate = try #require(truth["export"] as? Double)
      let atExport = try Self.independent([exportDate])["recent"] as? [Int] ?? []
      #expect(try cluster.psql(recent) == "\((truth["recent"] as? [Int] ?? [])[0])\n", "\(recent)")
      let shifted = recent.replacingOccurrences(of: "now()", with: "to_timestamp(\(exportDate))")
      #expect(shifted != recent, "the query no longer asks for now()")
      #expect((atExport.first ?? 0) > 0)
      #expect(try cluster.psql(shifted) == "\(atExport.first ?? -1)\n", "\(shifted)")

      // The steps per day: `steps --by day`.
      let steps = Self.statements(try Self.example("sql steps per day"))
      #expect(steps.count == 1)
      let expectedSteps = try Self.answer(["steps", "--by", "day"])
      let actualSteps = try Self.rows(cluster, steps[0])
      #expect(!expectedSteps.isEmpty)
      #expect(
        PostgresLoadTests.sameRows(actualSteps, expectedSteps, columns: 2),
        "\(steps[0]):\n\(actualSteps)\nvs steps --by day:\n\(expectedSteps)")

      // The heart rate per day: `stats --type HeartRate --by day`, and Python's local days.
      let heart = Self.statements(try Self.example("sql heart rate per day"))
      #expect(heart.count == 1)
      let actualHeart = try Self.rows(cluster, heart[0])
      let pythonHeart = truth["heart"] as? [[Any]] ?? []
      #expect(!pythonHeart.isEmpty)
      let sameAsPython =
        actualHeart.count == pythonHeart.count
        && zip(actualHeart, pythonHeart).allSatisfy { mine, theirs in
          mine.count == 2 && mine[0] == theirs[0] as? String && Self.close(mine[1], theirs[1] as? Double ?? .nan)
        }
      #expect(sameAsPython, "\(heart[0]):\n\(actualHeart)\nvs Python:\n\(pythonHeart)")
      let stats = try Self.answer(["stats", "--type", "HeartRate", "--by", "day"])
      #expect(
        PostgresLoadTests.sameRows(actualHeart, stats, columns: 2),
        "\(heart[0]):\n\(actualHeart)\nvs stats --by day:\n\(stats)")
    }
  }

  @Test(
    "--postgis refused to a non-superuser; the PostGIS commands and query: each route within 0.5 % of its haversine length",
    .enabled(
      if: PostgresCluster.hasPostGIS || TestEnvironment.skippingForbidden,
      "PostGIS is absent (scripts/install-deps.sh installs postgresql-15-postgis-3): skipped"))
  func postGIS() throws {
    let place = try Workplace()
    defer { place.remove() }
    try PostgresCluster.with { cluster in
      try cluster.psql("CREATE ROLE me LOGIN PASSWORD 'secret'; ALTER DATABASE health OWNER TO me")
      // The database's owner, not a superuser, may not create the extension.
      try Self.expectError("error postgis refused", on: cluster, in: place)
      #expect(try cluster.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'healthport'") == "0\n")
      try Self.runCommands(try Self.example("postgis commands"), on: cluster, in: place)
      let query = Self.statements(try Self.example("sql postgis"))
      #expect(query.count == 1)
      let rows = try Self.rows(cluster, query[0])
      let routes = try Self.independent([])["routes"] as? [Double] ?? []
      #expect(routes.count == 2)
      #expect(rows.count == routes.count, "\(query[0]):\n\(rows)")
      let distances = rows.compactMap { $0.count == 3 ? Double($0[2]) : nil }.sorted()
      #expect(
        distances.count == routes.count
          && zip(distances, routes).allSatisfy { abs($0 - $1) <= 1e-6 * $1 }, "distance_m \(distances) vs \(routes)")
      for row in rows where row.count == 3 {
        let metres = Double(row[1]) ?? 0
        let distance = Double(row[2]) ?? -1
        #expect(abs(metres - distance) <= 0.005 * distance, "\(row)")
      }
    }
  }

  @Test("the errors: no database, a wrong password, no CREATE, the server down: the page's lines, exit 1")
  func errors() throws {
    let place = try Workplace()
    defer { place.remove() }
    try PostgresCluster.with { cluster in
      try cluster.psql("CREATE ROLE me LOGIN PASSWORD 'secret'")
      try Self.expectError("error no database", on: cluster, in: place)
      try Self.expectError("error wrong password", on: cluster, in: place)
      try Self.expectError("error no permission", on: cluster, in: place)
      #expect(try cluster.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'healthport'") == "0\n")
      cluster.stop()
      try Self.expectError("error server down", on: cluster, in: place)
    }
  }
}

/// The lock's example waits its 90 s: a suite of its own, so that it runs beside the others.
@Suite("docs/postgresql.md: the lock's error", .needsPostgres)
struct PostgresDocsLockTests {
  @Test("another session holds the schema's lock: the page's line after 90 s, exit 1")
  func lockHeld() throws {
    let place = try PostgresDocsTests.Workplace()
    defer { place.remove() }
    try PostgresCluster.with { cluster in
      try cluster.psql("CREATE ROLE me LOGIN PASSWORD 'secret'; GRANT CREATE ON DATABASE health TO me")
      let holder = try cluster.startPSQL(
        "SELECT pg_advisory_lock(hashtext('healthport load healthport')::bigint); SELECT pg_sleep(150)")
      defer {
        _ = try? cluster.psql(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(150)%' "
            + "AND pid <> pg_backend_pid()")
        PostgresCluster.finish(holder)
      }
      for _ in 0..<500 {
        if try cluster.psql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted") == "1\n" { break }
        usleep(20_000)
      }
      try PostgresDocsTests.expectError("error lock", on: cluster, in: place)
      #expect(try cluster.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'healthport'") == "0\n")
    }
  }
}
