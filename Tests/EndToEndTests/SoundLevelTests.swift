import Foundation
import TestSupport
import Testing

/// `stats` of sound levels through the binary: energy averages, checked against Python.
@Suite("stats: sound levels")
struct SoundLevelTests {
  static let script = #"""
    import sys, json, math, re
    import xml.etree.ElementTree as ET
    from datetime import datetime
    data = re.sub(rb"<!DOCTYPE.*?\]>", b"", open(sys.argv[1], "rb").read(), count=1, flags=re.S)
    days = {}
    for r in ET.fromstring(data).findall("Record"):
        if r.get("type") != "HKQuantityTypeIdentifier" + sys.argv[2]:
            continue
        s = datetime.strptime(r.get("startDate"), "%Y-%m-%d %H:%M:%S %z")
        e = datetime.strptime(r.get("endDate"), "%Y-%m-%d %H:%M:%S %z")
        days.setdefault(r.get("startDate")[:10], []).append((max(0.0, (e - s).total_seconds()), float(r.get("value"))))
    out = []
    for day in sorted(days):
        g = days[day]
        total = sum(d for d, _ in g)
        mean = sum(d * 10 ** (v / 10) for d, v in g) / total if total > 0 else sum(10 ** (v / 10) for _, v in g) / len(g)
        out.append({"period": day, "value": 10 * math.log10(mean), "samples": len(g), "unit": "dBASPL"})
    print(json.dumps(out))
    """#

  static func expected(_ path: String, type: String) throws -> [[String: Any]] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, path, type]
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let out = directory.appendingPathComponent("out.json")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: out)
    try process.run()
    process.waitUntilExit()
    return try Harness.json(Data(contentsOf: out)) as? [[String: Any]] ?? []
  }

  static func compare(_ path: String, type: String) throws {
    let result = try Harness.run(["stats", path, "--type", type, "--format", "json"])
    #expect(result.status == 0, "\(result.stderr)")
    let actual = try Harness.json(result.stdout) as? [[String: Any]] ?? []
    AggregateTests.compareRows(
      actual, try expected(path, type: type), numbers: ["value", "samples"], strings: ["period", "unit"], what: path)
  }

  @Test("generated headphone levels: lasting and instantaneous samples over several days")
  func generated() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
    var state: UInt64 = 42
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    for day in 1...9 {
      for index in 0..<(3 + next(6)) {
        let minute = 8 * 60 + index * 47 + next(30)
        // Day 5: only zero-length samples (equal weights).
        let seconds = day == 5 ? 0 : [0, 30, 60, 600, 1800][next(5)]
        let start = String(format: "2024-06-%02d %02d:%02d:00 +0200", day, minute / 60, minute % 60)
        let endMinute = minute * 60 + seconds
        let end = String(
          format: "2024-06-%02d %02d:%02d:%02d +0200", day, endMinute / 3600, endMinute / 60 % 60, endMinute % 60)
        let level = 45 + Double(next(500)) / 10
        text +=
          " <Record type=\"HKQuantityTypeIdentifierHeadphoneAudioExposure\" sourceName=\"Io’s iPhone\" unit=\"dBASPL\" startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(level)\"/>\n"
      }
    }
    let url = directory.appendingPathComponent("export.xml")
    try (text + "</HealthData>\n").write(to: url, atomically: true, encoding: .utf8)
    try Self.compare(url.path, type: "HeadphoneAudioExposure")
  }

  @Test("the real export with sound levels", .needsRealFixtures)
  func real() throws {
    let path = Harness.realFixtures.appendingPathComponent("opendroid-hk/sampleexport-2.xml").path
    try Self.compare(path, type: "EnvironmentalAudioExposure")
  }
}
