import Foundation
import TestSupport
import Testing

/// `workouts`' heart rate, pace, elevation and indoor flag through the binary, against Python.
@Suite("workouts: heart rate, pace, elevation")
struct WorkoutMeasuresTests {
  static let script = #"""
    import sys, json, re, zipfile, datetime
    import xml.etree.ElementTree as ET

    def load(path):
        if path.endswith(".zip"):
            z = zipfile.ZipFile(path)
            data = next(z.read(n) for n in z.namelist() if not n.startswith("__MACOSX") and b"<HealthData" in z.read(n)[:1 << 20])
        else:
            data = open(path, "rb").read()
        return ET.fromstring(re.sub(rb"<!DOCTYPE.*?\]>", b"", data, count=1, flags=re.S))

    def t(s):
        return datetime.datetime.strptime(s, "%Y-%m-%d %H:%M:%S %z").timestamp()

    def device_name(el):
        m = re.search(r"(?:^|, |>)name:(.*?)(?:, (?:manufacturer|model|hardware|firmware|software|localIdentifier|UDIDeviceIdentifier|creation date):|>$)", el.get("device") or "")
        return m.group(1) if m else None

    LEN = {"m": 1, "km": 1000, "cm": 0.01, "mi": 1609.344, "ft": 0.3048, "yd": 0.9144, "in": 0.0254}
    DIST = {"Running", "Walking", "Hiking", "Cycling", "HandCycling", "Swimming", "SwimBikeRun", "WheelchairWalkPace",
            "WheelchairRunPace", "CrossCountrySkiing", "DownhillSkiing", "Snowboarding", "Rowing", "PaddleSports", "SkatingSports"}

    root = load(sys.argv[1])
    unit, records_too = sys.argv[2], sys.argv[3] == "1"
    elev_unit = "ft" if unit == "mi" else "m"
    hr = [r for r in root.findall("Record") if r.get("type") == "HKQuantityTypeIdentifierHeartRate"]
    rows = []
    for w in root.findall("Workout"):
        act = w.get("workoutActivityType")[len("HKWorkoutActivityType"):]
        dur = float(w.get("duration")) * {"min": 1, "s": 1 / 60, "hr": 60}[w.get("durationUnit") or "min"] if w.get("duration") else None
        if w.get("totalDistance") is not None:
            dist = float(w.get("totalDistance")) * LEN[w.get("totalDistanceUnit") or "km"] / LEN[unit]
        else:
            ds = [float(s.get("sum")) * LEN[s.get("unit")] / LEN[unit] for s in w.findall("WorkoutStatistics")
                  if s.get("type").startswith("HKQuantityTypeIdentifierDistance") and s.get("sum")]
            dist = sum(ds) if ds else None
        own = [s for s in w.findall("WorkoutStatistics") if s.get("type") == "HKQuantityTypeIdentifierHeartRate"]
        avg = mx = None
        if own:
            avg, mx = float(own[0].get("average")), float(own[0].get("maximum"))
        else:
            parts = [s for a in w.findall("WorkoutActivity") for s in a.findall("WorkoutStatistics")
                     if s.get("type") == "HKQuantityTypeIdentifierHeartRate"]
            if parts:
                ws = [(max(1, t(s.get("endDate")) - t(s.get("startDate"))), float(s.get("average"))) for s in parts]
                avg = sum(a * b for a, b in ws) / sum(a for a, _ in ws)
                mx = max(float(s.get("maximum")) for s in parts)
            elif records_too:
                s0, e0 = t(w.get("startDate")), t(w.get("endDate"))
                vals = [float(r.get("value")) for r in hr if r.get("sourceName") == w.get("sourceName")
                        and device_name(r) == device_name(w) and s0 <= t(r.get("startDate")) <= e0]
                if vals:
                    avg, mx = sum(vals) / len(vals), max(vals)
        pace = dur / dist if dur is not None and dist and act in DIST else None
        meta = [m for m in w.findall("MetadataEntry")]
        el = next((m.get("value") for m in meta if m.get("key") == "HKElevationAscended"), None)
        if el is None:
            gains = [next((m.get("value") for m in a.findall("MetadataEntry") if m.get("key") == "HKElevationAscended"), None)
                     for a in w.findall("WorkoutActivity")]
            gains = [g for g in gains if g]
            elev = sum(float(g.split()[0]) * LEN[g.split()[1]] / LEN[elev_unit] for g in gains) if gains else None
        else:
            elev = float(el.split()[0]) * LEN[el.split()[1]] / LEN[elev_unit]
        ind = next((m.get("value") for m in meta if m.get("key") == "HKIndoorWorkout"), None)
        rows.append({"start": w.get("startDate"), "activity": act, "avg_heart_rate": avg, "max_heart_rate": mx,
                     "pace_minutes": pace, "elevation_gain": elev, "dur": dur, "dist": dist,
                     "indoor": {"1": "indoor", "0": "outdoor"}.get(ind)})
    rows.sort(key=lambda r: t(r["start"]))
    print(json.dumps(rows))
    """#

  static func expected(_ path: String, unit: String, records: Bool) throws -> [[String: Any]] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, path, unit, records ? "1" : "0"]
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let out = directory.appendingPathComponent("out.json")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: out)
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "python on \(path)")
    return try Harness.json(Data(contentsOf: out)) as? [[String: Any]] ?? []
  }

  /// `m:ss` back to minutes.
  static func minutes(pace text: String?) -> Double? {
    guard let text, let colon = text.firstIndex(of: ":"), let m = Double(text[..<colon]),
      let s = Double(text[text.index(after: colon)...])
    else { return nil }
    return m + s / 60
  }

  /// Equal within `tolerance`, or (without one) to a relative 1e-9: JSON holds the numbers exactly.
  static func close(_ a: Double?, _ b: Double?, _ tolerance: Double? = nil) -> Bool {
    switch (a, b) {
    case (nil, nil): true
    case (let x?, let y?): tolerance.map { abs(x - y) <= $0 } ?? relativelyClose(x, y)
    default: false
    }
  }

  static func compare(_ path: String, unit: String = "km", stdin: Bool = false) throws {
    let arguments = ["workouts", stdin ? "-" : path, "--unit", unit, "--format", "json"]
    let result = try Harness.run(arguments, stdin: stdin ? URL(fileURLWithPath: path) : nil)
    #expect(result.status == 0, "\(path): \(result.stderr)")
    let actual = try Harness.json(result.stdout) as? [[String: Any]] ?? []
    let expected = try Self.expected(path, unit: unit, records: !stdin)
    #expect(actual.count == expected.count, "\(path)")
    for (got, want) in zip(actual, expected) {
      let what = "\(path) \(want["start"] ?? "") \(unit) stdin=\(stdin)"
      #expect(got["start"] as? String == want["start"] as? String, "\(what)")
      #expect(close(got["avg_heart_rate"] as? Double, want["avg_heart_rate"] as? Double), "\(what) avg: \(got)")
      #expect(close(got["max_heart_rate"] as? Double, want["max_heart_rate"] as? Double), "\(what) max")
      #expect(
        close(minutes(pace: got["pace"] as? String), want["pace_minutes"] as? Double, 0.5 / 60 + 1e-9), "\(what) pace")
      #expect(close(got["elevation_gain"] as? Double, want["elevation_gain"] as? Double), "\(what) elevation")
      #expect(got["indoor"] as? String == want["indoor"] as? String, "\(what) indoor")
    }
  }

  /// `Tests/Fixtures/workouts/heart-rate.xml`: workouts without statistics among HeartRate records
  /// of the same source and device (102 … 129 bpm every 3 minutes from 09:12, 160 at the run's end),
  /// of another device with the same source name (200), of another source (210), and a second
  /// before the run (250); a Strava ride with one record of its own; a yoga session with statistics.
  static func generatedExport(in directory: URL) throws -> URL {
    Harness.repoRoot.appendingPathComponent("Tests/Fixtures/workouts/heart-rate.xml")
  }

  @Test("HeartRate records of the workout's source and device inside it, in a second pass; stdin: statistics only")
  func generated() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = try Self.generatedExport(in: directory)
    for unit in ["km", "mi"] { try Self.compare(url.path, unit: unit) }
    try Self.compare(url.path, stdin: true)
    // By hand: the run (09:10–09:40) holds the Watch’s samples at 09:12 … 09:39 (102 … 129 bpm, 10 of
    // them) and 160 at 09:40: 1315 / 11 = 119.545…, max 160; 30 min over 5.5 km is 5:27 per km; 38.1 m;
    // the ride's 12 mi are 19.312128 km. CSV writes them exactly (Swift's shortest text).
    let csv = try Harness.run(["workouts", url.path, "--format", "csv"]).stdoutText
    #expect(csv.contains(",Running,30,5.5,,Zoe’s Apple Watch,Watch,\(1315.0 / 11),160,5:27,38.1,outdoor\n"))
    #expect(csv.contains(",Yoga,20,,,Zoe’s Apple Watch,Watch,88.5,101,,,indoor\n"))
    #expect(csv.contains(",Cycling,45,19.312128,,Strava,,130,130,2:20,,\n"))
    let piped = try Harness.run(["workouts", "--format", "csv"], stdin: url).stdoutText
    #expect(piped.contains(",Running,30,5.5,,Zoe’s Apple Watch,Watch,,,5:27,38.1,outdoor\n"))
    let imperial = try Harness.run(["workouts", url.path, "--units", "imperial", "--format", "csv"]).stdoutText
    let run = try #require(imperial.split(separator: "\n").first { $0.contains(",Running,") })
    let fields = run.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    #expect(relativelyClose(Double(fields[4]) ?? 0, 5.5 / 1.609_344), "\(run)")
    #expect(fields[5...].joined(separator: ",") == ",Zoe’s Apple Watch,Watch,\(1315.0 / 11),160,8:47,125,outdoor")
  }

  @Test("the summary: duration-weighted heart rate, total time over total distance, summed elevation")
  func summary() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = try Self.generatedExport(in: directory)
    let csv = try Harness.run(["workouts", url.path, "--summary", "--format", "csv"]).stdoutText
    #expect(
      csv
        == Harness.csvHeader(
          "activity,count,duration_min,distance,energy,avg_heart_rate,max_heart_rate,pace,elevation_gain")
        + "Cycling,1,45,19.312128,,130,130,2:20,\nRunning,1,30,5.5,,\(1315.0 / 11),160,5:27,38.1\nYoga,1,20,,,88.5,101,,\n"
    )
    let table = try Harness.run(["workouts", url.path, "--summary", "--unit", "mi"]).stdoutText
    #expect(table.hasPrefix("activity  count  duration_min  distance_mi"))
    #expect(table.contains("pace_per_mi  elevation_gain_ft"))
  }

  @Test("Samples and every real export with workouts agree with the independent computation", .needsRealFixtures)
  func realExports() throws {
    var inputs = Harness.realExports() + [Harness.samples.appendingPathComponent("export.xml")]
    let fragments = Harness.realFixtures.appendingPathComponent("NicolasReyrolle-apple-health-analyzer")
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    for name in try FileManager.default.contentsOfDirectory(atPath: fragments.path) where name.hasPrefix("workout_") {
      let text = try String(contentsOf: fragments.appendingPathComponent(name), encoding: .utf8)
      let url = directory.appendingPathComponent(name)
      try "<HealthData locale=\"en_US\">\n\(text)\n</HealthData>\n".write(to: url, atomically: true, encoding: .utf8)
      inputs.append(url)
    }
    for url in inputs where url.pathExtension == "xml" {
      for unit in ["km", "mi"] { try Self.compare(url.path, unit: unit) }
    }
    // By hand from the Reyrolle cycling fragment: its WorkoutStatistics say 133.592 average, 170 maximum.
    let cycling = directory.appendingPathComponent("workout_cycling.xml")
    let csv = try Harness.run(["workouts", cycling.path, "--format", "csv"]).stdoutText
    #expect(csv.contains(",133.592,170,"))
  }

  @Test("--unit and --units must agree")
  func units() throws {
    let xml = Harness.samples.appendingPathComponent("export.xml").path
    let result = try Harness.run(["workouts", xml, "--unit", "km", "--units", "imperial"])
    #expect(result.status == 64)
    #expect(result.stderr.contains("--unit km contradicts --units imperial"))
    #expect(try Harness.run(["workouts", xml, "--unit", "mi", "--units", "imperial"]).status == 0)
  }
}
