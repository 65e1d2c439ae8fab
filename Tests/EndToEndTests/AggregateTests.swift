import Foundation
import TestSupport
import Testing

/// `steps`, `workouts`, `stats` and the filters, run through the built binary.
@Suite("steps, workouts, stats")
struct AggregateTests {
  static var sampleExport: URL { Harness.samples.appendingPathComponent("export.xml") }
  static var hasSamples: Bool { FileManager.default.fileExists(atPath: sampleExport.path) }

  /// Real exports with step samples or workouts, plus the Reyrolle workout fragments wrapped in
  /// a `<HealthData>` root.
  static let inputs: [URL] = {
    var inputs = Harness.realExports()
    let fragments = Harness.realFixtures.appendingPathComponent("NicolasReyrolle-apple-health-analyzer")
    if let names = try? FileManager.default.contentsOfDirectory(atPath: fragments.path) {
      let body = names.filter { $0.hasSuffix(".xml") }.sorted().compactMap {
        try? String(contentsOf: fragments.appendingPathComponent($0), encoding: .utf8)
      }.joined(separator: "\n")
      let url = FileManager.default.temporaryDirectory.appendingPathComponent("healthport-reyrolle-\(getpid()).xml")
      let text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n\(body)\n</HealthData>\n"
      if (try? text.write(to: url, atomically: true, encoding: .utf8)) != nil { inputs.append(url) }
    }
    if hasSamples { inputs.append(sampleExport) }
    inputs.append(Harness.repoRoot.appendingPathComponent("Tests/Fixtures/rewrites/export.xml"))
    return inputs
  }()

  static func compareRows(
    _ actual: [[String: Any]], _ expected: [[String: Any]], numbers: [String], strings: [String], what: String,
    tolerance: Double = 1e-9
  ) {
    #expect(actual.count == expected.count, "\(what): \(actual.count) rows vs \(expected.count)")
    for (got, want) in zip(actual, expected) {
      for key in strings {
        #expect((got[key] as? String) == (want[key] as? String), "\(what) \(key): \(got) vs \(want)")
      }
      for key in numbers {
        let a = got[key] as? Double
        let b = want[key] as? Double
        #expect((a == nil) == (b == nil), "\(what) \(key): \(String(describing: a)) vs \(String(describing: b))")
        // CSV and JSON are exact: only the order of additions may differ.
        if let a, let b { #expect(relativelyClose(a, b, tolerance: tolerance), "\(what) \(key): \(a) vs \(b)") }
      }
    }
  }

  @Test(
    "steps per period agree with an independent sum",
    arguments: ["day", "week", "month", "year"])
  func stepsByPeriod(by: String) throws {
    for input in Self.inputs {
      let result = try Harness.run(["steps", input.path, "--by", by, "--format", "json"])
      #expect(result.status == 0, "\(input.lastPathComponent): \(result.stderr)")
      let actual = try Harness.json(result.stdout) as? [[String: Any]] ?? []
      let expected = try IndependentAggregates.steps(input.path, by: by)
      Self.compareRows(
        actual, expected, numbers: ["steps", "samples"], strings: ["period"], what: "\(input.lastPathComponent) \(by)")
      let literal = try Harness.run(["steps", input.path, "--by", by, "--format", "json", "--keep-rewrites", "-q"])
      Self.compareRows(
        try Harness.json(literal.stdout) as? [[String: Any]] ?? [],
        try IndependentAggregates.steps(input.path, by: by, keepRewrites: true), numbers: ["steps", "samples"],
        strings: ["period"], what: "\(input.lastPathComponent) \(by) --keep-rewrites")
    }
  }

  @Test("watch-only and de-duplicated steps agree with an independent computation")
  func stepsWatchAndDedupe() throws {
    for input in Self.inputs {
      let watch = try Harness.run(["steps", input.path, "--source-product", "Watch", "--format", "json"])
      #expect(watch.status == 0, "\(watch.stderr)")
      Self.compareRows(
        try Harness.json(watch.stdout) as? [[String: Any]] ?? [],
        try IndependentAggregates.steps(input.path, product: "watch"),
        numbers: ["steps", "samples"], strings: ["period"], what: "\(input.lastPathComponent) watch")
      let dedupe = try Harness.run(["steps", input.path, "--dedupe", "--format", "json"])
      #expect(dedupe.status == 0, "\(dedupe.stderr)")
      Self.compareRows(
        try Harness.json(dedupe.stdout) as? [[String: Any]] ?? [],
        try IndependentAggregates.steps(input.path, dedupe: true),
        numbers: ["steps", "samples"], strings: ["period"], what: "\(input.lastPathComponent) dedupe")
    }
  }

  @Test("Samples: steps match the generator's expected.json", .enabled(if: hasSamples, "Samples/ is absent"))
  func samplesExpected() throws {
    let expected = try #require(
      try Harness.json(Data(contentsOf: Harness.samples.appendingPathComponent("expected.json"))) as? [String: Any])
    for (arguments, key) in [([String](), "stepsByDay"), (["--source-product", "Watch"], "watchStepsByDay")] {
      let result = try Harness.run(["steps", Self.sampleExport.path, "--format", "csv"] + arguments)
      #expect(result.status == 0)
      let lines = result.stdoutText.split(separator: "\n").map(String.init)
      #expect(lines.first.map { $0 + "\n" } == Harness.csvHeader("period,steps,samples"))
      var byDay: [String: Int] = [:]
      for line in lines.dropFirst() {
        let cells = line.split(separator: ",")
        byDay[String(cells[0])] = Int(cells[1])
      }
      #expect(byDay == expected[key] as? [String: Int], "\(key)")
    }
  }

  @Test("workouts agree with an independent computation (attributes and statistics)", .needsRealFixtures)
  func workouts() throws {
    for input in Self.inputs {
      for (unit, energy) in [("km", "kcal"), ("mi", "kJ")] {
        let result = try Harness.run([
          "workouts", input.path, "--unit", unit, "--energy-unit", energy, "--format", "json",
        ])
        #expect(result.status == 0, "\(input.lastPathComponent): \(result.stderr)")
        let actual = try Harness.json(result.stdout) as? [[String: Any]] ?? []
        let expected = try IndependentAggregates.workouts(input.path, distanceUnit: unit, energyUnit: energy)
        Self.compareRows(
          actual, expected, numbers: ["duration_min", "distance", "energy"],
          strings: ["start", "end", "activity", "source", "product"], what: "\(input.lastPathComponent) \(unit)")
      }
    }
  }

  @Test("known workout totals, by hand from the fixtures", .needsRealFixtures)
  func knownWorkouts() throws {
    // tdda: duration="31.73680251737436" min, totalDistance="0" km and totalEnergyBurned="139.3170000000021"
    // kcal as attributes, written back exactly; the source name holds a no-break space.
    let tdda = Harness.realFixtures.appendingPathComponent("tdda-applehealthdata/export6s3sample.xml")
    let result = try Harness.run(["workouts", tdda.path, "--format", "csv"])
    #expect(
      result.stdoutText
        == Harness.csvHeader(
          "start,end,activity,duration_min,distance,energy,source,product,avg_heart_rate,max_heart_rate,pace,"
            + "elevation_gain,indoor")
        + "2016-04-02 10:40:38 +0100,2016-04-02 11:12:22 +0100,Other,31.73680251737436,0,139.3170000000021,NJR Apple\u{A0}Watch,Watch,,,,,\n"
    )
    // jshrake (iOS 16.0 zip): no total* attributes, from WorkoutStatistics.
    let zip = Harness.realFixtures.appendingPathComponent("jshrake-healthkit-to-sqlite/export.zip")
    let summary = try Harness.run(["workouts", zip.path, "--summary", "--format", "csv"])
    #expect(summary.status == 0)
    #expect(
      summary.stdoutText.hasPrefix(
        Harness.csvHeader(
          "activity,count,duration_min,distance,energy,avg_heart_rate,max_heart_rate,pace,elevation_gain")))
    let expected = try IndependentAggregates.workouts(zip.path)
    let row = try #require(expected.first)
    let fields = summary.stdoutText.split(separator: "\n")[1].split(separator: ",", omittingEmptySubsequences: false)
    #expect(fields[0] == Substring(row["activity"] as? String ?? "?"))
    #expect(fields[1] == "1")
    #expect(relativelyClose(Double(fields[3]) ?? -1, row["distance"] as? Double ?? -2))
  }

  @Test("the summary groups per activity, sorted by count then name", .needsRealFixtures)
  func summary() throws {
    let input = Harness.realFixtures.appendingPathComponent("opendroid-hk/sampleexport-2.xml")
    let result = try Harness.run(["workouts", input.path, "--summary", "--format", "json"])
    let rows = try Harness.json(result.stdout) as? [[String: Any]] ?? []
    let expected = try IndependentAggregates.workouts(input.path)
    var counts: [String: Int] = [:]
    var minutes: [String: Double] = [:]
    for row in expected {
      let activity = row["activity"] as? String ?? ""
      counts[activity, default: 0] += 1
      minutes[activity, default: 0] += row["duration_min"] as? Double ?? 0
    }
    let order = counts.keys.sorted { (counts[$0]!, $1) > (counts[$1]!, $0) }
    #expect(rows.map { $0["activity"] as? String ?? "" } == order)
    for row in rows {
      let activity = row["activity"] as? String ?? ""
      #expect(row["count"] as? Int == counts[activity])
      #expect(relativelyClose(row["duration_min"] as? Double ?? -1, minutes[activity] ?? -2))
    }
  }

  @Test("stats: units converted to the most frequent one; latest; default aggregates")
  func stats() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("export.xml")
    func record(_ type: String, _ unit: String, _ start: String, _ value: String) -> String {
      "<Record type=\"HKQuantityTypeIdentifier\(type)\" sourceName=\"Scale\" unit=\"\(unit)\" startDate=\"\(start)\" endDate=\"\(start)\" value=\"\(value)\"/>"
    }
    let body = [
      record("BodyMass", "kg", "2024-05-01 08:00:00 +0200", "80"),
      record("BodyMass", "lb", "2024-05-01 20:00:00 +0200", "176.3698097"),  // 80 kg
      record("BodyMass", "kg", "2024-05-01 12:00:00 +0200", "81"),
      record("BodyMass", "kg", "2024-05-02 07:00:00 +0200", "79"),
      record("BodyMass", "kg", "2024-05-02 07:00:00 +0200", "78.5"),  // same start, later in the document
      record("DistanceWalkingRunning", "km", "2024-05-01 08:00:00 +0200", "1.5"),
      record("DistanceWalkingRunning", "m", "2024-05-01 09:00:00 +0200", "500"),
      record("DistanceWalkingRunning", "km", "2024-05-01 10:00:00 +0200", "2"),
      record("HeartRate", "count/min", "2024-05-01 10:00:00 +0200", "60"),
      record("HeartRate", "kg", "2024-05-01 10:00:00 +0200", "60"),
      record("HeartRate", "count/min", "2024-05-01 11:00:00 +0200", "70"),
    ].joined(separator: "\n")
    try "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n\(body)\n</HealthData>\n"
      .write(to: file, atomically: true, encoding: .utf8)
    let cases: [([String], String)] = [
      (
        ["--type", "BodyMass", "--agg", "max", "--by", "month"],
        Harness.csvHeader("period,value,samples,unit") + "2024-05,81,5,kg\n"
      ),
      (
        ["--type", "BodyMass", "--agg", "min", "--by", "week"],
        Harness.csvHeader("period,value,samples,unit") + "2024-W18,78.5,5,kg\n"
      ),
      (["--type", "DistanceWalkingRunning"], Harness.csvHeader("period,value,samples,unit") + "2024-05-01,4,3,km\n"),
      (
        // A count's unit is `count`, not the samples' kg.
        ["--type", "BodyMass", "--agg", "count", "--by", "year"],
        Harness.csvHeader("period,value,samples,unit") + "2024,5,5,count\n"
      ),
    ]
    for (arguments, expected) in cases {
      let result = try Harness.run(["stats", file.path, "--format", "csv"] + arguments)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      #expect(result.stdoutText == expected, "\(arguments)")
    }
    // Exact values: the latest on May 1 is 176.3698097 lb (79.99999997… kg); the average of 80 kg,
    // that and 81 kg.
    let pound = 176.3698097 * 0.453_592_37
    for (aggregate, first, second) in [("latest", pound, "78.5"), ("avg", (80 + 81 + pound) / 3, "78.75")] {
      let result = try Harness.run(["stats", file.path, "--format", "csv", "--type", "BodyMass", "--agg", aggregate])
      let rows = LoadTests.csvRows(result.stdoutText)
      #expect(rows.map { [$0[0], $0[2], $0[3]] } == [["2024-05-01", "3", "kg"], ["2024-05-02", "2", "kg"]])
      #expect(relativelyClose(Double(rows.first?[1] ?? "") ?? 0, first), "\(aggregate): \(rows)")
      #expect(rows.last?[1] == second, "\(aggregate)")
    }
    let bad = try Harness.run(["stats", file.path, "--type", "HeartRate"])
    #expect(bad.status == 65)
    #expect(bad.stderr.contains("'kg'"), "\(bad.stderr)")
  }

  @Test("steps per day with --tz Europe/Berlin across both 2024 DST transitions")
  func stepsDST() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("export.xml")
    // Written in UTC; Berlin is UTC+1 until 2024-03-31 01:00 UTC and from 2024-10-27 01:00 UTC, else UTC+2.
    let samples: [(String, Int)] = [
      ("2024-03-30 22:59:59 +0000", 1),  // 23:59:59 CET, March 30
      ("2024-03-30 23:00:00 +0000", 2),  // 00:00 CET, March 31
      ("2024-03-31 21:59:59 +0000", 4),  // 23:59:59 CEST, March 31
      ("2024-03-31 22:00:00 +0000", 8),  // 00:00 CEST, April 1
      ("2024-10-26 21:59:59 +0000", 16),  // 23:59:59 CEST, October 26
      ("2024-10-26 22:00:00 +0000", 32),  // 00:00 CEST, October 27
      ("2024-10-27 22:59:59 +0000", 64),  // 23:59:59 CET, October 27
      ("2024-10-27 23:00:00 +0000", 128),  // 00:00 CET, October 28
    ]
    let body = samples.map {
      "<Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Phone\" unit=\"count\" startDate=\"\($0.0)\" endDate=\"\($0.0)\" value=\"\($0.1)\"/>"
    }.joined(separator: "\n")
    try "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n\(body)\n</HealthData>\n"
      .write(to: file, atomically: true, encoding: .utf8)
    let berlin = try Harness.run(["steps", file.path, "--tz", "Europe/Berlin", "--format", "csv"])
    #expect(
      berlin.stdoutText
        == Harness.csvHeader("period,steps,samples")
        + "2024-03-30,1,1\n2024-03-31,6,2\n2024-04-01,8,1\n2024-10-26,16,1\n2024-10-27,96,2\n2024-10-28,128,1\n"
    )
    let written = try Harness.run(["steps", file.path, "--format", "csv"])
    #expect(
      written.stdoutText
        == Harness.csvHeader("period,steps,samples")
        + "2024-03-30,3,2\n2024-03-31,12,2\n2024-10-26,48,2\n2024-10-27,192,2\n")
    let range = try Harness.run([
      "steps", file.path, "--tz", "Europe/Berlin", "--from", "2024-03-31", "--to", "2024-10-27", "--by", "year",
      "--format", "csv",
    ])
    #expect(range.stdoutText == Harness.csvHeader("period,steps,samples") + "2024,126,6\n")
  }

  @Test(
    "usage errors: exit 64 with the closest valid name",
    arguments: [
      (["steps", "--tz", "Europe/Berln"], "Europe/Berlin"), (["workouts", "--activity", "runnin"], "Running"),
      (["stats", "--type", "HeartRat"], "HeartRate"), (["info", "--type", "StepCont"], "StepCount"),
      (["steps", "--by", "wek"], "week"), (["stats"], "--type"), (["steps", "--from", "2024-02-30"], "YYYY-MM-DD"),
      (["steps", "--priority", "Watch"], "--dedupe"),
    ])
  func usageErrors(arguments: [String], hint: String) throws {
    let result = try Harness.run(arguments + ["/nonexistent.xml"])
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains(hint), "\(result.stderr)")
  }

  @Test("info on a filtered stream counts what the filter keeps", .enabled(if: hasSamples, "Samples/ is absent"))
  func infoFiltered() throws {
    let result = try Harness.run([
      "info", Self.sampleExport.path, "--format", "json", "--type", "StepCount", "--source-product", "watch",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let json = try #require(try Harness.json(result.stdout) as? [String: Any])
    let expected = try IndependentAggregates.steps(Self.sampleExport.path, by: "year", product: "watch")
    #expect(json["recordCount"] as? Int == expected.reduce(0) { $0 + ($1["samples"] as? Int ?? 0) })
    #expect((json["recordsByType"] as? [String: Int])?.keys.sorted() == ["HKQuantityTypeIdentifierStepCount"])
    #expect(json["workoutCount"] as? Int == 0)
    #expect(json["activitySummaryCount"] as? Int == 0)
  }

  @Test("table output: aligned columns, a bar per row, a total line", .enabled(if: hasSamples, "Samples/ is absent"))
  func table() throws {
    let result = try Harness.run(["steps", Self.sampleExport.path])
    let lines = result.stdoutText.split(separator: "\n").map(String.init)
    let expected = try IndependentAggregates.steps(Self.sampleExport.path)
    #expect(lines.count == expected.count + 3)
    #expect(lines[0].hasPrefix("period"))
    #expect(lines.dropFirst().prefix(expected.count).allSatisfy { $0.contains("█") })
    let total = expected.reduce(0.0) { $0 + ($1["steps"] as? Double ?? 0) }
    let last = lines.last ?? ""
    #expect(last.hasPrefix("total"))
    #expect(last.replacingOccurrences(of: ",", with: "").contains(String(Int(total))), "\(last)")
  }
}

/// The binary on `Tests/Fixtures/rewrites/export.xml` (expected values worked out by hand in
/// `HealthPortTests/RewriteTests.swift`).
@Suite("Rewrites end to end")
struct RewriteEndToEndTests {
  static let fixture = Harness.repoRoot.appendingPathComponent("Tests/Fixtures/rewrites/export.xml").path

  static let stepsNote =
    "healthport steps: collapsed 23 rewritten StepCount samples (Mi Fit: 22, Anna’s iPhone: 1); "
    + "--keep-rewrites sums them as written\n"

  @Test("steps --dedupe drops rewrites and says so on stderr")
  func stepsDedupe() throws {
    let result = try Harness.run(["steps", Self.fixture, "--dedupe", "--format", "csv"])
    #expect(result.status == 0)
    #expect(result.stdoutText == Harness.csvHeader("period,steps,samples") + "2024-03-10,941,7\n2024-03-11,500,1\n")
    #expect(result.stderr == Self.stepsNote)
    let quiet = try Harness.run(["steps", Self.fixture, "--dedupe", "--format", "csv", "--quiet"])
    #expect(quiet.stdout == result.stdout)
    #expect(quiet.stderr == "")
  }

  @Test("plain steps counts a rewrite once and says so; --keep-rewrites sums every record silently")
  func stepsPlain() throws {
    let result = try Harness.run(["steps", Self.fixture, "--format", "csv"])
    #expect(result.status == 0)
    #expect(result.stdoutText == Harness.csvHeader("period,steps,samples") + "2024-03-10,1491,8\n2024-03-11,500,1\n")
    #expect(result.stderr == Self.stepsNote)
    let literal = try Harness.run(["steps", Self.fixture, "--format", "csv", "--keep-rewrites"])
    #expect(literal.status == 0)
    #expect(
      literal.stdoutText == Harness.csvHeader("period,steps,samples") + "2024-03-10,4041,15\n2024-03-11,8500,17\n")
    #expect(literal.stderr == "")
    // With --dedupe, --keep-rewrites skips step 0 only: every copy goes into the merge.
    let merged = try Harness.run(["steps", Self.fixture, "--dedupe", "--keep-rewrites", "--format", "csv"])
    #expect(merged.status == 0)
    #expect(merged.stderr == "")
    #expect(merged.stdoutText != Harness.csvHeader("period,steps,samples") + "2024-03-10,941,7\n2024-03-11,500,1\n")
  }

  @Test("stats and chart collapse rewrites by default")
  func otherAnswers() throws {
    let energy = try Harness.run(["stats", Self.fixture, "--type", "HeartRate", "--format", "csv"])
    #expect(energy.stdoutText == Harness.csvHeader("period,value,samples,unit") + "2024-03-10,70,3,count/min\n")
    #expect(
      energy.stderr
        == "healthport stats: collapsed 2 rewritten HeartRate samples (Mi Fit: 2); --keep-rewrites counts them as written\n"
    )
    let literal = try Harness.run(["stats", Self.fixture, "--type", "HeartRate", "--format", "csv", "--keep-rewrites"])
    #expect(literal.stdoutText == Harness.csvHeader("period,value,samples,unit") + "2024-03-10,66,5,count/min\n")
    #expect(literal.stderr == "")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let chart = directory.appendingPathComponent("steps.html")
    let drawn = try Harness.run(["chart", "steps", Self.fixture, "-o", chart.path])
    #expect(drawn.status == 0)
    #expect(drawn.stderr.hasPrefix("healthport chart: collapsed 23 rewritten StepCount samples"))
    let page = try String(contentsOf: chart, encoding: .utf8)
    #expect(page.contains("1,491") || page.contains("1491"), "the day's bar holds the unique samples")
  }

  @Test("info --rewrites counts them per source and type; plain info does not look")
  func infoRewrites() throws {
    let script = """
      import sys, datetime, xml.etree.ElementTree as ET
      def instant(text):
          return datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S %z").timestamp()
      seen, counts = set(), {}
      for r in ET.parse(sys.argv[1]).getroot().findall("Record"):
          value = r.get("value")
          if r.get("type").startswith("HKQuantityTypeIdentifier"):
              value = float(value)
          key = (r.get("sourceName"), r.get("type"), r.get("unit"), instant(r.get("startDate")), instant(r.get("endDate")), value)
          if key in seen:
              counts[(r.get("sourceName"), r.get("type"))] = counts.get((r.get("sourceName"), r.get("type")), 0) + 1
          seen.add(key)
      for (source, type), count in sorted(counts.items()):
          print(source, type, count, sep="|")
      """
    let expected = try Harness.toolOutput("/usr/bin/env", ["python3", "-c", script, Self.fixture])
    #expect(expected.split(separator: "\n").count == 4)
    let result = try Harness.run(["info", Self.fixture, "--rewrites", "--format", "json"])
    #expect(result.status == 0)
    let entries = (try Harness.json(result.stdout) as? [String: Any])?["rewrites"] as? [[String: Any]] ?? []
    let found = entries.map { "\($0["source"] ?? "")|\($0["type"] ?? "")|\($0["count"] ?? "")" }.sorted()
    #expect(found.joined(separator: "\n") + "\n" == expected)
    let plain = try Harness.run(["info", Self.fixture, "--format", "json"])
    #expect((try Harness.json(plain.stdout) as? [String: Any])?["rewrites"] == nil)
    let table = try Harness.run(["info", Self.fixture, "--rewrites"])
    #expect(table.stdoutText.contains("Rewrites (records repeating an earlier one; answers count them once)"))
    #expect(table.stdoutText.contains("Mi Fit         StepCount                         22"))
  }

  @Test("stats --dedupe and --priority")
  func stats() throws {
    let heart = try Harness.run(["stats", Self.fixture, "--type", "HeartRate", "--dedupe", "--format", "csv"])
    #expect(heart.status == 0)
    #expect(heart.stdoutText == Harness.csvHeader("period,value,samples,unit") + "2024-03-10,70,3,count/min\n")
    #expect(
      heart.stderr
        == "healthport stats: collapsed 2 rewritten HeartRate samples (Mi Fit: 2); --keep-rewrites counts them as written\n"
    )
    let steps = try Harness.run([
      "stats", Self.fixture, "--type", "StepCount", "--dedupe", "--priority", "Mi Fit", "--format", "csv", "-q",
    ])
    #expect(
      steps.stdoutText == Harness.csvHeader("period,value,samples,unit")
        + "2024-03-10,1241,6,count\n2024-03-11,500,1,count\n")
    let misuse = try Harness.run(["stats", Self.fixture, "--type", "StepCount", "--priority", "Watch"])
    #expect(misuse.status == 64)
  }
}
