import Testing

@testable import HealthPort

/// Generated nights of Watch stages, AutoSleep, Clock and iPhone in bed (with rewrites and naps),
/// checked minute by minute against a brute-force reading of the rule, in document order and
/// shuffled (so that late samples reopen nights the buffer had closed).
@Suite("Sleep nights: generated nights against a brute force")
struct SleepRandomTests {
  struct Sample {
    var name: String
    var product: String?
    var start: Int64
    var end: Int64
    var offset: Int32
    var value: String
  }

  /// A small deterministic generator (SplitMix64).
  struct Random {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    mutating func int(_ range: Range<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
  }

  static let stages = ["AsleepCore", "AsleepCore", "AsleepDeep", "AsleepREM", "Awake"]

  static func generate(seed: UInt64, days: Int) -> [Sample] {
    var random = Random(state: seed)
    var samples: [Sample] = []
    let base: Int64 = 1_704_067_200  // 2024-01-01 00:00 UTC
    for day in 0..<days {
      let offset: Int32 = random.int(0..<4) == 0 ? 0 : 3600
      let evening = base + Int64(day) * 86_400 + 21 * 3600 - Int64(offset)
      var t = evening + Int64(random.int(0..<240)) * 60
      let bedEnd = t + Int64(random.int(360..<560)) * 60
      if random.int(0..<3) > 0 {
        samples.append(
          Sample(
            name: "Hana’s iPhone", product: "iPhone", start: t - 900, end: bedEnd + 600, offset: offset, value: "InBed")
        )
      }
      if random.int(0..<2) == 0 {
        let start = t + Int64(random.int(-30..<30)) * 60
        samples.append(
          Sample(
            name: "Clock", product: nil, start: start, end: bedEnd + Int64(random.int(0..<40)) * 60, offset: offset,
            value: "InBed"))
      }
      while t < bedEnd {
        let length = Int64(random.int(5..<70)) * 60
        if random.int(0..<6) > 0 {
          let value = stages[random.int(0..<stages.count)]
          samples.append(
            Sample(
              name: "Hana’s Apple Watch", product: "Watch", start: t, end: min(bedEnd, t + length), offset: offset,
              value: value))
        }
        t += length
      }
      for _ in 0..<random.int(0..<3) {
        let start = evening + Int64(random.int(-60..<600)) * 60
        let value = random.int(0..<4) == 0 ? "Awake" : (random.int(0..<2) == 0 ? "Asleep" : "AsleepUnspecified")
        samples.append(
          Sample(
            name: "AutoSleep", product: nil, start: start, end: start + Int64(random.int(20..<300)) * 60,
            offset: offset, value: value))
      }
      if random.int(0..<4) == 0 {  // a nap in the afternoon after the night
        let start = evening + Int64(16 * 60 + random.int(0..<180)) * 60
        samples.append(
          Sample(
            name: "Hana’s Apple Watch", product: "Watch", start: start, end: start + 1800, offset: offset,
            value: "AsleepUnspecified"))
      }
      if !samples.isEmpty, random.int(0..<5) == 0 {  // a rewrite of an earlier sample
        samples.append(samples[random.int(max(0, samples.count - 40)..<samples.count)])
      }
    }
    return samples
  }

  struct Expected: Equatable {
    var night: Int
    var minutes: [Int64]  // in bed, core, deep, REM, unspecified, awake
    var bedtime: Int64
    var wake: Int64
    var sources: [String]
  }

  /// The rule read literally, minute by minute (every generated time is a whole minute).
  static func bruteForce(_ input: [Sample]) -> [Expected] {
    var samples: [(sample: Sample, index: Int)] = []
    var seen: Set<String> = []
    for (index, sample) in input.enumerated() {
      let key = "\(sample.name)|\(sample.start)|\(sample.end)|\(sample.value)"
      if seen.insert(key).inserted { samples.append((sample, index)) }
    }
    var others: [String] = []
    func rank(_ sample: Sample) -> Int {
      if sample.product == "Watch" { return 0 }
      if sample.product == "iPhone" { return 1 }
      return 2 + (others.firstIndex(of: sample.name) ?? 99)
    }
    for sample in input where sample.product == nil && !others.contains(sample.name) { others.append(sample.name) }
    func nightOf(_ sample: Sample) -> Int {
      let local = sample.start + Int64(sample.offset) + 6 * 3600
      return Int(local >= 0 ? local / 86_400 : (local - 86_399) / 86_400)
    }
    let byNight = Dictionary(grouping: samples) { nightOf($0.sample) }
    let column = [
      "InBed": 0, "AsleepCore": 1, "AsleepDeep": 2, "AsleepREM": 3, "Asleep": 4, "AsleepUnspecified": 4, "Awake": 5,
    ]
    return byNight.keys.sorted().map { night in
      let items = byNight[night] ?? []
      var minutes = [Int64](repeating: 0, count: 6)
      let from = items.map(\.sample.start).min() ?? 0
      let to = items.map(\.sample.end).max() ?? 0
      var t = from
      while t < to {
        let covering = items.filter { $0.sample.start <= t && t < $0.sample.end }
        if covering.contains(where: { $0.sample.value == "InBed" }) { minutes[0] += 1 }
        let layer = covering.filter { $0.sample.value != "InBed" }
        if let best = layer.min(by: { a, b in
          (rank(a.sample), -a.sample.start, -a.index) < (rank(b.sample), -b.sample.start, -b.index)
        }) {
          minutes[column[best.sample.value] ?? 0] += 1
        }
        t += 60
      }
      var sources: [String] = []
      for item in items.sorted(by: { $0.index < $1.index }) where !sources.contains(item.sample.name) {
        sources.append(item.sample.name)
      }
      return Expected(night: night, minutes: minutes, bedtime: from, wake: to, sources: sources)
    }
  }

  static func run(_ samples: [Sample]) throws -> [Expected] {
    let sleep = SleepNights(SleepNights.Configuration())
    for sample in samples {
      var record = Record(
        type: SleepNights.sleepType, sourceName: sample.name,
        startDate: HealthDate(secondsSince1970: sample.start, offsetSeconds: sample.offset),
        endDate: HealthDate(secondsSince1970: sample.end, offsetSeconds: sample.offset),
        value: "HKCategoryValueSleepAnalysis" + sample.value)
      record.sourceProduct = sample.product
      sleep.add(record)
    }
    sleep.finish()
    return sleep.nights.map { night in
      Expected(
        night: night.day,
        minutes: [
          night.inBedSeconds, night.coreSeconds, night.deepSeconds, night.remSeconds, night.unspecifiedSeconds,
          night.awakeSeconds,
        ].map { $0 / 60 },
        bedtime: night.bedtime.secondsSince1970, wake: night.wakeTime.secondsSince1970, sources: night.sources)
    }
  }

  @Test("in document order and shuffled", arguments: [UInt64(1), 2, 3, 4])
  func againstBruteForce(seed: UInt64) throws {
    let samples = Self.generate(seed: seed, days: 30)
    #expect(samples.count > 300)
    let expected = Self.bruteForce(samples)
    #expect(expected.count >= 30)
    #expect(try Self.run(samples) == expected)
    var random = Random(state: seed &* 7)
    var shuffled = samples
    for index in stride(from: shuffled.count - 1, to: 0, by: -1) { shuffled.swapAt(index, random.int(0..<(index + 1))) }
    #expect(try Self.run(shuffled) == Self.bruteForce(shuffled))
    // Back-filled: the last ten days first, then the rest.
    let split = samples.count * 2 / 3
    let backfilled = Array(samples[split...] + samples[..<split])
    #expect(try Self.run(backfilled) == Self.bruteForce(backfilled))
  }
}
