import Testing

@testable import HealthPort

/// Where a parallel read's ranges begin: from 0 to the document's end, `rangeSize` apart, and
/// four times finer over the last `threads` ranges' worth of bytes.
@Suite("Range plan")
struct RangePlanTests {
  /// (document size, range size, threads).
  static let cases: [(Int, Int, Int)] = [
    (20_303_355, 1 << 20, 2), (20_303_355, 1 << 20, 8), (1_000_320_337, 1 << 20, 2), (3 << 20, 1 << 20, 8),
    (5000, 300, 4), (1 << 20, 1 << 20, 2), (1_048_577, 1 << 20, 1),
  ]

  @Test("targets cover the document in order, finer at its end", arguments: cases)
  func targets(size: Int, rangeSize: Int, threads: Int) {
    let plan = RangePlan(documentSize: size, rangeSize: rangeSize, threads: threads)
    #expect(plan.target(0) == 0)
    #expect(plan.target(plan.count) == size)
    var gaps: [Int] = []
    for index in 0..<plan.count {
      let gap = plan.target(index + 1) - plan.target(index)
      #expect(gap > 0)
      gaps.append(gap)
    }
    // Computed apart: the bytes after the last whole range that leaves `threads` ranges' worth.
    let tail = min(size, threads * rangeSize)
    let coarse = (size - tail) / rangeSize
    let fine = max(rangeSize / 4, 256)
    #expect(gaps.prefix(coarse).allSatisfy { $0 == rangeSize })
    #expect(gaps.dropFirst(coarse).allSatisfy { $0 <= fine })
    #expect(plan.count == coarse + (size - coarse * rangeSize + fine - 1) / fine)
  }
}
