import Testing

@testable import HealthPort

@Suite("Period keys")
struct PeriodTests {
  @Test(
    "labels of the period holding a day",
    arguments: [
      ("2020-12-31", PeriodKind.week, "2020-W53"), ("2021-01-03", .week, "2020-W53"), ("2021-01-04", .week, "2021-W01"),
      ("2024-12-30", .week, "2025-W01"), ("2024-12-29", .week, "2024-W52"), ("2026-01-01", .week, "2026-W01"),
      ("2027-01-01", .week, "2026-W53"), ("2019-12-30", .week, "2020-W01"), ("1969-12-31", .week, "1970-W01"),
      ("2024-02-29", .day, "2024-02-29"), ("2024-02-29", .month, "2024-02"), ("2024-12-31", .month, "2024-12"),
      ("2025-01-01", .month, "2025-01"), ("2024-07-04", .year, "2024"), ("1969-12-31", .month, "1969-12"),
    ])
  func labels(day: String, kind: PeriodKind, expected: String) throws {
    guard case .day(let number) = try DateBound.parse(day, for: .from) else {
      Issue.record("not a day")
      return
    }
    #expect(kind.label(forDay: number) == expected)
  }

  @Test("keys sort like the periods")
  func keysSort() {
    for kind in PeriodKind.allCases {
      let keys = stride(from: 18_000, to: 20_000, by: 3).map { kind.key(forDay: $0) }
      #expect(keys == keys.sorted())
      let labels = Set(keys).sorted().map { kind.label(forKey: $0) }
      #expect(labels == labels.sorted(), "\(kind)")
    }
  }

  @Test(
    "number text: integers when whole, at most 3 decimals, trailing zeros trimmed",
    arguments: [
      (12.0, "12"), (12.5, "12.5"), (0.1234, "0.123"), (2.0005, "2.001"), (-1.25, "-1.25"), (0.0004, "0"),
      (1e6, "1000000"), (31.73680251737436, "31.737"), (99.9999, "100"),
    ])
  func numberText(value: Double, expected: String) {
    #expect(NumberText.format(value) == expected)
  }
}

/// A step sample for the de-duplication tests: seconds after a base instant.
struct StepSample: Sendable {
  var start: Int
  var end: Int
  var value: Double
  var source: String
  var product: String?
}

@Suite("Step totals")
struct StepTotalsTests {
  /// 2024-05-01 23:50:00 +0000: samples after 600 s fall on May 2nd.
  static let base: Int64 = 1_714_607_400

  static func record(_ sample: StepSample) -> Record {
    var record = Record(
      type: StepTotals.stepType, sourceName: sample.source,
      startDate: HealthDate(secondsSince1970: base + Int64(sample.start), offsetSeconds: 0),
      endDate: HealthDate(secondsSince1970: base + Int64(sample.end), offsetSeconds: 0),
      value: String(sample.value))
    record.sourceProduct = sample.product
    return record
  }

  static func run(_ samples: [StepSample], dedupe: Bool, priority: [String] = []) throws -> [String: (Double, Int)] {
    result(try totals(samples, dedupe: dedupe, priority: priority))
  }

  static func totals(_ samples: [StepSample], dedupe: Bool, priority: [String] = []) throws -> StepTotals {
    var configuration = StepTotals.Configuration()
    configuration.dedupe = dedupe
    configuration.priority = priority
    let totals = StepTotals(configuration)
    for sample in samples { try totals.add(record(sample)) }
    try totals.finish()
    return totals
  }

  static func result(_ totals: StepTotals) -> [String: (Double, Int)] {
    var result: [String: (Double, Int)] = [:]
    for row in totals.result { result[row.period] = (row.value, row.samples) }
    return result
  }

  /// An independent model of the rule: 1-second buckets. Rewrites (same source name, start, end
  /// and value as an earlier sample) are dropped first, the first copy staying. Ranks: priority
  /// entries (product or source name, ignoring case), then Watch, iPhone, then other names by
  /// first appearance among all samples read.
  static func bruteForce(_ all: [StepSample], priority: [String] = []) -> [String: (Double, Int)] {
    var samples: [StepSample] = []
    for s in all
    where !samples.contains(where: {
      $0.source == s.source && $0.start == s.start && $0.end == s.end && $0.value == s.value
    }) {
      samples.append(s)
    }
    var otherOrder: [String] = []
    func rank(_ s: StepSample) -> Int {
      let p = priority.map { $0.lowercased() }
      if let i = p.firstIndex(where: { $0 == s.product?.lowercased() || $0 == s.source.lowercased() }) { return i }
      if s.product == "Watch" { return p.count }
      if s.product == "iPhone" { return p.count + 1 }
      return p.count + 2 + otherOrder.firstIndex(of: s.source)!
    }
    for s in all where s.product != "Watch" && s.product != "iPhone" && !otherOrder.contains(s.source) {
      otherOrder.append(s.source)
    }
    var shares = [Double](repeating: 0, count: samples.count)
    let low = samples.map(\.start).min() ?? 0
    let high = samples.map(\.end).max() ?? 0
    if high > low {
      for t in low..<high {
        let covering = samples.indices.filter { samples[$0].start <= t && t < samples[$0].end }
        guard let best = covering.map({ rank(samples[$0]) }).min() else { continue }
        for i in covering where rank(samples[i]) == best {
          shares[i] += samples[i].value / Double(samples[i].end - samples[i].start)
        }
      }
    }
    for (i, z) in samples.enumerated() where z.end == z.start {
      let better = samples.contains { other in
        rank(other) < rank(z)
          && ((other.start <= z.start && z.start < other.end) || (other.start == z.start && other.end == z.start))
      }
      if !better { shares[i] = z.value }
    }
    var result: [String: (Double, Int)] = [:]
    for (i, s) in samples.enumerated() where shares[i] > 1e-9 {
      let day = PeriodKind.day.label(forDay: Int((base + Int64(s.start)).quotient(86_400)))
      let old = result[day] ?? (0, 0)
      result[day] = (old.0 + shares[i], old.1 + 1)
    }
    return result
  }

  static func W(_ s: Int, _ e: Int, _ v: Double, _ name: String = "Ann’s Apple Watch") -> StepSample {
    StepSample(start: s, end: e, value: v, source: name, product: "Watch")
  }
  static func P(_ s: Int, _ e: Int, _ v: Double, _ name: String = "Ann’s iPhone") -> StepSample {
    StepSample(start: s, end: e, value: v, source: name, product: "iPhone")
  }
  static func A(_ s: Int, _ e: Int, _ v: Double, _ name: String = "Pedometer++") -> StepSample {
    StepSample(start: s, end: e, value: v, source: name, product: nil)
  }

  struct Case: CustomStringConvertible, Sendable {
    var name: String
    var samples: [StepSample]
    var priority: [String] = []
    /// Hand-computed day totals (period → steps, samples), when given.
    var expected: [String: (Double, Int)]?
    var description: String { name }
  }

  static let cases: [Case] = [
    Case(
      name: "partial overlap: Watch wins the overlap, iPhone keeps the rest",
      samples: [W(0, 300, 600), P(100, 500, 400)],
      // Watch 600 on May 1st; the iPhone keeps 200 s of 400 s = 200 steps (300..500), May 1st.
      expected: ["2024-05-01": (800, 2)]),
    Case(
      name: "three sources", samples: [A(0, 1200, 1200), P(0, 600, 600), W(100, 400, 300)],
      // Watch 300; iPhone 0–100 and 400–600 = 300 s of 600 = 300; app 600–1200 = 600 s of 1200 = 600,
      // credited to its start day (May 1st) although 600–1200 is on May 2nd.
      expected: ["2024-05-01": (1200, 3)]),
    Case(
      name: "equal rank: two watches never displace each other",
      samples: [W(0, 300, 300), W(100, 400, 300, "Second Watch"), P(0, 400, 400)],
      expected: ["2024-05-01": (600, 2)]),
    Case(
      name: "gaps: a lower rank fills what the Watch leaves",
      samples: [W(0, 100, 100), W(500, 600, 100), P(0, 600, 600)],
      // iPhone keeps 100–500 = 400 s of 600 = 400.
      expected: ["2024-05-01": (600, 3)]),
    Case(
      name: "zero-length samples: covered by a better rank, or not",
      samples: [W(0, 100, 100), A(50, 50, 7), A(100, 100, 11), W(50, 50, 5), P(300, 300, 13), A(300, 300, 17)],
      // A@50 covered by the Watch: out. A@100: the Watch ended at 100, not covering: counts. W@50: counts
      // (same rank as the covering Watch). P@300 beats A@300 at the same instant.
      expected: ["2024-05-01": (100 + 11 + 5 + 13, 4)]),
    Case(
      name: "--priority puts an app first", samples: [A(0, 600, 600), W(0, 300, 600)], priority: ["Pedometer++"],
      expected: ["2024-05-01": (600, 1)]),
    Case(
      name: "--priority by source name, unlisted follow the default order",
      samples: [W(0, 600, 600), P(0, 300, 300), A(0, 900, 900)], priority: ["ann’s iphone"],
      // iPhone first (300), Watch 300–600 = 300, app 600–900 = 300.
      expected: ["2024-05-01": (900, 3)]),
    Case(
      name: "crossing midnight: shares go to the sample's start day",
      samples: [W(500, 700, 200), P(650, 800, 150), P(450, 550, 100)],
      // Watch 200 (May 1st); iPhone 650–800 keeps 700–800 = 100 (May 2nd); iPhone 450–550 keeps 450–500 = 50.
      expected: ["2024-05-01": (250, 2), "2024-05-02": (100, 1)]),
    Case(
      name: "a fully covered sample does not count as a sample", samples: [W(0, 600, 600), P(100, 200, 100)],
      expected: ["2024-05-01": (600, 1)]),
    Case(
      name: "identical samples of one source are rewrites: one counts", samples: [W(0, 60, 50), W(0, 60, 50)],
      expected: ["2024-05-01": (50, 1)]),
    Case(
      name: "two samples of one source differing in value both count", samples: [W(0, 60, 50), W(0, 60, 51)],
      expected: ["2024-05-01": (101, 2)]),
    Case(
      name: "zero values never count as samples", samples: [W(0, 60, 0), P(0, 120, 120)],
      expected: ["2024-05-01": (60, 1)]),
  ]

  @Test("de-duplication", arguments: cases)
  func dedupe(_ c: Case) throws {
    let actual = try Self.run(c.samples, dedupe: true, priority: c.priority)
    let brute = Self.bruteForce(c.samples, priority: c.priority)
    Self.expectEqual(actual, brute, c.name + " (brute force)")
    if let expected = c.expected { Self.expectEqual(actual, expected, c.name + " (by hand)") }
  }

  @Test("de-duplication agrees with 1-second buckets on random samples", arguments: 0..<40)
  func randomized(seed: Int) throws {
    var dice = RandomSamples(seed: seed, multiplier: 0x9E37_79B9_7F4A_7C15, offset: 1)
    var samples: [StepSample] = []
    for _ in 0..<(5 + dice.next(30)) { samples.append(dice.sample(span: 1500, maxLength: 400)) }
    let priority = seed % 3 == 0 ? ["App B", "iPhone"] : []
    Self.expectEqual(
      try Self.run(samples, dedupe: true, priority: priority), Self.bruteForce(samples, priority: priority),
      "seed \(seed)")
  }

  @Test("rewrites are dropped before the merge, on random samples with copies", arguments: 0..<30)
  func randomizedRewrites(seed: Int) throws {
    var dice = RandomSamples(seed: seed, multiplier: 0xD1B5_4A32_D192_ED03, offset: 7)
    var samples: [StepSample] = []
    for _ in 0..<(5 + dice.next(25)) {
      samples.append(dice.sample(span: 1500, maxLength: 400))
      // Up to 16 rewrites of a sample read so far, each at a random later place.
      if dice.next(3) == 0 {
        let original = samples[dice.next(samples.count)]
        for _ in 0..<(1 + dice.next(16)) { samples.insert(original, at: samples.count - dice.next(2)) }
      }
    }
    var unique: [StepSample] = []
    for s in samples
    where !unique.contains(where: {
      $0.source == s.source && $0.start == s.start && $0.end == s.end && $0.value == s.value
    }) {
      unique.append(s)
    }
    let priority = seed % 3 == 0 ? ["App B", "iPhone"] : []
    let totals = try Self.totals(samples, dedupe: true, priority: priority)
    Self.expectEqual(Self.result(totals), Self.bruteForce(samples, priority: priority), "seed \(seed)")
    #expect(totals.rewriteCount == samples.count - unique.count, "seed \(seed)")
  }

  @Test("the first copy of a rewrite stays, with its rank and its day")
  func firstCopyStays() throws {
    // "Band" first as a Watch: its 600 covers the iPhone's 300, so 600. Its later copy (product
    // unknown, which would rank below the iPhone and give 300) is dropped.
    let watchFirst = [Self.W(0, 600, 600, "Band"), Self.A(0, 600, 600, "Band"), Self.P(0, 600, 300)]
    Self.expectEqual(try Self.run(watchFirst, dedupe: true), ["2024-05-01": (600, 1)], "Watch copy first")
    let otherFirst = [Self.A(0, 600, 600, "Band"), Self.W(0, 600, 600, "Band"), Self.P(0, 600, 300)]
    Self.expectEqual(try Self.run(otherFirst, dedupe: true), ["2024-05-01": (300, 1)], "unknown copy first")
    // The same instants written in another offset: the first copy's local day counts.
    var early = Self.record(Self.A(0, 60, 50, "Band"))  // 23:50 +0000, May 1st
    var late = early
    late.startDate = HealthDate(secondsSince1970: Self.base, offsetSeconds: 3600)  // 00:50 +0100, May 2nd
    late.endDate = HealthDate(secondsSince1970: Self.base + 60, offsetSeconds: 3600)
    late.creationDate = HealthDate(secondsSince1970: Self.base + 999, offsetSeconds: 0)
    for (first, second, day) in [(early, late, "2024-05-01"), (late, early, "2024-05-02")] {
      var configuration = StepTotals.Configuration()
      configuration.dedupe = true
      let totals = StepTotals(configuration)
      try totals.add(first)
      try totals.add(second)
      try totals.finish()
      #expect(totals.result.map(\.period) == [day])
      #expect(totals.result.map(\.value) == [50])
      #expect(totals.rewrites == [StepTotals.RewriteCount(sourceName: "Band", count: 1)])
    }
    early.value = "51"
    let different = StepTotals(
      {
        var c = StepTotals.Configuration()
        c.dedupe = true
        return c
      }())
    try different.add(early)
    try different.add(late)
    try different.finish()
    #expect(different.rewriteCount == 0, "a different value is no rewrite")
  }

  @Test("without --dedupe, samples add up as they are")
  func plain() throws {
    let samples = [Self.W(0, 300, 600), Self.P(100, 500, 400), Self.A(700, 800, 10), Self.W(900, 900, 3)]
    Self.expectEqual(
      try Self.run(samples, dedupe: false), ["2024-05-01": (1000, 2), "2024-05-02": (13, 2)], "plain sums")
  }

  @Test("de-duplication through sorted runs in a scratch file gives the same days, bit for bit", arguments: 0..<4)
  func spilled(seed: Int) throws {
    var dice = RandomSamples(seed: seed, multiplier: 0x9E37_79B9_7F4A_7C15, offset: 3)
    var samples: [StepSample] = []
    for _ in 0..<600 {
      samples.append(dice.sample(span: 6_000, maxLength: 900, valueDivisor: 8))
      if dice.next(4) == 0 { samples.append(samples[dice.next(samples.count)]) }
    }
    let priority = seed % 2 == 0 ? ["App B", "iPhone"] : []
    var results: [[PeriodTotal]] = []
    // 1,000 bytes: runs of 25 samples; 4 MiB: all in memory.
    for limit in [1_000, 4 << 20] {
      var configuration = StepTotals.Configuration()
      configuration.dedupe = true
      configuration.priority = priority
      let totals = StepTotals(configuration, memoryLimit: limit)
      for sample in samples { try totals.add(Self.record(sample)) }
      try totals.finish()
      results.append(totals.result)
      #expect(totals.rewriteCount > 0, "seed \(seed)")
      Self.expectEqual(
        Self.result(totals), Self.bruteForce(samples, priority: priority), "seed \(seed), limit \(limit)")
    }
    #expect(results[0] == results[1], "seed \(seed)")
    #expect(results[0].count == 2, "seed \(seed)")
  }

  static func expectEqual(
    _ actual: [String: (Double, Int)], _ expected: [String: (Double, Int)], _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(actual.keys.sorted() == expected.keys.sorted(), "\(what)", sourceLocation: sourceLocation)
    for (key, value) in expected {
      guard let got = actual[key] else { continue }
      #expect(
        abs(got.0 - value.0) < 1e-6, "\(what) \(key): steps \(got.0) vs \(value.0)", sourceLocation: sourceLocation)
      #expect(got.1 == value.1, "\(what) \(key): samples \(got.1) vs \(value.1)", sourceLocation: sourceLocation)
    }
  }
}

extension Int64 {
  fileprivate func quotient(_ divisor: Int64) -> Int64 { self >= 0 ? self / divisor : (self - divisor + 1) / divisor }
}

/// A seeded stream of random step samples for the randomized tests (a 64-bit linear congruential
/// generator): the same seed, multiplier and offset give the same samples.
struct RandomSamples {
  private var state: UInt64

  init(seed: Int, multiplier: UInt64, offset: UInt64) { state = UInt64(seed) &* multiplier &+ offset }

  /// A number in `0..<bound`.
  mutating func next(_ bound: Int) -> Int {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return Int((state >> 33) % UInt64(bound))
  }

  /// A Watch, iPhone or app sample from one of two sources of each kind, starting in `0..<span`:
  /// a quarter of them instants, the others up to `maxLength` seconds long.
  mutating func sample(span: Int, maxLength: Int, valueDivisor: Double = 1) -> StepSample {
    let start = next(span)
    let length = next(4) == 0 ? 0 : 1 + next(maxLength)
    let kind = next(3)
    let name = ["Watch A", "Phone A", "App A", "Watch B", "Phone B", "App B"][kind + 3 * next(2)]
    let value = Double(next(1000)) / valueDivisor
    switch kind {
    case 0: return StepTotalsTests.W(start, start + length, value, name)
    case 1: return StepTotalsTests.P(start, start + length, value, name)
    default: return StepTotalsTests.A(start, start + length, value, name)
    }
  }
}
