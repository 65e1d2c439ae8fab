import Foundation
import TestSupport
import Testing

/// `healthport profile` through the built binary, against a Python reading of the XML.
@Suite("profile")
struct ProfileCommandTests {
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

    root = load(sys.argv[1])
    imperial = sys.argv[2] == "imperial"
    me = root.find("Me")
    me = me.attrib if me is not None else {}
    C = "HKCharacteristicTypeIdentifier"
    def word(key, prefix, table):
        v = me.get(C + key) or ""
        v = v[len(prefix):] if v.startswith(prefix) else v
        return None if v in ("", "NotSet") else table.get(v, v)
    out = {}
    dob = me.get(C + "DateOfBirth") or None
    out["dateOfBirth"] = dob
    ed = root.find("ExportDate")
    export = ed.get("value") if ed is not None else None
    out["exportDate"] = export
    if dob and export:
        b = datetime.date.fromisoformat(dob)
        e = datetime.date.fromisoformat(export[:10])
        out["age"] = e.year - b.year - ((e.month, e.day) < (b.month, b.day))
    else:
        out["age"] = None
    out["biologicalSex"] = word("BiologicalSex", "HKBiologicalSex", {"Female": "female", "Male": "male", "Other": "other"})
    out["bloodType"] = word("BloodType", "HKBloodType", {k + s: k + m for k in ("A", "B", "AB", "O") for s, m in (("Positive", "+"), ("Negative", "\u2212"))})
    out["fitzpatrickSkinType"] = word("FitzpatrickSkinType", "HKFitzpatrickSkinType", {r: "type " + r for r in ("I", "II", "III", "IV", "V", "VI")})
    out["cardioFitnessMedicationsUse"] = word("CardioFitnessMedicationsUse", "", {"None": "none"})
    latest = {}
    for i, r in enumerate(root.findall("Record")):
        if not r.get("type").startswith("HKQuantityTypeIdentifier"):
            continue
        t = r.get("type")[len("HKQuantityTypeIdentifier"):]
        if t not in ("Height", "BodyMass", "BodyMassIndex", "RestingHeartRate", "WalkingHeartRateAverage", "VO2Max"):
            continue
        s = datetime.datetime.strptime(r.get("startDate"), "%Y-%m-%d %H:%M:%S %z").timestamp()
        if t not in latest or (s, i) > latest[t][0]:
            latest[t] = ((s, i), float(r.get("value")), r.get("unit"), r.get("startDate"))
    M = {"m": 1, "cm": 0.01, "mm": 0.001, "ft": 0.3048, "in": 0.0254}
    K = {"kg": 1, "g": 0.001, "lb": 0.45359237, "st": 6.35029318}
    h = latest.get("Height")
    w = latest.get("BodyMass")
    if h:
        m = h[1] * M[h[2]]
        if imperial:
            inches = m / 0.0254
            out["height"] = {"ft": inches // 12, "in": inches - 12 * (inches // 12), "date": h[3]}
        else:
            out["height"] = {"m": m, "cm": m * 100, "date": h[3]}
    else:
        out["height"] = None
    if w:
        kg = w[1] * K[w[2]]
        out["bodyMass"] = {"lb": kg / 0.45359237, "date": w[3]} if imperial else {"kg": kg, "date": w[3]}
    else:
        out["bodyMass"] = None
    out["bmiComputed"] = (w[1] * K[w[2]]) / (h[1] * M[h[2]]) ** 2 if h and w else None
    b = latest.get("BodyMassIndex")
    out["bmiRecorded"] = b[1] if b else None
    out["bmiRecordedDate"] = b[3] if b else None
    for key, t in (("restingHeartRate", "RestingHeartRate"), ("walkingHeartRateAverage", "WalkingHeartRateAverage"), ("vo2Max", "VO2Max")):
        x = latest.get(t)
        out[key] = {"value": x[1], "unit": x[2], "date": x[3]} if x else None
    print(json.dumps(out))
    """#

  static func expected(_ path: String, units: String) throws -> [String: Any] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, path, units]
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let out = directory.appendingPathComponent("out.json")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: out)
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "python on \(path)")
    return try Harness.json(Data(contentsOf: out)) as? [String: Any] ?? [:]
  }

  /// Equal values: numbers to a relative 1e-9 (JSON holds them exactly), the rest exactly.
  static func same(_ got: Any?, _ want: Any?) -> Bool {
    switch (got, want) {
    case (nil, nil), (is NSNull, nil), (nil, is NSNull), (is NSNull, is NSNull): return true
    case (let a as Double, let b as Double): return relativelyClose(a, b)
    case (let a as String, let b as String): return a == b
    case (let a as [String: Any], let b as [String: Any]):
      return Set(a.keys) == Set(b.keys) && a.keys.allSatisfy { same(a[$0], b[$0]) }
    default: return false
    }
  }

  static func compare(_ path: String, units: String) throws {
    let result = try Harness.run(["profile", path, "--format", "json", "--units", units])
    #expect(result.status == 0, "\(path): \(result.stderr)")
    let got = try Harness.json(result.stdout) as? [String: Any] ?? [:]
    let want = try expected(path, units: units)
    #expect(Set(got.keys) == Set(want.keys), "\(path)")
    for key in want.keys {
      #expect(same(got[key], want[key]), "\(path) \(units) \(key): \(got[key] ?? "nil") vs \(want[key] ?? "nil")")
    }
  }

  @Test("Samples: the Me characteristics in words, the latest weight and VO2 max, the rest missing")
  func samples() throws {
    for units in ["metric", "imperial"] {
      try Self.compare(Harness.samples.appendingPathComponent("export.xml").path, units: units)
    }
    let table = try Harness.run(["profile", Harness.samples.appendingPathComponent("export.zip").path])
    #expect(table.status == 0)
    let lines = table.stdoutText.split(separator: "\n").map {
      $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
    // Samples/export.xml: born 1988-04-23, exported 2024-12-03: 36; female, A+, type III, None.
    #expect(lines.contains("age at export 36 2024-12-03 20:15:42 +0100"))
    #expect(lines.contains("blood type A+"))
    #expect(lines.contains("Fitzpatrick skin type type III"))
    // Recorded in kg, shown as written.
    #expect(lines.contains("weight 77.1003 kg 2024-11-29 07:30:00 +0100"))
    #expect(lines.contains("height (missing)"))
  }

  @Test("every real export with Me agrees, metric and imperial", .needsRealFixtures)
  func realExports() throws {
    let exports = Harness.realExports().filter { $0.pathExtension == "xml" }
    #expect(exports.count >= 5)
    for url in exports {
      for units in ["metric", "imperial"] { try Self.compare(url.path, units: units) }
    }
  }

  @Test("by hand: the opendroid export (born 1971-07-09, exported 2021-01-22; 175.3 cm, 63.5 kg)", .needsRealFixtures)
  func byHand() throws {
    let path = Harness.realFixtures.appendingPathComponent("opendroid-hk/sampleexport-2.xml").path
    let metric = try Harness.json(try Harness.run(["profile", path, "--format", "json"]).stdout) as? [String: Any]
    #expect(metric?["age"] as? Int == 49)
    let table = try Harness.run(["profile", path]).stdoutText
    #expect(table.contains("20.67"), "\(table)")  // 140 lb / (69 in)² = 63.503 kg / 1.7526² m² = 20.674
    let imperial = try Harness.run(["profile", path, "--units", "imperial"]).stdoutText
    #expect(imperial.contains("5 ft 9 in"))  // 175.3 cm = 69.0 in
    #expect(imperial.contains("140 lb"))
  }

  @Test("profile: converted weights and heights rounded per unit, a value recorded in the shown unit as written")
  func profileUnits() throws {
    let pounds = try PrecisionTests.export([
      PrecisionTests.record("BodyMass", "lb", "2024-03-10 08:00:00 +0000", "150"),
      PrecisionTests.record("Height", "cm", "2024-03-10 08:00:00 +0000", "175.25"),
    ])
    let kilograms = try PrecisionTests.export([
      PrecisionTests.record("BodyMass", "kg", "2024-03-10 08:00:00 +0000", "72.456"),
      PrecisionTests.record("Height", "m", "2024-03-10 08:00:00 +0000", "1.8"),
    ])
    defer {
      for url in [pounds, kilograms] { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    }
    func lines(_ url: URL, _ units: String) throws -> [String] {
      let result = try Harness.run(["profile", url.path, "--units", units])
      #expect(result.status == 0, "\(result.stderr)")
      return PrecisionTests.tableLines(result.stdoutText)
    }
    let date = "2024-03-10 08:00:00 +0000"
    // 150 lb = 68.0388555 kg; 175.25 cm = 69.0 in.
    let metric = try lines(pounds, "metric")
    #expect(metric.contains("weight 68.04 kg \(date)"), "\(metric)")
    #expect(metric.contains("height 1.75 m (175.25 cm) \(date)"), "\(metric)")
    let imperial = try lines(pounds, "imperial")
    #expect(imperial.contains("weight 150 lb \(date)"), "\(imperial)")
    #expect(imperial.contains("height 5 ft 9 in \(date)"), "\(imperial)")
    // 72.456 kg = 159.737 lb; 1.8 m = 180 cm.
    let kilogramLines = try lines(kilograms, "metric")
    #expect(kilogramLines.contains("weight 72.456 kg \(date)"), "\(kilogramLines)")
    #expect(kilogramLines.contains("height 1.8 m (180 cm) \(date)"), "\(kilogramLines)")
    #expect(try lines(kilograms, "imperial").contains("weight 159.7 lb \(date)"))
    // JSON: every number exact.
    let json = try Harness.json(try Harness.run(["profile", pounds.path, "--format", "json"]).stdout) as? [String: Any]
    let mass = json?["bodyMass"] as? [String: Any]
    #expect(mass?["kg"] as? Double == 150 * 0.453_592_37)
    let height = json?["height"] as? [String: Any]
    #expect(height?["cm"] as? Double == 175.25)
    #expect(relativelyClose(height?["m"] as? Double ?? 0, 1.7525))
  }

  @Test("usage errors")
  func usage() throws {
    let xml = Harness.samples.appendingPathComponent("export.xml").path
    #expect(try Harness.run(["profile", xml, "--units", "metrics"]).status == 64)
    #expect(try Harness.run(["profile", xml, "--format", "csv"]).status == 64)
    #expect(try Harness.run(["profile", xml, "--type", "Height"]).status == 64)
  }
}
