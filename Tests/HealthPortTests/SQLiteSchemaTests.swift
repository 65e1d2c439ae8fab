import Foundation
import HealthPort
import SQLiteStore
import Testing

@testable import HealthPortSQLite

/// The schema a new database gets, now that its shared columns come from the column catalog.
@Suite("SQLite schema from the column catalog")
struct SQLiteSchemaTests {
  /// `Tests/Fixtures/sqlite/schema-v5.sql`: `sqlite_master` of a database made before the schema
  /// took its columns from the catalog (`schema-v2.sql`), with version 3's workout columns and
  /// version 5's views, one `-- type name` line and the `sql` text per entry.
  static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/sqlite/schema-v5.sql")

  /// True when the golden files are to be written anew (`HEALTHPORT_RECORD_GOLDEN=1`).
  static var recording: Bool { ProcessInfo.processInfo.environment["HEALTHPORT_RECORD_GOLDEN"] == "1" }

  /// The side files' tables, indexes and view (version 4, and the key of unreferenced routes; the
  /// view as of version 5), compared apart from the golden file.
  static let sideFileNames = [
    "ecg_recordings", "ecg_recordings_key", "ecg_samples", "route_points", "route_points_route",
    "route_points_unreferenced", "route_points_workout", "unreferenced_routes", "unreferenced_routes_key",
    "workout_routes_summary",
  ]

  static func master(_ db: SQLiteConnection, sideFiles: Bool = false) throws -> String {
    let names = Self.sideFileNames.map { "'\($0)'" }.joined(separator: ", ")
    let select = try db.prepare(
      "SELECT type, name, sql FROM sqlite_master WHERE (name IN (\(names)) OR tbl_name IN (\(names))) = \(sideFiles ? 1 : 0) "
        + "ORDER BY name")
    var entries: [String] = []
    while try select.step() {
      let sql = select.isNull(2) ? "(no sql)" : select.text(2) ?? ""
      entries.append("-- \(select.text(0) ?? "") \(select.text(1) ?? "")\n\(sql)\n")
    }
    return entries.joined(separator: "\n")
  }

  @Test("a new database gets byte for byte the schema of the golden file (HEALTHPORT_RECORD_GOLDEN=1 rewrites it)")
  func newDatabaseMatchesGolden() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString).db").path
    defer {
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    let db = try SQLiteLoader.openDatabase(path: path)
    defer { try? db.close() }
    if Self.recording { try Self.master(db).write(to: Self.golden, atomically: true, encoding: .utf8) }
    let golden = try String(contentsOf: Self.golden, encoding: .utf8)
    #expect(try Self.master(db) == golden)
    #expect(try db.scalarInt("PRAGMA user_version") == SQLiteSchema.version)
  }

  @Test("the side files' tables and view are those of their golden file (HEALTHPORT_RECORD_GOLDEN=1 rewrites it)")
  func sideFileSchemaMatchesGolden() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString).db").path
    defer {
      for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    let db = try SQLiteLoader.openDatabase(path: path)
    defer { try? db.close() }
    let golden = Self.golden.deletingLastPathComponent().appendingPathComponent("schema-v5-side-files.sql")
    let actual = try Self.master(db, sideFiles: true)
    if Self.recording { try actual.write(to: golden, atomically: true, encoding: .utf8) }
    #expect(actual == (try String(contentsOf: golden, encoding: .utf8)))
    #expect(actual.components(separatedBy: "\n-- ").count == Self.sideFileNames.count)
  }

  @Test("the loader's insert statements keep the text they had before their columns came from the catalog")
  func insertStatementsMatchGolden() throws {
    let db = try SQLiteConnection(path: ":memory:")
    try db.execute(SQLiteSchema.create)
    let s = try Statements(db)
    let inserts = [
      s.insertExport, s.insertSource, s.insertRecord, s.insertMetadata, s.insertExtra, s.insertBeat,
      s.insertCorrelation, s.insertCorrelationRecord, s.insertWorkout, s.insertActivity, s.insertEvent,
      s.insertStatistics, s.insertRoute, s.insertLocation, s.insertSummary, s.insertMe, s.insertOther,
    ]
    let golden = try String(
      contentsOf: Self.golden.deletingLastPathComponent().appendingPathComponent("insert-statements-v2.sql"),
      encoding: .utf8)
    #expect(inserts.map { $0.sql + "\n" }.sorted() == golden.split(separator: "\n").map { $0 + "\n" }.sorted())
  }

  @Test("catalog names become SQLite's: snake_case, dates in three columns, a value in two")
  func derivedNames() {
    #expect(ColumnCatalog.workouts.column("totalEnergyBurned").snakeCaseName == "total_energy_burned")
    #expect(TableColumn.snakeCase("DateOfBirth") == "date_of_birth")
    #expect(SQLiteColumns.records.names("value") == ["value_text", "value_num"])
    #expect(SQLiteColumns.records.names("creationDate") == ["creation_date", "creation_unix", "creation_offset_min"])
    #expect(SQLiteColumns.workoutEvents.names("date") == ["date_date", "date_unix", "date_offset_min"])
    #expect(SQLiteColumns.me["HKCharacteristicTypeIdentifierBloodType"] == "blood_type TEXT")
    #expect(SQLiteColumns.records["type", "unit"] == "type TEXT NOT NULL, unit TEXT")
    #expect(SQLiteColumns.hrvBeats.definition("bpm", nullable: true) == "bpm INTEGER")
    #expect(SQLiteColumns.hrvBeats.definition("bpm") == "bpm INTEGER NOT NULL")
  }
}
