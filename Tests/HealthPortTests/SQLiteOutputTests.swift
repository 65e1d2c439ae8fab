import Foundation
import HealthPort
import SQLiteStore
import Testing

@testable import HealthPortSQLite

/// `convert --to sqlite` as the format registry drives it: ``SQLiteOutput/format`` directly.
@Suite("SQLite output format")
struct SQLiteOutputTests {
  /// Three top-level Records (one with metadata), a Workout and an element healthport does not know.
  static let export = """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="W" unit="count" startDate="2024-01-01 10:00:00 +0100" endDate="2024-01-01 10:01:00 +0100" value="5"/>
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="W" unit="count" startDate="2024-01-01 11:00:00 +0100" endDate="2024-01-01 11:01:00 +0100" value="7"/>
     <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="W" unit="count/min" startDate="2024-01-01 12:00:00 +0100" endDate="2024-01-01 12:00:00 +0100" value="61">
      <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>
     </Record>
     <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="W" startDate="2024-01-01 13:00:00 +0100" endDate="2024-01-01 13:30:00 +0100"/>
     <Gadget kind="a&amp;b"/>
    </HealthData>

    """

  final class Directory {
    let path: String
    init() throws {
      path = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-output-\(UUID().uuidString)").path
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
    var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
  }

  static func scalar(_ database: String, _ sql: String) throws -> Int64? {
    let db = try SQLiteConnection(path: database, mode: .readOnly)
    defer { try? db.close() }
    return try db.scalarInt(sql)
  }

  @Test("the format is named sqlite, needs a path and takes --type and --keep-partial only")
  func declaration() {
    let format = SQLiteOutput.format
    #expect(format.name == "sqlite")
    #expect(format.needsPath)
    #expect(format.filters == .typesOnly)
    #expect(format.options.map(\.name) == ["keepPartial"])
  }

  @Test("a write and a commit make the database, with every row of the export and load's summary")
  func writeAndCommit() throws {
    let directory = try Directory()
    let input = directory.file("export.xml")
    try Self.export.write(toFile: input, atomically: true, encoding: .utf8)
    let database = directory.file("out.db")
    let writer = try SQLiteOutput.format.makeWriter(OutputRequest(path: database, input: input))
    #expect(!FileManager.default.fileExists(atPath: database), "built under a temporary name until the commit")
    let report = try ExportReader(path: input).read(into: writer.sink)
    try writer.commit()
    #expect(directory.names == ["export.xml", "out.db"])
    #expect(try Self.scalar(database, "SELECT count(*) FROM records") == 3)
    #expect(try Self.scalar(database, "SELECT sum(value_num) FROM records WHERE type LIKE '%StepCount'") == 12)
    #expect(try Self.scalar(database, "SELECT count(*) FROM metadata") == 1)
    #expect(try Self.scalar(database, "SELECT count(*) FROM workouts") == 1)
    #expect(
      try Self.scalar(database, "SELECT count(*) FROM other_elements WHERE xml = '<Gadget kind=\"a&amp;b\"/>'") == 1)
    #expect(try Self.scalar(database, "SELECT completed FROM exports") == 1)
    let summary = try #require(writer.summary(report))
    #expect(summary.hasPrefix("loaded \(input) into \(database): "), "\(summary)")
    #expect(summary.contains("\n  records                          3\n"), "\(summary)")

    // The same rows as `load` writes (the job `healthport load` runs).
    let loaded = directory.file("load.db")
    try SQLiteLoadJob(database: loaded).run(paths: [input])
    for table in ["records", "metadata", "workouts", "other_elements", "sources"] {
      let rows = "SELECT count(*) FROM (SELECT * FROM \(table) EXCEPT SELECT * FROM load.\(table))"
      let db = try SQLiteConnection(path: database, mode: .readWrite)
      defer { try? db.close() }
      try db.execute("ATTACH DATABASE '\(loaded)' AS load")
      #expect(try db.scalarInt(rows) == 0, "\(table)")
    }
  }

  @Test("an abort before any element leaves no database and no temporary file")
  func abortLeavesNothing() throws {
    let directory = try Directory()
    let input = directory.file("export.xml")
    try Self.export.write(toFile: input, atomically: true, encoding: .utf8)
    let writer = try SQLiteOutput.format.makeWriter(OutputRequest(path: directory.file("out.db"), input: input))
    writer.abort()
    #expect(directory.names == ["export.xml"])
  }

  @Test("after a damaged input, abort leaves no new database, or with --keep-partial the whole elements read")
  func abortAfterDamage() throws {
    let directory = try Directory()
    let input = directory.file("cut.xml")
    let cut = Self.export.range(of: "<Record type=\"HKQuantityTypeIdentifierHeartRate\"")!.lowerBound
    try String(Self.export[..<cut]).write(toFile: input, atomically: true, encoding: .utf8)
    let database = directory.file("out.db")
    let dropped = try SQLiteOutput.format.makeWriter(OutputRequest(path: database, input: input))
    #expect(throws: (any Error).self) { try ExportReader(path: input).read(into: dropped.sink) }
    dropped.abort()
    #expect(directory.names == ["cut.xml"])
    let writer = try SQLiteOutput.format.makeWriter(
      OutputRequest(path: database, input: input, options: [SQLiteOutput.keepPartial.name: []]))
    #expect(throws: (any Error).self) { try ExportReader(path: input).read(into: writer.sink) }
    writer.abort()
    #expect(directory.names == ["cut.xml", "out.db"])
    #expect(try Self.scalar(database, "SELECT count(*) FROM records") == 2)
    #expect(try Self.scalar(database, "SELECT completed FROM exports") == 0)
  }

  @Test("a missing input is refused before the database is created")
  func missingInput() throws {
    let directory = try Directory()
    let error = try #require(throws: HealthPortError.self) {
      _ = try SQLiteOutput.format.makeWriter(
        OutputRequest(path: directory.file("out.db"), input: directory.file("missing.xml")))
    }
    #expect(error.description.hasSuffix("missing.xml: error: cannot open: No such file or directory"), "\(error)")
    #expect(directory.names.isEmpty)
  }
}
