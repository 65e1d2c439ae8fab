import Foundation
import Testing

/// Duplicated workouts count once by default; `--keep-rewrites` counts them as written;
/// `--dedupe` merges one workout recorded by several sources.
@Suite("Duplicated workouts")
struct WorkoutDuplicatesTests {
  static let fixture = Harness.repoRoot.appendingPathComponent("Tests/Fixtures/workouts/duplicated.xml").path

  /// Count and distance (km: `totalDistance`, else the distance statistics) per activity, from
  /// Python's own XML parser: every workout, or the
  /// first of each group with the same activity, instants, duration, source and totals.
  static func independent(_ path: String, collapse: Bool) throws -> [String: (count: Int, km: Double)] {
    let script = """
      import sys, datetime, xml.etree.ElementTree as ET
      def instant(text):
          return datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S %z").timestamp()
      seen, out = set(), {}
      for w in ET.parse(sys.argv[1]).getroot().iter("Workout"):
          stats = [] if w.get("totalDistance") is not None or w.get("totalEnergyBurned") is not None else sorted((s.get("type"), s.get("sum"), s.get("unit")) for s in w.findall("WorkoutStatistics"))
          key = (w.get("workoutActivityType"), instant(w.get("startDate")), instant(w.get("endDate")),
                 w.get("duration"), w.get("durationUnit"), w.get("sourceName"), w.get("totalDistance"),
                 w.get("totalDistanceUnit"), w.get("totalEnergyBurned"), w.get("totalEnergyBurnedUnit"), tuple(stats))
          if sys.argv[2] == "1" and key in seen:
              continue
          seen.add(key)
          activity = w.get("workoutActivityType").replace("HKWorkoutActivityType", "")
          count, km = out.get(activity, (0, 0.0))
          distance = w.get("totalDistance")
          if distance is None:
              distance = sum(float(s.get("sum")) for s in w.findall("WorkoutStatistics")
                             if s.get("type").startswith("HKQuantityTypeIdentifierDistance"))
          out[activity] = (count + 1, km + float(distance))
      for activity, (count, km) in sorted(out.items()):
          print(activity, count, round(km, 6))
      """
    let output = try Harness.toolOutput("/usr/bin/env", ["python3", "-c", script, path, collapse ? "1" : "0"])
    var result: [String: (Int, Double)] = [:]
    for line in output.split(separator: "\n") {
      let parts = line.split(separator: " ")
      result[String(parts[0])] = (Int(parts[1])!, Double(parts[2])!)
    }
    return result
  }

  static func summary(_ arguments: [String]) throws -> (rows: [String: (count: Int, km: Double)], stderr: String) {
    let result = try Harness.run(["workouts"] + arguments + ["--summary", "--format", "json"])
    #expect(result.status == 0, "\(result.stderr)")
    var rows: [String: (Int, Double)] = [:]
    for row in try Harness.json(result.stdout) as? [[String: Any]] ?? [] {
      rows[row["activity"] as? String ?? ""] = (row["count"] as? Int ?? -1, row["distance"] as? Double ?? 0)
    }
    return (rows, result.stderr)
  }

  static func same(_ a: [String: (count: Int, km: Double)], _ b: [String: (count: Int, km: Double)]) -> Bool {
    a.count == b.count
      && a.allSatisfy { key, value in
        b[key].map { $0.count == value.count && abs($0.km - value.km) < 1e-6 } ?? false
      }
  }

  /// The shape of a real iOS 14 export: 18 runs written 46 times (`make_duplicated.py`).
  @Test("a workout synced again counts once, and says so; --keep-rewrites counts every copy")
  func synced() throws {
    let collapsed = try Self.summary([Self.fixture])
    let expected = try Self.independent(Self.fixture, collapse: true)
    #expect(expected["Running"]?.count == 18)
    #expect(Self.same(collapsed.rows, expected), "\(collapsed.rows) vs \(expected)")
    #expect(
      collapsed.stderr.contains(
        "healthport workouts: collapsed 28 duplicated workouts (Polar Flow: 28); --keep-rewrites counts them as written\n"
      ))
    // The first run's heart rate from its records: 150 (written three times) and 160.
    #expect(
      collapsed.stderr.contains(
        "healthport workouts: collapsed 2 rewritten HeartRate samples (Polar Flow: 2); --keep-rewrites counts them as written\n"
      ))
    let rows = try Harness.run(["workouts", Self.fixture, "--format", "csv", "--quiet"])
    let lines = rows.stdoutText.split(separator: "\n")
    #expect(lines.count == 19)
    #expect(lines[1].contains(",155,160,"), "\(lines[1])")
    #expect(rows.stderr.isEmpty)

    let literal = try Self.summary([Self.fixture, "--keep-rewrites"])
    let asWritten = try Self.independent(Self.fixture, collapse: false)
    #expect(asWritten["Running"]?.count == 46)
    #expect(Self.same(literal.rows, asWritten), "\(literal.rows) vs \(asWritten)")
    #expect(literal.stderr.isEmpty)
    let literalRows = try Harness.run(["workouts", Self.fixture, "--format", "csv", "--keep-rewrites"])
    #expect(literalRows.stdoutText.split(separator: "\n")[1].contains(",152.5,160,"))
  }

  static let head = """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">
     <ExportDate value="2024-05-01 09:00:00 +0000"/>

    """

  static func workout(
    _ activity: String = "Running", source: String = "Polar Flow", device: String = "", start: String = "07:00:00",
    end: String = "07:30:00", zone: String = "+0000", minutes: String = "30", km: String? = "5", kcal: String = "300",
    created: String = "1",
    children: String = ""
  ) -> String {
    let totals =
      km.map {
        "totalDistance=\"\($0)\" totalDistanceUnit=\"km\" totalEnergyBurned=\"\(kcal)\" totalEnergyBurnedUnit=\"kcal\" "
      } ?? ""
    return """
       <Workout workoutActivityType="HKWorkoutActivityType\(activity)" duration="\(minutes)" durationUnit="min" \(totals)\
      sourceName="\(source)" \(device)creationDate="2024-04-0\(created) 20:00:00 +0000" \
      startDate="2024-04-01 \(start) \(zone)" endDate="2024-04-01 \(end) \(zone)">\(children)</Workout>

      """
  }

  static func write(_ workouts: [String]) throws -> URL {
    let directory = try Harness.temporaryDirectory()
    let url = directory.appendingPathComponent("export.xml")
    try (head + workouts.joined() + "</HealthData>\n").write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  @Test("what makes a copy: metadata, device and creation date differ; totals, end or statistics sums do not")
  func identity() throws {
    func statistic(_ sum: String) -> String {
      "<WorkoutStatistics type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" startDate=\"2024-04-01 07:00:00 +0000\" endDate=\"2024-04-01 07:30:00 +0000\" sum=\"\(sum)\" unit=\"km\"/>"
    }
    let url = try Self.write([
      Self.workout(),
      Self.workout(
        device: "device=\"&lt;&lt;HKDevice: 0x1&gt;, name:Vantage&gt;\" ", created: "2",
        children: "<MetadataEntry key=\"HKMetadataKeySyncVersion\" value=\"2\"/>"),
      Self.workout(start: "08:00:00", end: "08:30:00", zone: "+0100", created: "3"),  // the same instants
      Self.workout(kcal: "301"),
      Self.workout(end: "07:30:01"),
      Self.workout(source: "Strava"),
      Self.workout("Cycling"),
      Self.workout(km: nil, children: statistic("5")),
      Self.workout(km: nil, created: "4", children: statistic("5")),
      Self.workout(km: nil, children: statistic("5.1")),
    ])
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let collapsed = try Self.summary([url.path])
    let expected = try Self.independent(url.path, collapse: true)
    #expect(expected["Running"]?.count == 6)
    #expect(Self.same(collapsed.rows, expected), "\(collapsed.rows) vs \(expected)")
    #expect(collapsed.stderr.contains("collapsed 3 duplicated workouts (Polar Flow: 3)"), "\(collapsed.stderr)")
  }

  @Test("--dedupe merges a workout of a worse-ranked source into the better one's when they overlap by over half")
  func dedupe() throws {
    let watch =
      "device=\"&lt;&lt;HKDevice: 0x1&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1&gt;\" "
    let url = try Self.write([
      Self.workout(source: "Strava", start: "07:05:00", end: "07:35:00", km: "5.2"),  // 25 of 30 min: merged
      Self.workout(source: "Anna’s Apple Watch", device: watch, km: "5"),  // the Watch ranks first
      Self.workout(source: "Strava", start: "07:20:00", end: "08:00:00", km: "7"),  // 10 of 30 min: kept
      Self.workout("Cycling", source: "Strava", km: "12"),  // another activity: kept
      Self.workout(source: "Nike Run Club", start: "07:05:00", end: "07:35:00", km: "5.1"),  // merged
      Self.workout(source: "Anna’s Apple Watch", device: watch, km: "4"),  // equal rank: kept
    ])
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let plain = try Self.summary([url.path])
    #expect(plain.rows["Running"]?.count == 5)
    let merged = try Self.summary([url.path, "--dedupe"])
    #expect(merged.rows["Running"]?.count == 3)
    #expect(abs((merged.rows["Running"]?.km ?? 0) - 16) < 1e-9)
    #expect(merged.rows["Cycling"]?.count == 1)
    #expect(
      merged.stderr
        == "healthport workouts: --dedupe merged 2 workouts into a better-ranked source's (Strava: 1, Nike Run Club: 1)\n"
    )
    // --priority puts Strava first: its two runs stay (equal ranks); both Watch runs and Nike's
    // overlap Strava's first by 25 or 30 of 30 minutes.
    let strava = try Self.summary([url.path, "--dedupe", "--priority", "Strava"])
    #expect(strava.rows["Running"]?.count == 2)
    let misuse = try Harness.run(["workouts", url.path, "--priority", "Strava"])
    #expect(misuse.status == 64)
  }
}
