import Foundation

/// Expected `steps` and `workouts` results computed by a separate implementation: a Python 3
/// standard-library script (ElementTree) run through Process. It reads the XML (or the zip
/// member holding `<HealthData`), never healthport's output.
enum IndependentAggregates {
  static let script = #"""
    import sys, json, re, zipfile, datetime
    import xml.etree.ElementTree as ET

    def load(path):
        if path.endswith(".zip"):
            z = zipfile.ZipFile(path)
            for n in z.namelist():
                d = z.read(n)
                if b"<HealthData" in d[:1 << 20] and not n.startswith("__MACOSX"):
                    data = d
                    break
        else:
            data = open(path, "rb").read()
        data = re.sub(rb"<!DOCTYPE.*?\]>", b"", data, count=1, flags=re.S)
        return ET.fromstring(data)

    def product(el):
        dev = el.get("device") or ""
        name = el.get("sourceName") or ""
        fields = dict(re.findall(r"(model|hardware):([^,>]*)", dev))
        for p in ["Watch", "iPhone", "iPad", "iPod"]:
            if fields.get("model", "").startswith(p) or fields.get("hardware", "").startswith(p):
                return p
        for p in ["Watch", "iPhone", "iPad", "iPod"]:
            if p in name:
                return p
        return fields.get("model") or None

    def instant(s):
        return int(datetime.datetime.strptime(s, "%Y-%m-%d %H:%M:%S %z").timestamp())

    def period(s, by):
        d = datetime.date(int(s[0:4]), int(s[5:7]), int(s[8:10]))
        if by == "day": return s[:10]
        if by == "month": return s[:7]
        if by == "year": return s[:4]
        y, w, _ = d.isocalendar()
        return "%04d-W%02d" % (y, w)

    def steps(root, by, only_product, dedupe, keep):
        samples = [r for r in root.findall("Record") if r.get("type") == "HKQuantityTypeIdentifierStepCount"]
        if only_product:
            samples = [r for r in samples if (product(r) or r.get("sourceName")).lower() == only_product.lower()]
        # Rewrites: same source name, unit, start and end instants and value; the first stays.
        seen, unique = set(), []
        for r in samples:
            key = (r.get("sourceName"), r.get("unit"), instant(r.get("startDate")), instant(r.get("endDate")),
                   float(r.get("value")))
            if keep or key not in seen:
                seen.add(key)
                unique.append(r)
        out = {}
        if not dedupe:
            for r in unique:
                k = period(r.get("startDate"), by)
                v, n = out.get(k, (0.0, 0))
                out[k] = (v + float(r.get("value")), n + 1)
            return out
        others = []
        for r in samples:
            if product(r) not in ("Watch", "iPhone") and r.get("sourceName") not in others:
                others.append(r.get("sourceName"))
        def rank(r):
            p = product(r)
            return 0 if p == "Watch" else 1 if p == "iPhone" else 2 + others.index(r.get("sourceName"))
        items = [(instant(r.get("startDate")), max(instant(r.get("startDate")), instant(r.get("endDate"))),
                  float(r.get("value")), rank(r), period(r.get("startDate"), by)) for r in unique]
        best = {}
        for s, e, v, k, p in items:
            for t in range(s, e):
                best[t] = min(best.get(t, k), k)
        shares = []
        for s, e, v, k, p in items:
            if e > s:
                won = sum(1 for t in range(s, e) if best[t] == k)
                shares.append(v * won / (e - s))
            else:
                better = best.get(s, 99) < k or any(e2 == s2 == s and k2 < k for s2, e2, v2, k2, p2 in items)
                shares.append(0.0 if better else v)
        for (s, e, v, k, p), share in zip(items, shares):
            if share > 1e-9:
                a, n = out.get(p, (0.0, 0))
                out[p] = (a + share, n + 1)
        return out

    LENGTH = {"m": 1.0, "km": 1000.0, "mi": 1609.344, "yd": 0.9144}
    ENERGY = {"kcal": 1.0, "Cal": 1.0, "kJ": 1 / 4.184}
    MINUTES = {"min": 1.0, "s": 1 / 60.0, "hr": 60.0}

    def workouts(root, distance_unit, energy_unit, keep):
        rows, seen = [], set()
        for w in root.findall("Workout"):
            # A duplicated workout: same activity, instants, duration, source and totals; the first stays.
            key = (w.get("workoutActivityType"), instant(w.get("startDate")), instant(w.get("endDate")),
                   w.get("duration"), w.get("durationUnit"), w.get("sourceName"), w.get("totalDistance"),
                   w.get("totalDistanceUnit"), w.get("totalEnergyBurned"), w.get("totalEnergyBurnedUnit"),
                   tuple([] if w.get("totalDistance") is not None or w.get("totalEnergyBurned") is not None else sorted((s.get("type"), s.get("sum"), s.get("unit")) for s in w.findall("WorkoutStatistics"))))
            if not keep and key in seen:
                continue
            seen.add(key)
            dur = float(w.get("duration")) * MINUTES[w.get("durationUnit", "min")] if w.get("duration") else None
            if w.get("totalDistance") is not None:
                dist = float(w.get("totalDistance")) * LENGTH[w.get("totalDistanceUnit")] / LENGTH[distance_unit]
            else:
                parts = [float(s.get("sum")) * LENGTH[s.get("unit")] / LENGTH[distance_unit]
                         for s in w.findall("WorkoutStatistics")
                         if s.get("type").startswith("HKQuantityTypeIdentifierDistance") and s.get("sum")]
                dist = sum(parts) if parts else None
            if w.get("totalEnergyBurned") is not None:
                energy = float(w.get("totalEnergyBurned")) * ENERGY[w.get("totalEnergyBurnedUnit")] / ENERGY[energy_unit]
            else:
                parts = [float(s.get("sum")) * ENERGY[s.get("unit")] / ENERGY[energy_unit]
                         for s in w.findall("WorkoutStatistics")
                         if s.get("type") == "HKQuantityTypeIdentifierActiveEnergyBurned" and s.get("sum")]
                energy = sum(parts) if parts else None
            rows.append({"start": w.get("startDate"), "end": w.get("endDate"),
                         "activity": w.get("workoutActivityType").replace("HKWorkoutActivityType", ""),
                         "duration_min": dur, "distance": dist, "energy": energy,
                         "source": w.get("sourceName"), "product": product(w)})
        rows.sort(key=lambda r: instant(r["start"]))
        return rows

    mode, path = sys.argv[1], sys.argv[2]
    root = load(path)
    if mode == "steps":
        by, only, dedupe, keep = sys.argv[3], sys.argv[4], sys.argv[5] == "1", sys.argv[6] == "1"
        res = steps(root, by, only, dedupe, keep)
        print(json.dumps([{"period": k, "steps": v, "samples": n} for k, (v, n) in sorted(res.items())]))
    else:
        print(json.dumps(workouts(root, sys.argv[3], sys.argv[4], sys.argv[5] == "1")))
    """#

  /// Runs the script; returns its JSON output parsed.
  static func run(_ arguments: [String]) throws -> [[String: Any]] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script] + arguments
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let outURL = directory.appendingPathComponent("out.json")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: outURL)
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "python failed on \(arguments)"])
    }
    return try JSONSerialization.jsonObject(with: Data(contentsOf: outURL)) as? [[String: Any]] ?? []
  }

  /// Rewrites count once unless `keepRewrites`, as in `healthport steps`.
  static func steps(
    _ path: String, by: String = "day", product: String = "", dedupe: Bool = false, keepRewrites: Bool = false
  ) throws -> [[String: Any]] {
    try run(["steps", path, by, product, dedupe ? "1" : "0", keepRewrites ? "1" : "0"])
  }

  /// Duplicated workouts count once unless `keepRewrites`, as in `healthport workouts`.
  static func workouts(
    _ path: String, distanceUnit: String = "km", energyUnit: String = "kcal", keepRewrites: Bool = false
  ) throws -> [[String: Any]] {
    try run(["workouts", path, distanceUnit, energyUnit, keepRewrites ? "1" : "0"])
  }
}
