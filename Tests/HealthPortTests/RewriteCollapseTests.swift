import Testing

@testable import HealthPort

/// ``RewriteCollapse`` in memory and through sorted runs in a scratch file, against a brute force.
@Suite("Rewrite collapse")
struct RewriteCollapseTests {
  struct Sample: Hashable {
    var start: Int64
    var end: Int64
    var value: UInt64
    var group: UInt32
  }

  /// Random samples, a third of them copies of an earlier one.
  static func samples(seed: UInt64, count: Int) -> [Sample] {
    var generator = SleepRandomTests.Random(state: seed)
    var samples: [Sample] = []
    for _ in 0..<count {
      if !samples.isEmpty, generator.next() % 3 == 0 {
        samples.append(samples[Int(generator.next() % UInt64(samples.count))])
      } else {
        let start = Int64(generator.next() % 500)
        samples.append(
          Sample(
            start: start, end: start + Int64(generator.next() % 3), value: generator.next() % 4,
            group: UInt32(generator.next() % 3)))
      }
    }
    return samples
  }

  @Test("the first of each sample stays, in memory and spilled", arguments: [0, 1, 2, 3])
  func collapse(seed: UInt64) throws {
    let input = Self.samples(seed: seed, count: 5_000)
    var seen: Set<Sample> = []
    var expectedKept: [Int] = []
    var expectedDropped = [Int](repeating: 0, count: 3)
    for (index, sample) in input.enumerated() {
      if seen.insert(sample).inserted { expectedKept.append(index) } else { expectedDropped[Int(sample.group)] += 1 }
    }
    for limit in [1 << 20, 1_000] {
      let collapse = RewriteCollapse(purpose: "test samples", memoryLimit: limit)
      for (index, sample) in input.enumerated() {
        try collapse.add(
          start: sample.start, end: sample.end, value: sample.value, group: sample.group, tag: Int32(index))
      }
      var kept: [Int] = []
      var previous: CollapsibleSample?
      let dropped = try collapse.finish { sample in
        if let previous { #expect(CollapsibleSample.precedes(previous, sample)) }
        previous = sample
        kept.append(Int(sample.tag))
      }
      #expect(kept.sorted() == expectedKept, "limit \(limit)")
      #expect(dropped + [Int](repeating: 0, count: 3 - dropped.count) == expectedDropped, "limit \(limit)")
    }
  }
}
