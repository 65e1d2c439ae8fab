/// What a sink that tallies Records (``RecordTallying``, `healthport info`) keeps of the top-level
/// Records: how many of each type (and their units), of each source, the earliest start and
/// latest end, and every element of the Records by name.
///
/// Such a sink keeps one for the whole export. A parallel read (issue 16) keeps one
/// per range on the range's parsing thread, fed ``RecordFacts`` instead of built Records
/// (``RecordTallying``), and merges them in document order, which gives the same tables: what
/// appears first stays first, and a tie for the earliest or latest date goes to the earlier.
final class RecordTally {
  struct SourceKey: Hashable {
    let name: String
    let product: String?
  }

  private(set) var count = 0
  private(set) var typeNames: [String] = []
  private(set) var typeCounts: [Int] = []
  private(set) var typeUnits: [Set<String>] = []
  private var typeIndex: [String: Int] = [:]
  private(set) var sources: [SourceKey] = []
  private(set) var sourceCounts: [Int] = []
  private var sourceIndex: [SourceKey: Int] = [:]
  // Records come grouped by type and by source: the previous ones are compared first (String
  // equality is immediate for the interned strings the reader hands out).
  // Kept apart rather than as optional tuples, which were copied (a retain and a release of
  // each string in them) at every comparison.
  private var lastTypeName = ""
  private var lastTypeIndex = -1
  private var lastUnit: String?
  private var lastSourceName = ""
  private var lastSourceProduct: String?
  private var lastSourceIndex = -1
  private(set) var firstDate: HealthDate?
  private(set) var lastDate: HealthDate?
  /// A range's tally: every Record's start, in order. Whether a start counts as after the
  /// export date depends on the `ExportDate` elements before it, which only the merge knows.
  private(set) var starts: [HealthDate] = []
  private let keepsStarts: Bool
  /// A range's tally: its Records and their elements, by name (``ElementTally``).
  var elements = ElementTally()

  init(keepingStarts: Bool = false) { keepsStarts = keepingStarts }

  @inline(__always)
  func add(
    type: String, unit: String?, sourceName: String, sourceProduct: String?, startDate: HealthDate,
    endDate: HealthDate
  ) {
    count += 1
    if lastTypeIndex < 0 || type != lastTypeName {
      lastTypeIndex = slot(ofType: type)
      lastTypeName = type
      lastUnit = nil
    }
    typeCounts[lastTypeIndex] += 1
    if let unit, unit != lastUnit {
      typeUnits[lastTypeIndex].insert(unit)
      lastUnit = unit
    }
    if firstDate.map({ startDate.secondsSince1970 < $0.secondsSince1970 }) ?? true { firstDate = startDate }
    if lastDate.map({ endDate.secondsSince1970 > $0.secondsSince1970 }) ?? true { lastDate = endDate }
    if lastSourceIndex < 0 || sourceName != lastSourceName || sourceProduct != lastSourceProduct {
      lastSourceIndex = slot(ofSource: SourceKey(name: sourceName, product: sourceProduct))
      lastSourceName = sourceName
      lastSourceProduct = sourceProduct
    }
    sourceCounts[lastSourceIndex] += 1
    if keepsStarts { starts.append(startDate) }
  }

  func add(_ facts: RecordFacts) {
    add(
      type: facts.type, unit: facts.unit, sourceName: facts.sourceName, sourceProduct: facts.sourceProduct,
      startDate: facts.startDate, endDate: facts.endDate)
  }

  /// Adds the next range's tally, which follows everything added so far in the document.
  func merge(_ other: RecordTally) {
    count += other.count
    for (position, name) in other.typeNames.enumerated() {
      let index = slot(ofType: name)
      typeCounts[index] += other.typeCounts[position]
      typeUnits[index].formUnion(other.typeUnits[position])
    }
    for (position, key) in other.sources.enumerated() {
      sourceCounts[slot(ofSource: key)] += other.sourceCounts[position]
    }
    if let start = other.firstDate, firstDate.map({ start.secondsSince1970 < $0.secondsSince1970 }) ?? true {
      firstDate = start
    }
    if let end = other.lastDate, lastDate.map({ end.secondsSince1970 > $0.secondsSince1970 }) ?? true {
      lastDate = end
    }
  }

  private func slot(ofType type: String) -> Int {
    if let found = typeIndex[type] { return found }
    typeIndex[type] = typeNames.count
    typeNames.append(type)
    typeCounts.append(0)
    typeUnits.append([])
    return typeNames.count - 1
  }

  private func slot(ofSource key: SourceKey) -> Int {
    if let found = sourceIndex[key] { return found }
    sourceIndex[key] = sources.count
    sources.append(key)
    sourceCounts.append(0)
    return sources.count - 1
  }
}

/// What a top-level Record's start tag gives a ``RecordTally``, read without building the
/// Record (``AttributeParser/recordFacts(_:)``), and what the builder counts of it.
struct RecordFacts {
  var type: String
  var unit: String?
  var sourceName: String
  var sourceProduct: String?
  var startDate: HealthDate
  var endDate: HealthDate
  var hasValue: Bool
  var extraAttributes: Int
}
