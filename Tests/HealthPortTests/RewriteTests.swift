import Foundation
import TestSupport
import Testing

@testable import HealthPort

/// `Tests/Fixtures/rewrites/export.xml`: a band ("Mi Fit") whose app rewrote its samples (copies
/// that differ only in creation date, device address, metadata or the offset the instants are
/// written in) beside an iPhone. Expected values are worked out by hand from the file:
///
/// Steps, 2024-03-10 (unique samples; B = Mi Fit, P = the iPhone, which ranks first):
/// - B1 10:00–10:10 600 (4 copies), B2 10:10–10:20 300 (3), P1 10:05–10:15 200 (1),
///   B3 12:00–12:10 100 (2, one written in +0100), P2 12:00–12:10 50 (2),
///   B4 14:00–14:10 80, B5 14:00–14:10 81, B6 14:00–14:20 80 (no rewrites: value or end differ).
/// - Merge: B1 keeps 10:00–10:05 = 300; P1 keeps all 200; B2 keeps 10:15–10:20 = 150; P2 keeps
///   50 (B3 covered); B4 + B5 + B6 = 241. Total 941 from 7 samples.
/// - With Mi Fit first: B1 600 + B2 300 + B3 100 + 241 = 1241 from 6 samples (P1, P2 covered).
/// - As they are: 4·600 + 3·300 + 200 + 2·100 + 2·50 + 241 = 4041 from 15 samples.
/// Steps, 2024-03-11: B7 08:00–08:10 500 written 17 times: 500 (1) de-duplicated, 8500 (17) as is.
/// Rewrites dropped: Mi Fit 3 + 2 + 1 + 16 = 22, the iPhone 1.
@Suite("Rewritten samples")
struct RewriteTests {
  static let fixture = TestEnvironment.repoRoot.appendingPathComponent("Tests/Fixtures/rewrites/export.xml")

  static func steps(dedupe: Bool, keepRewrites: Bool = false, priority: [String] = []) throws -> StepTotals {
    var configuration = StepTotals.Configuration()
    configuration.dedupe = dedupe
    configuration.keepRewrites = keepRewrites
    configuration.priority = priority
    let totals = StepTotals(configuration)
    try ExportReader(path: fixture.path).read(into: totals)
    return totals
  }

  static func rows(_ totals: StepTotals) -> [String] {
    totals.result.map { "\($0.period) \(NumberText.format($0.value)) \($0.samples)" }
  }

  @Test("--dedupe drops rewrites, then merges sources")
  func dedupe() throws {
    let totals = try Self.steps(dedupe: true)
    #expect(Self.rows(totals) == ["2024-03-10 941 7", "2024-03-11 500 1"])
    #expect(
      totals.rewrites == [
        StepTotals.RewriteCount(sourceName: "Mi Fit", count: 22),
        StepTotals.RewriteCount(sourceName: "Anna’s iPhone", count: 1),
      ])
    let bandFirst = try Self.steps(dedupe: true, priority: ["mi fit"])
    #expect(Self.rows(bandFirst) == ["2024-03-10 1241 6", "2024-03-11 500 1"])
  }

  /// Unique samples of 2024-03-10: 600 + 300 + 200 + 100 + 50 + 241 = 1491 from 8.
  @Test("without --dedupe rewrites count once, the sources summed")
  func plain() throws {
    let totals = try Self.steps(dedupe: false)
    #expect(Self.rows(totals) == ["2024-03-10 1491 8", "2024-03-11 500 1"])
    #expect(
      totals.rewrites == [
        StepTotals.RewriteCount(sourceName: "Mi Fit", count: 22),
        StepTotals.RewriteCount(sourceName: "Anna’s iPhone", count: 1),
      ])
  }

  @Test("--keep-rewrites: every record counts, as written")
  func keepRewrites() throws {
    let totals = try Self.steps(dedupe: false, keepRewrites: true)
    #expect(Self.rows(totals) == ["2024-03-10 4041 15", "2024-03-11 8500 17"])
    #expect(totals.rewrites.isEmpty)
    // With --dedupe, only step 0 is skipped: the merge then sees every copy.
    let merged = try Self.steps(dedupe: true, keepRewrites: true)
    #expect(merged.rewrites.isEmpty)
    #expect(Self.rows(merged) != Self.rows(try Self.steps(dedupe: true)))
  }

  static func stats(_ type: String, dedupe: Bool, keepRewrites: Bool = false) throws -> Stats {
    var configuration = Stats.Configuration(type: type)
    configuration.dedupe = dedupe
    configuration.keepRewrites = keepRewrites
    let stats = Stats(configuration)
    try ExportReader(path: fixture.path).read(into: stats)
    return stats
  }

  static func rows(_ stats: Stats) -> [String] {
    stats.rows.map { "\($0.period) \(NumberText.format($0.value)) \($0.samples) \($0.unit)" }
  }

  @Test("stats --dedupe: the same merge for steps")
  func statsSteps() throws {
    let stats = try Self.stats("HKQuantityTypeIdentifierStepCount", dedupe: true)
    #expect(Self.rows(stats) == ["2024-03-10 941 7 count", "2024-03-11 500 1 count"])
    #expect(stats.rewriteCount == 23)
  }

  /// Heart rate at 09:00: the band's 60 written 3 times and a Watch's 60 (another source, so no
  /// rewrite); the band's 90 at 09:05. Average (60·4 + 90) / 5 = 66 as is; (60 + 60 + 90) / 3 = 70
  /// without the band's 2 rewrites.
  @Test("stats: rewrites dropped from an average, unless --keep-rewrites")
  func statsAverage() throws {
    let type = "HKQuantityTypeIdentifierHeartRate"
    #expect(Self.rows(try Self.stats(type, dedupe: false, keepRewrites: true)) == ["2024-03-10 66 5 count/min"])
    for dedupe in [false, true] {
      let stats = try Self.stats(type, dedupe: dedupe)
      #expect(Self.rows(stats) == ["2024-03-10 70 3 count/min"])
      #expect(stats.rewrites == [StepTotals.RewriteCount(sourceName: "Mi Fit", count: 2)])
    }
  }

  /// Distance 16:00–16:10: the band's 1 km written twice, the iPhone's 500 m over the same
  /// minutes. Most frequent unit km. As written 1 + 1 + 0.5 = 2.5 km; rewrites collapsed 1.5 km;
  /// merged, the iPhone covers the band: 0.5 km from 1 sample.
  @Test("stats --dedupe: a cumulative type is merged after converting units")
  func statsDistance() throws {
    let type = "HKQuantityTypeIdentifierDistanceWalkingRunning"
    #expect(Self.rows(try Self.stats(type, dedupe: false, keepRewrites: true)) == ["2024-03-10 2.5 3 km"])
    #expect(Self.rows(try Self.stats(type, dedupe: false)) == ["2024-03-10 1.5 2 km"])
    let stats = try Self.stats(type, dedupe: true)
    #expect(Self.rows(stats) == ["2024-03-10 0.5 1 km"])
    #expect(stats.rewriteCount == 1)
  }
}
