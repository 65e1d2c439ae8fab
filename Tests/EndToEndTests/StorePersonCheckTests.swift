import Foundation
import TestSupport
import Testing

/// Two people, one database (issue 30, item 11): a second person's export loaded without
/// `--person`, whose `Me` has no date of birth, is told by its records and sources; a newer
/// export of the same person is not.
@Suite("load warns when an export looks like another person's")
struct StorePersonCheckTests {
  /// Two generated exports over one span, of two people (seeds 31 and 32); the second person's `Me`
  /// has no date of birth, so only the records and sources can tell them apart.
  static func twoPeople(in directory: URL) throws -> (first: String, second: String) {
    let first = directory.appendingPathComponent("kim.xml").path
    let second = directory.appendingPathComponent("other.xml").path
    try StoreIncrementalTests.generate(until: "2021-03-01", to: first, seed: 31)
    try StoreIncrementalTests.generate(until: "2021-03-01", to: second, seed: 32)
    // The other person's Me without a date of birth (the Me check cannot tell, then).
    _ = try SQLiteExpectations.python(
      #"""
      import sys, json, re
      data = open(sys.argv[1], encoding="utf-8").read()
      data, n = re.subn(r' HKCharacteristicTypeIdentifierDateOfBirth="[^"]*"', "", data)
      open(sys.argv[1], "w", encoding="utf-8").write(data)
      print(json.dumps({"removed": n}))
      """#, [second])
    return (first, second)
  }

  @Test("two seeds over one span warn (also with --quiet, exit 0), naming both spans", .needsExportGenerator)
  func twoPeopleWarn() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (first, second) = try Self.twoPeople(in: directory)
    let db = directory.appendingPathComponent("health.db").path
    let load = try LoadTests.load([first], db: db, options: ["--quiet"])
    #expect(load.status == 0)
    #expect(load.stderr.isEmpty, "stderr: \(load.stderr)")
    let other = try LoadTests.load([second], db: db, options: ["--quiet"])
    #expect(other.status == 0, "stderr: \(other.stderr)")
    #expect(other.stderr.contains("warning: \(second): this looks like another person's export"), "\(other.stderr)")
    #expect(other.stderr.contains("from 2021-01-01 to 2021-02-28"), "the database's span: \(other.stderr)")
    #expect(other.stderr.contains("this export's records run from 2021-01-01 to 2021-02-28"), "\(other.stderr)")
    #expect(other.stderr.contains("were already there"), "\(other.stderr)")
    #expect(other.stderr.contains("--person NAME"), "\(other.stderr)")
    #expect(other.stderr.components(separatedBy: "\n").filter { $0.contains("warning") }.count == 1)
    // Loaded under its own --person, nothing to say.
    let apart = try LoadTests.load([second], db: db, person: "alex", options: ["--quiet"])
    #expect(apart.status == 0)
    #expect(apart.stderr.isEmpty, "stderr: \(apart.stderr)")
  }

  @Test("A then B of one person, and B again, stay silent", .needsExportGenerator)
  func samePersonSilent() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let a = try StoreIncrementalTests.exportA(in: directory)
    let b = try StoreIncrementalTests.exportB(in: directory)
    let db = directory.appendingPathComponent("health.db").path
    for input in [a, b, b] {
      let load = try LoadTests.load([input], db: db, options: ["--quiet"])
      #expect(load.status == 0)
      #expect(load.stderr.isEmpty, "stderr of \(input): \(load.stderr)")
    }
  }

  @Test("an export sharing no source name with the database's warns, even outside its span", .needsExportGenerator)
  func noSharedSource() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let first = directory.appendingPathComponent("kim.xml").path
    try StoreIncrementalTests.generate(until: "2021-03-01", to: first, seed: 31)
    let db = directory.appendingPathComponent("health.db").path
    #expect(try LoadTests.load([first], db: db, options: ["--quiet"]).status == 0)
    // Another person's records, all after the database's span, from sources of their own.
    let other = directory.appendingPathComponent("other.xml").path
    try """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Alex’s Pixel" unit="count" startDate="2023-05-01 10:00:00 +0200" endDate="2023-05-01 10:10:00 +0200" value="700"/>
    </HealthData>

    """.write(toFile: other, atomically: true, encoding: .utf8)
    let load = try LoadTests.load([other], db: db, options: ["--quiet"])
    #expect(load.status == 0)
    #expect(load.stderr.contains("it shares no source name with them"), "stderr: \(load.stderr)")
    #expect(!load.stderr.contains("already there"), "no record lay inside the span: \(load.stderr)")
    #expect(load.stderr.contains("run from 2023-05-01 to 2023-05-01"), "stderr: \(load.stderr)")
  }
}
