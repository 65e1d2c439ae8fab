/// Where the ranges of a parallel read of a document begin (before each is moved on to a
/// candidate boundary): the document cut into equal ranges of about `rangeSize` bytes, their
/// number a multiple of the parsers' (each parser parses every n-th range, see ``RangeBoard``),
/// so that every parser gets as many bytes to parse as the others. With 1 MiB ranges dealt in
/// turn, 20 MB made 20 ranges for 2 parsers but 17 + 26 smaller ones in an earlier plan, and
/// one parser did 9 % more than the other.
struct RangePlan {
  let documentSize: Int
  let count: Int
  /// The most bytes one range may span once its ends are moved to boundaries: past it, the
  /// read goes on in sequence (a text or a run of whitespace of many MB holds no boundary, and
  /// a range is held in memory whole).
  static let maximumRangeBytes = 4 << 20

  /// The largest range, before boundaries move its ends.
  var rangeSize: Int { (documentSize + count - 1) / count }

  init(documentSize: Int, rangeSize: Int, threads: Int) {
    self.documentSize = documentSize
    let parsers = max(threads, 1)
    let ranges = max(1, (documentSize + rangeSize - 1) / rangeSize)
    count = (ranges + parsers - 1) / parsers * parsers
  }

  /// The offset range `index` begins at or after; the document's size from `count` on.
  func target(_ index: Int) -> Int {
    index >= count ? documentSize : Int((Int64(documentSize) * Int64(index)) / Int64(count))
  }
}
