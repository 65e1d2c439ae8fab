import Foundation

/// Expected contents of a healthport database, computed by Python (xml.etree + sqlite3), a code
/// path independent of healthport's reader and of its SQLite wrapper.
enum SQLiteExpectations {
  /// Runs `python3 -c script args…` and parses its JSON output.
  static func python(_ script: String, _ arguments: [String]) throws -> [String: Any] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script] + arguments
    let scratch = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let outURL = scratch.appendingPathComponent("out")
    let errURL = scratch.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: outURL)
    process.standardError = try FileHandle(forWritingTo: errURL)
    try process.run()
    process.waitUntilExit()
    let stderr = String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
    guard process.terminationStatus == 0 else {
      throw PythonError(message: "python3 failed (\(process.terminationStatus)): \(stderr)")
    }
    guard let object = try JSONSerialization.jsonObject(with: Data(contentsOf: outURL)) as? [String: Any] else {
      throw PythonError(message: "python3 printed no JSON object")
    }
    return object
  }

  struct PythonError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
  }

  /// What the export at `path` (xml or zip) should put in the database.
  static func expected(_ path: String) throws -> [String: Any] { try python(exportScript, [path]) }

  /// What the database at `path` holds for `person`.
  static func actual(_ path: String, person: String = "") throws -> [String: Any] {
    try python(databaseScript, [path, person])
  }

  static let exportScript = #"""
    import sys, json, re, zipfile
    import xml.etree.ElementTree as ET
    from datetime import datetime

    path = sys.argv[1]
    if path.endswith(".zip"):
        z = zipfile.ZipFile(path)
        data = None
        for n in z.namelist():
            d = z.read(n)
            if b"<HealthData" in d[:1 << 20] and not n.startswith("__MACOSX"):
                data = d
                break
    else:
        data = open(path, "rb").read()
    start = data.find(b"<!DOCTYPE")
    if start >= 0:
        end = data.find(b"]>", start)
        data = data[:start] + data[end + 2:]
    data = re.sub(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]", b"", data)
    root = ET.fromstring(data)

    def instant(text):
        return int(datetime.strptime(text, "%Y-%m-%d %H:%M:%S %z").timestamp())

    # The creation instant is part of every sample's key (None when absent).
    def created(e):
        c = e.get("creationDate")
        return None if c is None else instant(c)

    FIELDS = "name|manufacturer|model|hardware|firmware|software|localIdentifier|UDIDeviceIdentifier|creation date"
    def device_key(device):
        if device is None:
            return None
        tail = device
        if tail.startswith("<") and tail.endswith(">"):
            tail = tail[1:-1]
        if tail.startswith("<") and ">" in tail:
            tail = tail[tail.index(">") + 1:]
        if tail.startswith(", "):
            tail = tail[2:]
        parts = re.split(r"(?:^|, )(" + FIELDS + r"):", tail)
        if len(parts) < 3:
            return ("raw", device[device.index(">") + 1:] if device.startswith("<<HKDevice:") and ">" in device else device)
        fields = dict(zip(parts[1::2], parts[2::2]))
        fields.pop("creation date", None)
        return tuple(sorted(fields.items()))

    def source_key(e):
        a = e.attrib
        return (a.get("sourceName"), a.get("sourceVersion"), device_key(a.get("device")))

    def ser(e):
        return (e.tag, tuple(e.attrib.items()), tuple(ser(c) for c in e))

    RECORD_KNOWN = {"type", "sourceName", "sourceVersion", "device", "unit", "creationDate", "startDate", "endDate", "value"}
    def record_content(r):
        a = r.attrib
        extra = tuple((k, v) for k, v in a.items() if k not in RECORD_KNOWN)
        return (a.get("unit"), a.get("value"), extra, tuple(ser(c) for c in r))

    def record_key(r):
        a = r.attrib
        return (a["type"], source_key(r), instant(a["startDate"]), instant(a["endDate"]), created(r), record_content(r))

    tables = {t: 0 for t in ["records", "metadata", "hrv_beats", "correlations", "correlation_records", "workouts",
        "workout_events", "workout_activities", "workout_statistics", "workout_routes", "route_locations",
        "activity_summaries", "me", "other_elements"]}
    copies = {"records": 0, "correlations": 0, "workouts": 0, "activity_summaries": 0, "other_elements": 0}
    seen = set()
    sources = set()
    steps = {}
    # Counted once (docs/sqlite.md, "Views"): the first of each rewrite group and
    # of each duplicated workout, in document order.
    steps_once = {}
    rewrite_seen = set()
    summary_once = {}
    duplicate_seen = set()
    def number(text):
        try:
            return float(text)
        except (TypeError, ValueError):
            return text
    FACTORS = {
        "min": {"min": 1, "s": 1 / 60, "ms": 1 / 60000, "hr": 60, "d": 1440},
        "km": {"km": 1, "m": 0.001, "mi": 1.609344, "yd": 0.0009144, "ft": 0.0003048, "cm": 0.00001,
            "mm": 0.000001, "in": 0.0000254},
        "kcal": {"kcal": 1, "Cal": 1, "kJ": 1 / 4.184, "cal": 0.001, "J": 1 / 4184},
    }
    def convert(text, unit, kind):
        try:
            value = float(text)
        except (TypeError, ValueError):
            return None
        factor = FACTORS[kind].get(unit)
        return None if factor is None else value * factor
    summary = {}

    def metadata_count(e):
        return sum(1 for c in e if c.tag == "MetadataEntry")

    for e in root:
        tag = e.tag
        if tag == "ExportDate":
            continue
        if tag == "Record":
            copies["records"] += 1
            sources.add(source_key(e))
            if e.get("type") == "HKQuantityTypeIdentifierStepCount":
                day = e.get("startDate")[:10]
                s = steps.setdefault(day, [0.0, 0])
                s[0] += float(e.get("value"))
                s[1] += 1
                a = e.attrib
                rewrite = (a["sourceName"], a["type"], a.get("unit"), instant(a["startDate"]), instant(a["endDate"]),
                    number(a.get("value")))
                if rewrite not in rewrite_seen:
                    rewrite_seen.add(rewrite)
                    s = steps_once.setdefault(day, [0.0, 0])
                    s[0] += float(a["value"])
                    s[1] += 1
            key = ("R",) + record_key(e)
            if key in seen:
                continue
            seen.add(key)
            tables["records"] += 1
            tables["metadata"] += metadata_count(e)
            for c in e:
                if c.tag == "HeartRateVariabilityMetadataList":
                    tables["hrv_beats"] += sum(1 for b in c if b.tag == "InstantaneousBeatsPerMinute")
        elif tag == "Correlation":
            copies["correlations"] += 1
            sources.add(source_key(e))
            a = e.attrib
            extra = tuple((k, v) for k, v in a.items() if k not in RECORD_KNOWN)
            children = []
            for c in e:
                if c.tag == "Record":
                    ca = c.attrib
                    children.append(("Record", ca["type"], ca["sourceName"], instant(ca["startDate"]),
                        instant(ca["endDate"]), record_content(c)))
                else:
                    children.append(ser(c))
            key = ("C", a["type"], source_key(e), instant(a["startDate"]), instant(a["endDate"]), created(e), extra,
                tuple(children))
            if key in seen:
                continue
            seen.add(key)
            tables["correlations"] += 1
            tables["metadata"] += metadata_count(e)
            for c in e:
                if c.tag == "Record":
                    sources.add(source_key(c))
                    tables["correlation_records"] += 1
                    tables["metadata"] += metadata_count(c)
        elif tag == "Workout":
            copies["workouts"] += 1
            a = e.attrib
            sources.add(source_key(e))
            activity = a["workoutActivityType"]
            short = activity[len("HKWorkoutActivityType"):] if activity.startswith("HKWorkoutActivityType") else activity
            duration = convert(a.get("duration"), a.get("durationUnit", "min"), "min")
            if "totalDistance" in a:
                distance = convert(a.get("totalDistance"), a.get("totalDistanceUnit", "km"), "km")
            else:
                distance = None
                for c in e:
                    if c.tag == "WorkoutStatistics" and c.get("type", "").startswith("HKQuantityTypeIdentifierDistance"):
                        v = convert(c.get("sum"), c.get("unit"), "km")
                        if v is not None:
                            distance = (distance or 0) + v
            if "totalEnergyBurned" in a:
                energy = convert(a.get("totalEnergyBurned"), a.get("totalEnergyBurnedUnit", "kcal"), "kcal")
            else:
                energy = None
                for c in e:
                    if c.tag == "WorkoutStatistics" and c.get("type") == "HKQuantityTypeIdentifierActiveEnergyBurned":
                        v = convert(c.get("sum"), c.get("unit"), "kcal")
                        if v is not None:
                            energy = (energy or 0) + v
            totals = tuple(number(a.get(k)) for k in
                ("totalDistance", "totalDistanceUnit", "totalEnergyBurned", "totalEnergyBurnedUnit"))
            statistics = None
            if a.get("totalDistance") is None and a.get("totalEnergyBurned") is None:
                statistics = frozenset((c.get("type"), number(c.get("sum")), c.get("unit"))
                    for c in e if c.tag == "WorkoutStatistics")
            duplicate = (activity, instant(a["startDate"]), instant(a["endDate"]), number(a.get("duration")),
                a.get("durationUnit"), a.get("sourceName"), totals, statistics)
            tallies = [summary]
            if duplicate not in duplicate_seen:
                duplicate_seen.add(duplicate)
                tallies.append(summary_once)
            for tally in tallies:
                s = tally.setdefault(short, [0, 0.0, None, None])
                s[0] += 1
                s[1] += duration or 0
                if distance is not None:
                    s[2] = (s[2] or 0) + distance
                if energy is not None:
                    s[3] = (s[3] or 0) + energy
            key = ("W", activity, source_key(e), instant(a["startDate"]), instant(a["endDate"]), created(e))
            if key in seen:
                continue
            seen.add(key)
            tables["workouts"] += 1
            tables["metadata"] += metadata_count(e)
            for c in e:
                if c.tag == "WorkoutEvent":
                    tables["workout_events"] += 1
                    tables["metadata"] += metadata_count(c)
                elif c.tag == "WorkoutStatistics":
                    tables["workout_statistics"] += 1
                elif c.tag == "WorkoutActivity":
                    tables["workout_activities"] += 1
                    tables["metadata"] += metadata_count(c)
                    for g in c:
                        if g.tag == "WorkoutEvent":
                            tables["workout_events"] += 1
                            tables["metadata"] += metadata_count(g)
                        elif g.tag == "WorkoutStatistics":
                            tables["workout_statistics"] += 1
                elif c.tag == "WorkoutRoute":
                    sources.add(source_key(c))
                    tables["workout_routes"] += 1
                    tables["metadata"] += metadata_count(c)
                    tables["route_locations"] += sum(1 for g in c if g.tag == "Location")
        elif tag == "ActivitySummary":
            copies["activity_summaries"] += 1
            key = ("A", ser(e))
            if key not in seen:
                seen.add(key)
                tables["activity_summaries"] += 1
        elif tag == "Me":
            key = ("M", ser(e))
            if key not in seen:
                seen.add(key)
                tables["me"] += 1
        else:
            copies["other_elements"] += 1
            key = ("O", ser(e))
            if key not in seen:
                seen.add(key)
                tables["other_elements"] += 1

    tables["sources"] = len(sources)
    r3 = lambda v: None if v is None else round(v, 3)
    def summary_rows(tally):
        rows = sorted(tally.items(), key=lambda kv: (-kv[1][0], kv[0]))
        return [[k, v[0], r3(v[1]), r3(v[2]), r3(v[3])] for k, v in rows]
    print(json.dumps({
        "tables": tables,
        "copies": copies,
        "daily_steps": [[day, s[0], s[1]] for day, s in sorted(steps_once.items())],
        "daily_steps_as_written": [[day, s[0], s[1]] for day, s in sorted(steps.items())],
        "workouts_summary": summary_rows(summary_once),
        "workouts_summary_as_written": summary_rows(summary),
    }))
    """#

  static let databaseScript = #"""
    import sys, json, sqlite3
    # Read-write, so that SQLite recovers the WAL a killed writer left (read-only would ignore it).
    db = sqlite3.connect(sys.argv[1])
    person = sys.argv[2]
    tables = ["sources", "records", "metadata", "hrv_beats", "correlations", "correlation_records", "workouts",
        "workout_events", "workout_activities", "workout_statistics", "workout_routes", "route_locations",
        "activity_summaries", "me", "other_elements", "extras"]
    counts = {t: db.execute(f"SELECT count(*) FROM {t} WHERE person = ?", (person,)).fetchone()[0] for t in tables}
    copies = {t: db.execute(f"SELECT total(copies) FROM {t} WHERE person = ?", (person,)).fetchone()[0]
        for t in ["records", "correlations", "workouts", "activity_summaries", "other_elements"]}
    def view(name, columns):
        return [list(r) for r in db.execute(f"SELECT {columns} FROM {name} WHERE person = ?", (person,))]
    steps = "period, steps, samples"
    summary = "activity, count, duration_min, distance, energy"
    exports = db.execute(
        "SELECT person, completed, rows_added, records_read, records_added FROM exports ORDER BY id").fetchall()
    print(json.dumps({
        "tables": counts,
        "copies": {k: int(v) for k, v in copies.items()},
        "daily_steps": view("daily_steps", steps),
        "daily_steps_as_written": view("daily_steps_as_written", steps),
        "workouts_summary": view("workouts_summary", summary),
        "workouts_summary_as_written": view("workouts_summary_as_written", summary),
        "exports": [list(r) for r in exports],
        "application_id": db.execute("PRAGMA application_id").fetchone()[0],
        "user_version": db.execute("PRAGMA user_version").fetchone()[0],
    }))
    """#
}
