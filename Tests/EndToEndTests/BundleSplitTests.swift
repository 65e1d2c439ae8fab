import Foundation
import TestSupport
import Testing

@Suite("convert --to csv --split: route_points, ecg_recordings, ecg_samples")
struct BundleSplitTests {
  /// As issue 13 lists them.
  static let routePointColumns = [
    "workout_id", "activity_id", "route_id", "origin", "position", "time", "latitude", "longitude", "elevation",
    "speed",
    "course", "horizontal_accuracy", "vertical_accuracy",
  ]

  /// Splits `input` into a fresh folder; returns it.
  static func split(_ input: URL, _ extra: [String] = []) throws -> URL {
    let directory = try Harness.temporaryDirectory()
    let out = directory.appendingPathComponent("split")
    let result = try Harness.run(["convert", input.path, "--to", "csv", "--split", "-o", out.path, "--quiet"] + extra)
    #expect(result.status == 0, "stderr: \(result.stderr)")
    return out
  }

  /// DuckDB over the folder: per route file, per recording, and the samples' sum, as JSON.
  static let duckdbScript = #"""
    import duckdb, json, sys
    d = sys.argv[1]
    con = duckdb.connect()
    def q(sql): return con.execute(sql.replace("D/", d + "/")).fetchall()
    points = q("select f.path, count(*) from read_csv('D/route_points.csv', header=true, all_varchar=true) r "
               "join read_csv('D/file_references.csv', header=true, all_varchar=true) f on f.parent_id = r.route_id "
               "where r.origin = 'gpx' group by f.path")
    unreferenced = q("select count(*) from read_csv('D/route_points.csv', header=true, all_varchar=true) "
                     "where workout_id is null and origin = 'gpx'")[0][0]
    inline = q("select count(*) from read_csv('D/route_points.csv', header=true) where origin = 'inline'")[0][0]
    columns = [c[0] for c in con.execute("select * from read_csv('" + d + "/route_points.csv', header=true) limit 0").description]
    samples = q("select r.file, r.samples, count(s.position), round(sum(s.value), 3), min(s.position), max(s.position) "
                "from read_csv('D/ecg_recordings.csv', header=true) r "
                "join read_csv('D/ecg_samples.csv', header=true) s on s.recording_id = r.id group by all order by 1")
    activities = q("select distinct f.path, a.uuid from read_csv('D/route_points.csv', header=true, all_varchar=true) r "
                   "join read_csv('D/file_references.csv', header=true, all_varchar=true) f on f.parent_id = r.route_id "
                   "join read_csv('D/workout_activities.csv', header=true, all_varchar=true) a on a.id = r.activity_id "
                   "where f.path like '%route_bundle_%' order by 1")
    print(json.dumps({"points": dict(points), "unreferenced": unreferenced, "inline": inline, "columns": columns,
                      "samples": [list(map(str, row)) for row in samples], "activities": [list(row) for row in activities]}))
    """#

  /// The ECG files' samples summed apart (Python, `,` read as `.`), per file.
  static let ecgSums = #"""
    import json, os, re, sys
    out = {}
    folder = sys.argv[1]
    for name in sorted(os.listdir(folder)):
        values = [float(line.replace(",", ".")) for line in open(os.path.join(folder, name), encoding="utf-8")
                  if re.match(r"^-?\d+([.,]\d+)?$", line.strip())]
        out["/electrocardiograms/" + name] = [len(values), round(sum(values), 3)]
    print(json.dumps(out))
    """#

  @Test("the tables hold every point and sample, joined, as DuckDB reads them", .needsPythonClients)
  func tablesByDuckDB() throws {
    let expected = try BundleCount.of(GeneratedBundle.zip)
    let folder = try Self.split(GeneratedBundle.zip)
    defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
    let run = try TestEnvironment.runClientPython(Self.duckdbScript, [folder.path])
    #expect(run.status == 0, "\(run.stderr)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    #expect(json["columns"] as? [String] == Self.routePointColumns)
    var referenced = expected.pointsByRoute
    for path in expected.unreferenced { referenced[path] = nil }
    #expect(json["points"] as? [String: Int] == referenced)
    #expect(
      json["unreferenced"] as? Int == expected.unreferenced.reduce(0) { $0 + expected.pointsByRoute[$1, default: 0] })
    #expect(json["inline"] as? Int == expected.inlinePoints)
    #expect(
      json["activities"] as? [[String]] == [
        ["/workout-routes/route_bundle_first.gpx", "0B6F3E1A-0000-4000-8000-000000000001"],
        ["/workout-routes/route_bundle_second.gpx", "0B6F3E1A-0000-4000-8000-000000000002"],
      ], "the two routes of the two-activity workout join their activity")

    let sums = try TestEnvironment.runClientPython(
      Self.ecgSums, [GeneratedBundle.exportFolder.appendingPathComponent("electrocardiograms").path])
    let byFile = try #require(try JSONSerialization.jsonObject(with: Data(sums.stdout.utf8)) as? [String: [Double]])
    let rows = try #require(json["samples"] as? [[String]])
    #expect(rows.count == 2)
    for row in rows {
      let want = try #require(byFile[row[0]], "\(row[0])")
      #expect(Int(row[1]) == Int(want[0]) && Int(row[2]) == Int(want[0]))
      #expect(abs((Double(row[3]) ?? 0) - want[1]) < 0.0015, "\(row)")
      #expect(row[4] == "0" && Int(row[5]) == Int(want[0]) - 1)
    }
  }

  @Test(
    "real exports with routes: one route_points row per point", .needsRealFixtures,
    arguments: [
      "jshrake-healthkit-to-sqlite/export.zip", "dogsheep-healthkit-to-sqlite/zip_contents/apple_health_export",
      "dogsheep-healthkit-to-sqlite/export.xml",
    ])
  func realFixtures(path: String) throws {
    let url = Harness.realFixtures.appendingPathComponent(path)
    let expected = try BundleCount.of(url)
    let folder = try Self.split(url)
    defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
    let text = try String(contentsOf: folder.appendingPathComponent("route_points.csv"), encoding: .utf8)
    let rows = text.split(separator: "\n").dropFirst()
    let gpx = path.hasSuffix(".xml") ? 0 : expected.routePoints
    #expect(rows.count == gpx + expected.inlinePoints)
    #expect(rows.filter { $0.contains(",inline,") }.count == expected.inlinePoints)
    #expect(rows.allSatisfy { !$0.hasPrefix(",") }, "every point of these exports joins its workout")
  }

  @Test("the ECG header becomes columns; a ',' file's samples read with '.'")
  func ecgColumns() throws {
    let folder = try Self.split(GeneratedBundle.exportFolder)
    defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
    let text = try String(contentsOf: folder.appendingPathComponent("ecg_recordings.csv"), encoding: .utf8)
    let lines = text.split(separator: "\n")
    #expect(
      lines[0] + "\n"
        == Harness.csvHeader(
          "id,file,name,date_of_birth,recorded_date,classification,symptoms,software_version,device,sample_rate,"
            + "lead,unit,header,samples,sample_rate_hz"))
    #expect(lines.count == 3)
    #expect(lines[2].contains("/electrocardiograms/ecg_2025-06-28_1.csv,Bundle Person,\"Jan 8, 2002\""))
    #expect(lines[2].contains(",\"Watch7,12\",\"512,844 hertz\",Lead I,µV,"))
    #expect(lines[2].hasSuffix(",15360,512.844"))
    let samples = try String(contentsOf: folder.appendingPathComponent("ecg_samples.csv"), encoding: .utf8)
    let raw = try String(
      contentsOf: GeneratedBundle.exportFolder.appendingPathComponent("electrocardiograms/ecg_2025-06-28_1.csv"),
      encoding: .utf8
    ).split(separator: "\n")
    let firstComma = try #require(raw.dropFirst(10).first { $0.contains(",") && $0.first != "L" && $0.first != "U" })
    #expect(samples.contains("\n2,0,\(firstComma.replacingOccurrences(of: ",", with: "."))\n"))
  }

  @Test("--activity keeps the routes of the workouts it keeps, renumbered; no ECG")
  func filtered() throws {
    let folder = try Self.split(GeneratedBundle.zip, ["--activity", "Walking"])
    defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
    let points = try String(contentsOf: folder.appendingPathComponent("route_points.csv"), encoding: .utf8)
    let rows = points.split(separator: "\n").dropFirst().map {
      $0.split(separator: ",", omittingEmptySubsequences: false)
    }
    let workouts = try String(contentsOf: folder.appendingPathComponent("workouts.csv"), encoding: .utf8)
    let walkingIDs = Set(
      workouts.split(separator: "\n").dropFirst().filter { $0.contains("Walking") }.map {
        String($0.prefix { $0 != "," })
      })
    #expect(!rows.isEmpty)
    #expect(rows.allSatisfy { walkingIDs.contains(String($0[0])) }, "every point belongs to a kept workout")
    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("ecg_samples.csv").path))
  }

}
