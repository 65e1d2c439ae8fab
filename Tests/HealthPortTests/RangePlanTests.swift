import Testing

@testable import HealthPort

/// Where a parallel read's ranges begin: from 0 to the document's end, in equal ranges of at
/// most `rangeSize` bytes (give or take one), as many for every parser.
@Suite("Range plan")
struct RangePlanTests {
  /// (document size, range size, threads).
  static let cases: [(Int, Int, Int)] = [
    (20_303_355, 1 << 20, 2), (20_303_355, 1 << 20, 8), (1_000_320_337, 1 << 20, 2), (3 << 20, 1 << 20, 8),
    (5000, 300, 4), (1 << 20, 1 << 20, 2), (1_048_577, 1 << 20, 1), (10, 256, 3),
  ]

  @Test("targets cover the document in order, in equal ranges, as many per parser", arguments: cases)
  func targets(size: Int, rangeSize: Int, threads: Int) {
    let plan = RangePlan(documentSize: size, rangeSize: rangeSize, threads: threads)
    #expect(plan.target(0) == 0)
    #expect(plan.target(plan.count) == size)
    #expect(plan.count % threads == 0)
    // Computed apart: the fewest ranges of at most rangeSize, rounded up to a multiple of threads.
    var expected = threads
    while expected * rangeSize < size { expected += threads }
    #expect(plan.count == expected)
    let gaps = (0..<plan.count).map { plan.target($0 + 1) - plan.target($0) }
    #expect(gaps.allSatisfy { $0 >= size / plan.count && $0 <= size / plan.count + 1 })
  }
}
