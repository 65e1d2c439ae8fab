import Foundation
import TestSupport
import Testing

/// Answers as precise as the data: CSV and JSON write each number exactly (the shortest text that
/// reads back as the same double), tables round it for people (steps to whole steps, the total from
/// the exact total; profile's units).
@Suite("precision of the answers")
struct PrecisionTests {
  /// An export of `records` (inner XML of `<Record …/>` lines) in a fresh directory.
  static func export(_ records: [String]) throws -> URL {
    let directory = try Harness.temporaryDirectory()
    let url = directory.appendingPathComponent("export.xml")
    let text =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n "
      + "<ExportDate value=\"2024-03-20 09:00:00 +0000\"/>\n " + records.joined(separator: "\n ") + "\n</HealthData>\n"
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  static func record(
    _ type: String, _ unit: String, _ start: String, _ value: String, end: String? = nil, source: String = "Scale",
    model: String? = nil
  ) -> String {
    let device =
      model.map {
        " device=\"&lt;&lt;HKDevice: 0x1&gt;, name:\($0), manufacturer:Apple Inc., model:\($0), hardware:x, software:1&gt;\""
      } ?? ""
    return "<Record type=\"HKQuantityTypeIdentifier\(type)\" sourceName=\"\(source)\"\(device) unit=\"\(unit)\" "
      + "startDate=\"\(start)\" endDate=\"\(end ?? start)\" value=\"\(value)\"/>"
  }

  /// The table's lines with runs of spaces as one, bars left out.
  static func tableLines(_ text: String) -> [String] {
    text.split(separator: "\n").map {
      $0.split(separator: " ").filter { !$0.hasPrefix("█") }.joined(separator: " ")
    }
  }

  @Test("stats avg of a percent type: CSV and JSON read back as the average computed apart, the table in percent")
  func percentAverage() throws {
    let values = ["0.152", "0.1511", "0.15157", "0.1523", "0.1502"]
    let url = try Self.export(
      values.enumerated().map { index, value in
        Self.record("BodyFatPercentage", "%", "2024-03-10 0\(index):00:00 +0000", value)
      })
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    // Added in document order (the samples' start order), as Python floats: the same double.
    let python = try Harness.toolOutput(
      "/usr/bin/env",
      [
        "python3", "-c",
        "import sys\ns = 0.0\nfor v in sys.argv[1:]: s += float(v)\nprint(repr(s / len(sys.argv[1:])))",
      ] + values)
    let average = try #require(Double(python.trimmingCharacters(in: .whitespacesAndNewlines)))
    let arguments = ["stats", url.path, "--type", "BodyFatPercentage", "--agg", "avg"]
    let csv = try Harness.run(arguments + ["--format", "csv"])
    #expect(csv.status == 0, "\(csv.stderr)")
    let cells = try #require(LoadTests.csvRows(csv.stdoutText).first)
    #expect(cells[0] == "2024-03-10" && cells[2] == "5" && cells[3] == "%", "\(cells)")
    #expect(Double(cells[1]) == average, "CSV \(cells[1]) vs \(average)")
    // The shortest such text: Python's repr is the shortest round trip too.
    #expect(cells[1] == python.trimmingCharacters(in: .whitespacesAndNewlines))
    let json = try Harness.json(try Harness.run(arguments + ["--format", "json"]).stdout) as? [[String: Any]] ?? []
    let jsonValue = json.first?["value"] as? Double
    #expect(jsonValue == average)
    // 0.151434 = 15.1434 %: three decimals in the table.
    let table = try Harness.run(arguments)
    #expect(Self.tableLines(table.stdoutText).contains("2024-03-10 15.143 5 %"), "\(table.stdoutText)")
  }

  @Test(
    "numbers far from 1 are plain decimals below 2^53, exponents beyond; pandas, DuckDB and JSON read them exactly",
    .needsPythonClients)
  func extremes() throws {
    let values = ["0.0000001", "1e21", "0.30000000000000004", "12559", "0.000025", "123456789.125"]
    let url = try Self.export(
      values.enumerated().map { index, value in
        Self.record("BodyMass", "kg", "2024-03-1\(index) 08:00:00 +0000", value)
      })
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let arguments = ["stats", url.path, "--type", "BodyMass", "--agg", "max"]
    let csvURL = url.deletingLastPathComponent().appendingPathComponent("stats.csv")
    let csv = try Harness.run(arguments + ["-o", csvURL.path])
    #expect(csv.status == 0, "\(csv.stderr)")
    #expect(
      LoadTests.csvRows(try String(contentsOf: csvURL, encoding: .utf8)).map { $0[1] } == [
        "0.0000001", "1e+21", "0.30000000000000004", "12559", "0.000025", "123456789.125",
      ])
    let jsonURL = url.deletingLastPathComponent().appendingPathComponent("stats.json")
    #expect(try Harness.run(arguments + ["-o", jsonURL.path]).status == 0)
    #expect(try Harness.run(arguments).status == 0, "the table of 1e21")
    let run = try TestEnvironment.runClientPython(
      #"""
      import sys, json, pandas, duckdb
      want = [float(v) for v in sys.argv[3:]]
      frame = pandas.read_csv(sys.argv[1], float_precision="round_trip")
      assert str(frame["value"].dtype) == "float64", frame.dtypes
      assert list(frame["value"]) == want, list(frame["value"])
      column = duckdb.sql(f"SELECT value FROM read_csv('{sys.argv[1]}')")
      assert [str(t) for t in column.types] == ["DOUBLE"], column.types
      assert [r[0] for r in column.fetchall()] == want
      assert [r["value"] for r in json.load(open(sys.argv[2]))] == want
      print("ok")
      """#, [csvURL.path, jsonURL.path] + values)
    #expect(run.status == 0 && run.stdout == "ok\n", "\(run.stderr)")
  }

  /// Two days with 10.5 de-duplicated steps each (a Watch takes half of an iPhone sample of 3
  /// steps, 10 s of its 20) and a day of 1,234: rows of 11, 11 and 1,234, a total of 1,255.
  static let halfSteps: [String] =
    ["10", "11"].flatMap { day in
      [
        record(
          "StepCount", "count", "2024-03-\(day) 10:00:00 +0000", "3", end: "2024-03-\(day) 10:00:20 +0000",
          source: "Anna’s iPhone", model: "iPhone"),
        record(
          "StepCount", "count", "2024-03-\(day) 10:00:10 +0000", "9", end: "2024-03-\(day) 10:00:20 +0000",
          source: "Anna’s Apple Watch", model: "Watch"),
      ]
    } + [
      record(
        "StepCount", "count", "2024-03-12 09:00:00 +0000", "1234", end: "2024-03-12 09:10:00 +0000",
        source: "Anna’s iPhone", model: "iPhone")
    ]

  @Test("steps --dedupe: the table rounds each row half up, the total from the exact total; CSV and JSON exact")
  func stepsRounding() throws {
    let url = try Self.export(Self.halfSteps)
    defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
    let table = try Harness.run(["steps", url.path, "--dedupe"])
    #expect(table.status == 0, "\(table.stderr)")
    let lines = Self.tableLines(table.stdoutText)
    #expect(
      lines == [
        "period steps samples", "2024-03-10 11 2", "2024-03-11 11 2", "2024-03-12 1,234 1",
        String(repeating: "-", count: 26), "total 1,255 5",
      ], "\(table.stdoutText)")
    let csv = try Harness.run(["steps", url.path, "--dedupe", "--format", "csv"])
    #expect(
      csv.stdoutText == Harness.csvHeader("period,steps,samples")
        + "2024-03-10,10.5,2\n2024-03-11,10.5,2\n2024-03-12,1234,1\n")
    // Against the independent computation, exactly as far as doubles go.
    let json = try Harness.json(try Harness.run(["steps", url.path, "--dedupe", "--format", "json"]).stdout)
    let expected = try IndependentAggregates.steps(url.path, dedupe: true)
    #expect(expected.map { $0["steps"] as? Double } == [10.5, 10.5, 1234])
    AggregateTests.compareRows(
      json as? [[String: Any]] ?? [], expected, numbers: ["steps", "samples"], strings: ["period"], what: "dedupe")
  }
}
