import Foundation

/// Side-file counts of an export bundle computed apart from healthport: Python's `zipfile` (not
/// libarchive) and regular expressions (not libxml2) over a zip, a folder, or one file.
struct BundleCount: Decodable, Equatable {
  var routeFiles: Int
  var routePoints: Int
  var inlineRoutes: Int
  var inlinePoints: Int
  var ecgRecordings: Int
  var ecgSamples: Int
  var unreferenced: [String]
  var missing: [String]
  /// Points per route file, by `/workout-routes/NAME`.
  var pointsByRoute: [String: Int]

  static let script = #"""
    import json, os, re, sys, zipfile
    path = sys.argv[1]
    members = {}
    if os.path.isdir(path):
        for root, _, names in os.walk(path):
            for n in names:
                members[os.path.relpath(os.path.join(root, n), path)] = open(os.path.join(root, n), "rb").read()
    elif zipfile.is_zipfile(path):
        z = zipfile.ZipFile(path)
        members = {n: z.read(n) for n in z.namelist() if not n.endswith("/")}
    else:
        members = {os.path.basename(path): open(path, "rb").read()}
    members = {n: d for n, d in members.items() if "__MACOSX" not in n and not os.path.basename(n).startswith("._")}
    export = next((d for d in members.values() if b"<HealthData" in d[:1 << 16]), b"")
    refs = set("/workout-routes/" + p.decode().split("/")[-1]
               for p in re.findall(rb'<FileReference path="([^"]+)"', export))
    routes = {"/workout-routes/" + n.split("/")[-1]: d.count(b"<trkpt ")
              for n, d in members.items() if n.lower().endswith(".gpx")}
    ecgs = [d for n, d in members.items() if n.endswith(".csv") and d.startswith(b"Name")]
    number = re.compile(rb'^"?[-+]?\d+([.,]\d+)?"?$')
    samples = sum(sum(1 for line in d.split(b"\n") if number.match(line.strip(b"\r"))) for d in ecgs)
    inline = re.findall(rb"<WorkoutRoute[^>]*>((?:(?!</WorkoutRoute>).)*)</WorkoutRoute>", export, re.S)
    inline_points = [block.count(b"<Location ") for block in inline]
    print(json.dumps({
        "routeFiles": len(routes), "routePoints": sum(routes.values()),
        "inlineRoutes": sum(1 for c in inline_points if c > 0), "inlinePoints": sum(inline_points),
        "ecgRecordings": len(ecgs), "ecgSamples": samples,
        "unreferenced": sorted(set(routes) - refs) if export else sorted(routes),
        "missing": sorted(refs - set(routes)), "pointsByRoute": routes}))
    """#

  static func of(_ url: URL) throws -> BundleCount {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, url.path]
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return try JSONDecoder().decode(BundleCount.self, from: data)
  }
}

/// A generated bundle (`generate_export.py --bundle`), written once per version of the generator
/// (its name holds a hash of the generator's files) and shared by the test runs that follow.
enum GeneratedBundle {
  static let folder: URL = {
    let generator = Harness.repoRoot.appendingPathComponent("Benchmarks")
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for name in ["generate_export.py", "generate_bundle.py"] {
      for byte in (try? Data(contentsOf: generator.appendingPathComponent(name))) ?? Data() {
        hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
      }
    }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "healthport-bundle-\(String(hash, radix: 16))")
    guard !FileManager.default.fileExists(atPath: url.appendingPathComponent("export.zip").path) else { return url }
    let scratch = url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + ".tmp-\(getpid())")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "python3", generator.appendingPathComponent("generate_export.py").path, "--size-mb", "2", "--gpx-mb", "2",
      "--seed", "3", "--bundle", scratch.path, "--quiet",
    ]
    try? process.run()
    process.waitUntilExit()
    // Another test process may have finished first: then its copy is used.
    if (try? FileManager.default.moveItem(at: scratch, to: url)) == nil {
      try? FileManager.default.removeItem(at: scratch)
    }
    return url
  }()

  static var zip: URL { folder.appendingPathComponent("export.zip") }
  static var exportFolder: URL { folder.appendingPathComponent("apple_health_export") }

  /// A copy of the export folder to damage, in a fresh temporary directory.
  static func copy() throws -> URL {
    let directory = try Harness.temporaryDirectory()
    let target = directory.appendingPathComponent("apple_health_export")
    try FileManager.default.copyItem(at: exportFolder, to: target)
    return target
  }
}
