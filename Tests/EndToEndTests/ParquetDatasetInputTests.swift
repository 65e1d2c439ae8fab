import Foundation
import TestSupport
import Testing

/// A dataset folder is not an export: every command that reads one says so, with the query.
@Suite("a Parquet dataset given as INPUT")
struct ParquetDatasetInputTests {
  @Test("every command refuses it with exit 65 and the query that reads it")
  func refused() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let sample = Harness.samples.appendingPathComponent("export.zip").path
    let dataset = directory.appendingPathComponent("data set").path
    let made = try Harness.run([
      "convert", sample, "--to", "parquet", "-o", dataset, "--partition-by", "type,year", "--quiet",
    ])
    #expect(made.status == 0, "\(made.stderr)")
    let message =
      "\(dataset): error: a healthport Parquet dataset, not an export; query it: SELECT … FROM read_parquet('\(dataset)/records/**/*.parquet', hive_partitioning = true)"
    let db = directory.appendingPathComponent("h.db").path
    let commands: [[String]] = [
      ["info"], ["steps"], ["workouts"], ["sleep"], ["stats", "--type", "HeartRate"], ["profile"],
      ["routes", "-o", directory.appendingPathComponent("routes").path], ["convert", "--to", "csv"],
      ["convert", "--to", "parquet", "-o", directory.appendingPathComponent("again").path],
      ["load", "--db", db], ["chart", "steps", "-o", directory.appendingPathComponent("c.svg").path],
    ]
    for command in commands {
      for input in [dataset, dataset + "/"] {
        var arguments = command
        arguments.insert(input, at: command[0] == "chart" ? 2 : 1)
        let run = try Harness.run(arguments)
        #expect(run.status == 65, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
      }
    }
    #expect(!FileManager.default.fileExists(atPath: db))
    // Its manifest gone (copied without hidden files), the folders still tell.
    try FileManager.default.removeItem(atPath: dataset + "/.healthport-manifest.json")
    let bare = try Harness.run(["info", dataset])
    #expect(bare.status == 65 && bare.stderr.contains(message), "\(bare.stderr)")
  }
}
