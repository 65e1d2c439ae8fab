import Foundation
import SQLiteStore
import Testing

@testable import HealthPortSQLite

@Suite("SQLite header")
struct SQLiteHeaderTests {
  // No time limit: Swift Testing counts it from the test's start, including the time it waits for
  // a thread while other tests hold them (a fresh clone's `make test` beside a CI run went over
  // 60 s that way). A FIFO is rejected by `stat` before any open, which would wait for a writer.
  @Test("a database SQLite wrote is told by its first 16 bytes; other files, folders and FIFOs are not")
  func startsDatabase() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("header-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    let database = try SQLiteConnection(path: path("written.db"))
    try database.execute("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1)")
    try database.close()
    #expect(SQLiteHeader.startsDatabase(atPath: path("written.db")))
    // The documented header, byte for byte (sqlite.org/fileformat.html, "The Database Header").
    #expect(SQLiteHeader.magic == [83, 81, 76, 105, 116, 101, 32, 102, 111, 114, 109, 97, 116, 32, 51, 0])

    try Data("SQLite format 3".utf8).write(to: URL(fileURLWithPath: path("short")))
    try Data("<?xml version=\"1.0\"?>\n<HealthData/>\n".utf8).write(to: URL(fileURLWithPath: path("export.xml")))
    try Data().write(to: URL(fileURLWithPath: path("empty")))
    #expect(mkfifo(path("fifo"), 0o600) == 0)
    for other in ["short", "export.xml", "empty", "fifo", "missing", ""] {
      #expect(!SQLiteHeader.startsDatabase(atPath: path(other)), "\(other)")
    }
  }
}
