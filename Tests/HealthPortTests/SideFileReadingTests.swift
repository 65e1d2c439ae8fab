import Foundation
import Testing

@testable import HealthPort

/// Records every side-file event, and the workouts.
private final class SideFileRecorder: ExportSink {
  var events: [SideFileEvent] = []
  var workouts = 0
  var ended = false
  var capabilities: SinkCapabilities { .sideFiles }
  func begin(_ header: ExportHeader) throws {}
  func consume(_ element: ExportElement) throws { if case .workout = element { workouts += 1 } }
  func end(_ report: ReadReport) throws { ended = true }
  func consumeSideFile(_ event: SideFileEvent) throws {
    #expect(!ended, "side files come before end")
    events.append(event)
  }

  var routes: [(file: RouteFile, points: [RoutePoint])] {
    var result: [(RouteFile, [RoutePoint])] = []
    for event in events {
      switch event {
      case .routeBegin(let file): result.append((file, []))
      case .routePoints(let points): result[result.count - 1].1 += points
      default: break
      }
    }
    return result
  }
}

@Suite("Side files: GPX and ECG reading, the join to workouts")
struct SideFileReadingTests {
  /// `n` points from `start` (Unix seconds), one a second, with values a test can recompute.
  static func gpx(points n: Int, start: Int) -> String {
    var lines = [
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
      "<gpx version=\"1.1\" creator=\"Apple Health Export\" "
        + "xmlns=\"http://www.topografix.com/GPX/1/1\">", "  <metadata>", "    <time>2024-06-01T10:00:00Z</time>",
      "  </metadata>", "  <trk>", "    <name>Route 2024-05-30 9:00am</name>", "    <trkseg>",
    ]
    for i in 0..<n {
      let time = HealthDate(secondsSince1970: Int64(start + i), offsetSeconds: 0)
      let stamp = String(time.description.prefix(19)).replacingOccurrences(of: " ", with: "T") + "Z"
      lines.append(
        "      <trkpt lon=\"\(String(format: "%.6f", 2 + Double(i) * 1e-5))\" lat=\"\(String(format: "%.6f", 48 + Double(i) * 1e-5))\">"
          + "<ele>\(String(format: "%.6f", Double(i % 100)))</ele><time>\(stamp)</time><extensions>"
          + "<speed>1.500000</speed><course>-1.000000</course><hAcc>5.000000</hAcc><vAcc>3.000000</vAcc></extensions></trkpt>"
      )
    }
    return (lines + ["    </trkseg>", "  </trk>", "</gpx>"]).joined(separator: "\n")
  }

  @Test("routes join their workout and the activity holding the first point; points come in bounded batches")
  func joinAndBatches() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("healthport-side-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("workout-routes"), withIntermediateDirectories: true)
    // 2024-05-30 07:00:00 UTC = 09:00 +0200.
    let t0 = 1_717_052_400
    let export = """
      <?xml version="1.0" encoding="UTF-8"?>
      <HealthData locale="en_US">
       <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="W" startDate="2024-05-30 09:00:00 +0200" endDate="2024-05-30 11:00:00 +0200">
        <WorkoutActivity uuid="A" startDate="2024-05-30 09:00:00 +0200" endDate="2024-05-30 09:59:59 +0200"/>
        <WorkoutActivity uuid="B" startDate="2024-05-30 10:00:00 +0200" endDate="2024-05-30 11:00:00 +0200"/>
        <WorkoutRoute sourceName="W" startDate="2024-05-30 09:00:00 +0200" endDate="2024-05-30 10:00:00 +0200">
         <FileReference path="/workout-routes/route_a.gpx"/>
        </WorkoutRoute>
        <WorkoutRoute sourceName="W" startDate="2024-05-30 10:00:00 +0200" endDate="2024-05-30 11:00:00 +0200">
         <FileReference path="/workout-routes/route_b.gpx"/>
        </WorkoutRoute>
       </Workout>
      </HealthData>

      """
    try export.write(to: folder.appendingPathComponent("export.xml"), atomically: true, encoding: .utf8)
    // route_b starts in activity B and takes more than two batches.
    try Self.gpx(points: 30, start: t0 + 60).write(
      to: folder.appendingPathComponent("workout-routes/route_a.gpx"), atomically: true, encoding: .utf8)
    let long = SideFileEvent.batchSize * 2 + 17
    try Self.gpx(points: long, start: t0 + 3600).write(
      to: folder.appendingPathComponent("workout-routes/route_b.gpx"), atomically: true, encoding: .utf8)

    for concurrent in [false, true] {
      let recorder = SideFileRecorder()
      var options = ReadOptions()
      options.concurrent = concurrent
      let report = try ExportReader(path: folder.path, options: options).read(into: recorder)
      #expect(recorder.workouts == 1)
      let routes = recorder.routes
      #expect(routes.map(\.file.path) == ["/workout-routes/route_a.gpx", "/workout-routes/route_b.gpx"])
      #expect(routes[0].file.join == RouteJoin(workoutIndex: 0, routeIndex: 0, activityIndex: 0))
      #expect(routes[1].file.join == RouteJoin(workoutIndex: 0, routeIndex: 1, activityIndex: 1))
      #expect(routes[1].file.name == "Route 2024-05-30 9:00am")
      #expect(routes[1].file.metadataTime == "2024-06-01T10:00:00Z")
      #expect(routes.map(\.points.count) == [30, long])
      let batches = recorder.events.compactMap { if case .routePoints(let p) = $0 { p.count } else { nil } }
      #expect(batches.allSatisfy { $0 <= SideFileEvent.batchSize })
      #expect(batches == [30, SideFileEvent.batchSize, SideFileEvent.batchSize, 17])
      let last = try #require(routes[1].points.last)
      let i = long - 1
      #expect(last.latitude == String(format: "%.6f", 48 + Double(i) * 1e-5))
      #expect(last.longitude == String(format: "%.6f", 2 + Double(i) * 1e-5))
      #expect(last.elevation == String(format: "%.6f", Double(i % 100)))
      #expect(last.instant?.secondsSince1970 == Int64(t0 + 3600 + i))
      #expect(last.course == "-1.000000" && last.speed == "1.500000")
      #expect(last.horizontalAccuracy == "5.000000" && last.verticalAccuracy == "3.000000")
      #expect(report.sideFiles.routeFiles == 2 && report.sideFiles.routePoints == 30 + long)
      #expect(report.sideFiles.unreferencedRoutes.isEmpty && report.sideFiles.missingRoutes.isEmpty)
    }
  }

  @Test("ECG samples keep their text, with '.' for a ',' separator; quoted header values unquoted")
  func ecgValues() throws {
    let text = """
      Name,"Doe, Jane"
      Date of Birth,"Jan 8, 2002"
      Recorded Date,2023-03-04 20:55:07 -0500
      Device,"Watch7,12"
      Sample Rate,"512,844 hertz"


      Lead,Lead I
      Unit,µV

      -265,868
      12
      0,5

      """
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("ecg-\(UUID().uuidString).csv")
    defer { try? FileManager.default.removeItem(at: file) }
    try text.write(to: file, atomically: true, encoding: .utf8)
    let recorder = SideFileRecorder()
    let report = try ExportReader(path: file.path).read(into: recorder)
    #expect(report.format == .ecg)
    guard case .ecgBegin(let recording) = recorder.events.first else {
      Issue.record("no ecgBegin")
      return
    }
    #expect(recording.name == "Doe, Jane")
    #expect(recording.device == "Watch7,12")
    #expect(recording.sampleRateHertz == 512.844)
    #expect(recording.unit == "µV")
    #expect(recording.decimalSeparator == UInt8(ascii: ","))
    let samples: [String] = recorder.events.flatMap { event -> [String] in
      if case .ecgSamples(let s) = event { s } else { [] }
    }
    #expect(samples == ["-265.868", "12", "0.5"])
  }
}
