import Foundation
import HealthPort
import SQLiteStore
import Testing

@testable import HealthPortSQLite

@Suite("SQLite wrapper and loader pieces")
struct SQLiteStoreTests {
  @Test("text, numbers and NULL round-trip through a reused prepared statement")
  func roundTrip() throws {
    let db = try SQLiteConnection(path: ":memory:")
    try db.execute("CREATE TABLE t (a TEXT, b INTEGER, c REAL)")
    let insert = try db.prepare("INSERT INTO t VALUES (?, ?, ?)")
    for (text, number) in [("Здоровье ❤️", 1), ("", 2)] {
      try insert.bind(1, text)
      try insert.bind(2, Int64(number))
      try insert.bind(3, 0.5 * Double(number))
      #expect(try insert.run() == 1)
    }
    try insert.bind(1, nil as String?)
    try insert.run()
    let select = try db.prepare("SELECT a, b, c FROM t ORDER BY rowid")
    #expect(try select.step())
    #expect(select.text(0) == "Здоровье ❤️")
    #expect(select.int64(1) == 1)
    #expect(select.double(2) == 0.5)
    #expect(try select.step())
    #expect(select.text(0) == "", "an empty string stays text, not NULL")
    #expect(!select.isNull(0))
    #expect(try select.step())
    #expect(select.isNull(0))
    #expect(try !select.step())
  }

  @Test("failures become typed errors that name the code and the SQL")
  func errors() throws {
    let db = try SQLiteConnection(path: ":memory:")
    try db.execute("CREATE TABLE t (a INTEGER UNIQUE)")
    let insert = try db.prepare("INSERT INTO t VALUES (1)")
    try insert.run()
    let error = try #require(throws: SQLiteError.self) { try insert.run() }
    #expect(error.primaryCode == 19)  // SQLITE_CONSTRAINT
    #expect(error.description.contains("INSERT INTO t VALUES (1)"))
    #expect(error.description.contains("UNIQUE"))
    #expect(throws: SQLiteError.self) { try db.execute("SELECT nonsense FROM nowhere") }
  }

  @Test("withTransaction rolls back when its body throws")
  func transactionRollsBack() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tx-\(UUID().uuidString).db").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let db = try SQLiteConnection(path: path)
    try db.execute("CREATE TABLE t (a INTEGER)")
    struct Stop: Error {}
    #expect(throws: Stop.self) {
      try db.withTransaction {
        try db.execute("INSERT INTO t VALUES (1)")
        throw Stop()
      }
    }
    #expect(try db.scalarInt("SELECT count(*) FROM t") == 0)
    #expect(db.isAutocommit)
  }

  @Test("a new database gets 16 KiB pages; an existing one keeps its own and is loaded as well")
  func pageSize() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let fresh = directory.appendingPathComponent("new.db").path
    let new = try SQLiteLoader.openDatabase(path: fresh)
    #expect(try new.scalarInt("PRAGMA page_size") == 16_384)
    #expect(try new.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'records'") == 1)
    try new.close()

    // An empty SQLite file made elsewhere with 4 KiB pages, already in WAL mode.
    let old = directory.appendingPathComponent("old.db").path
    let made = try SQLiteConnection(path: old)
    try made.execute("PRAGMA page_size = 4096; PRAGMA journal_mode = WAL")
    try made.close()
    let reopened = try SQLiteLoader.openDatabase(path: old)
    #expect(try reopened.scalarInt("PRAGMA page_size") == 4096)
    #expect(try reopened.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'records'") == 1)
    try reopened.close()
    let results = try SQLiteLoadJob(database: old).run(paths: [])
    #expect(results.isEmpty)
  }

  @Test("a database another connection keeps locked past the timeout gets a plain message, not 'database is locked'")
  func lockedDatabase() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("locked-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("x.db").path
    try SQLiteLoader.openDatabase(path: path).close()
    let holder = try SQLiteConnection(path: path)
    try holder.execute("BEGIN IMMEDIATE")
    defer { try? holder.execute("ROLLBACK") }
    let input = directory.appendingPathComponent("e.xml").path
    try """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="W" unit="count" startDate="2024-01-01 10:00:00 +0100" endDate="2024-01-01 10:01:00 +0100" value="5"/>
    </HealthData>

    """.write(toFile: input, atomically: true, encoding: .utf8)
    let started = Date()
    do {
      var job = SQLiteLoadJob(database: path)
      job.busyTimeoutMilliseconds = 600
      try job.run(paths: [input])
      Issue.record("the load did not wait for the lock")
    } catch let error as HealthPortError {
      #expect(error.message.contains("another load"), "\(error.message)")
      #expect(!error.message.contains("database is locked"), "\(error.message)")
    }
    #expect(Date().timeIntervalSince(started) >= 0.5)
    #expect(SQLiteLoader.defaultBusyTimeoutMilliseconds >= 60_000)
  }

  static func record(device: String?, value: String, metadata: [MetadataEntry] = []) -> Record {
    var record = Record(
      type: "HKQuantityTypeIdentifierHeartRate", sourceName: "Watch", device: device, unit: "count/min",
      startDate: HealthDate("2024-01-01 10:00:00 +0100")!, endDate: HealthDate("2024-01-01 10:00:00 +0100")!,
      value: value)
    record.children = RecordChildren(metadata.map { .metadata($0) })
    return record
  }

  @Test("the content hash ignores the device's memory address and sees values and metadata")
  func contentHash() {
    let a = Self.record(device: "<<HKDevice: 0x1>, name:Apple Watch>", value: "60")
    let b = Self.record(device: "<<HKDevice: 0x2>, name:Apple Watch>", value: "60")
    #expect(ContentHash.of(a) == ContentHash.of(b))
    #expect(ContentHash.of(a) != ContentHash.of(Self.record(device: nil, value: "61")))
    let withMetadata = Self.record(device: nil, value: "60", metadata: [MetadataEntry(key: "k", value: "1")])
    #expect(ContentHash.of(a) != ContentHash.of(withMetadata))
    #expect(SQLiteLoader.deviceTail("<<HKDevice: 0x1>, name:Apple Watch>") == ", name:Apple Watch>")
  }

  @Test("workout totals: own attributes first, else direct statistics, units converted")
  func workoutMeasures() {
    let start = HealthDate("2024-01-01 10:00:00 +0100")!
    var old = Workout(
      workoutActivityType: "HKWorkoutActivityTypeRunning", duration: "90", durationUnit: "s", totalDistance: "1",
      totalDistanceUnit: "mi", totalEnergyBurned: "418.4", totalEnergyBurnedUnit: "kJ", sourceName: "Watch",
      startDate: start, endDate: start)
    old.children = [
      .statistics(
        WorkoutStatistics(
          type: "HKQuantityTypeIdentifierDistanceWalkingRunning", startDate: start, endDate: start, sum: "9", unit: "km"
        ))
    ]
    let totals = WorkoutMeasures(old)
    #expect(totals.durationMinutes == 1.5)
    #expect(abs((totals.distanceKilometres ?? 0) - 1.609344) < 1e-12)
    #expect(abs((totals.energyKilocalories ?? 0) - 100) < 1e-9)

    var modern = Workout(
      workoutActivityType: "HKWorkoutActivityTypeRunning", sourceName: "Watch", startDate: start, endDate: start)
    modern.children = [
      .statistics(
        WorkoutStatistics(
          type: "HKQuantityTypeIdentifierDistanceWalkingRunning", startDate: start, endDate: start, sum: "2000",
          unit: "m")),
      .statistics(
        WorkoutStatistics(
          type: "HKQuantityTypeIdentifierDistanceCycling", startDate: start, endDate: start, sum: "3", unit: "km")),
      .statistics(
        WorkoutStatistics(
          type: "HKQuantityTypeIdentifierActiveEnergyBurned", startDate: start, endDate: start, sum: "250", unit: "Cal")
      ),
      .statistics(
        WorkoutStatistics(
          type: "HKQuantityTypeIdentifierBasalEnergyBurned", startDate: start, endDate: start, sum: "99", unit: "kcal")),
    ]
    let modernTotals = WorkoutMeasures(modern)
    #expect(modernTotals.distanceKilometres == 5)
    #expect(modernTotals.energyKilocalories == 250)
    #expect(modernTotals.durationMinutes == nil)

    let none = WorkoutMeasures(
      Workout(
        workoutActivityType: "HKWorkoutActivityTypeYoga", duration: "30", durationUnit: "min", sourceName: "Watch",
        startDate: start, endDate: start))
    #expect(none.distanceKilometres == nil)
    #expect(none.energyKilocalories == nil)
    #expect(none.durationMinutes == 30)
  }
}
