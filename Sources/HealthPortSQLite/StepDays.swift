import HealthPort
import SQLiteStore

/// The rows behind the `daily_steps_dedupe` view: `healthport steps --dedupe --by day` computed
/// over the database's StepCount rows by the library's own de-duplication (``StepTotals``), which
/// portable SQL cannot express. Recomputed for one person at the end of each load, inside its
/// last transaction.
enum StepDays {
  /// The bytes of step samples gathered in memory.
  static let memoryLimit = 1 << 20

  static func recompute(_ db: SQLiteConnection, person: String) throws {
    var configuration = StepTotals.Configuration()
    configuration.by = .day
    configuration.dedupe = true
    // 1 MiB of samples before a sorted run goes to a scratch file (`healthport steps` keeps 4): a
    // 100 MB export already fills it, so this last statement of a load, which runs beside a full
    // page cache, needs the same memory at every size.
    let totals = StepTotals(configuration, memoryLimit: StepDays.memoryLimit)
    // "First appearance" is the order rows were first inserted: id order. A row holding `copies`
    // exact duplicates is fed that many times, as the export held them. The ids come from the key
    // index, in its order, and are kept as one bit each over the range they span, read back in id
    // order: an ORDER BY would have SQLite sort them in memory, and an array of them would take 8
    // bytes per sample (both grow with the export; the bits are 1.3 MB for 10 million rows).
    let condition = "person = ? AND type = '\(StepTotals.stepType)' AND value_num IS NOT NULL"
    let range = try db.prepare("SELECT min(id), max(id) FROM records WHERE \(condition)")
    try range.bind(1, person)
    guard try range.step(), !range.isNull(0) else {
      try store([], person: person, db)
      return
    }
    let (first, last) = (range.int64(0), range.int64(1))
    var rows = IDSet(first: first, last: last)
    let ids = try db.prepare("SELECT id FROM records WHERE \(condition)")
    try ids.bind(1, person)
    while try ids.step() { rows.insert(ids.int64(0)) }
    var sources: [Int64: (name: String, version: String?, product: String?)] = [:]
    let source = try db.prepare("SELECT name, version, product FROM sources WHERE id = ?")
    let row = try db.prepare(
      "SELECT start_date, end_date, creation_date, value_text, unit, copies, source_id FROM records WHERE id = ?")
    for id in rows {
      try row.bind(1, id)
      defer { row.reset() }
      guard try row.step(), let start = row.text(0).flatMap(HealthDate.init),
        let end = row.text(1).flatMap(HealthDate.init)
      else { continue }
      let sourceID = row.int64(6)
      if sources[sourceID] == nil {
        try source.bind(1, sourceID)
        sources[sourceID] = try source.step() ? (source.text(0) ?? "", source.text(1), source.text(2)) : ("", nil, nil)
        source.reset()
      }
      let from = sources[sourceID] ?? ("", nil, nil)
      var record = Record(
        type: StepTotals.stepType, sourceName: from.name, sourceVersion: from.version, unit: row.text(4),
        creationDate: row.text(2).flatMap(HealthDate.init), startDate: start, endDate: end, value: row.text(3))
      record.sourceProduct = from.product
      guard record.numericValue != nil else { continue }
      for _ in 0..<max(1, row.int64(5)) { try totals.add(record) }
    }
    try totals.finish()
    try store(totals.result, person: person, db)
  }

  /// Replaces the person's rows of `step_days_dedupe` with `days`.
  private static func store(_ days: [PeriodTotal], person: String, _ db: SQLiteConnection) throws {
    let delete = try db.prepare("DELETE FROM step_days_dedupe WHERE person = ?")
    try delete.bind(1, person)
    _ = try delete.run()
    let insert = try db.prepare("INSERT INTO step_days_dedupe (person, period, steps, samples) VALUES (?, ?, ?, ?)")
    for day in days {
      try insert.bind(1, person)
      try insert.bind(2, day.period)
      try insert.bind(3, day.value)
      try insert.bind(4, Int64(day.samples))
      _ = try insert.run()
    }
  }
}

/// A set of row ids within `first...last`, one bit each, iterated in ascending order.
struct IDSet: Sequence {
  let first: Int64
  private var words: [UInt64]

  init(first: Int64, last: Int64) {
    self.first = first
    words = [UInt64](repeating: 0, count: Int((last - first) / 64) + 1)
  }

  /// Adds `id`; one outside the range given is left out.
  mutating func insert(_ id: Int64) {
    guard id >= first, (id - first) / 64 < words.count else { return }
    let offset = Int(id - first)
    words[offset / 64] |= 1 << UInt64(offset % 64)
  }

  func makeIterator() -> Iterator { Iterator(set: self) }

  struct Iterator: IteratorProtocol {
    let set: IDSet
    var word = 0
    var bits: UInt64

    init(set: IDSet) {
      self.set = set
      bits = set.words.first ?? 0
    }

    mutating func next() -> Int64? {
      while bits == 0 {
        word += 1
        guard word < set.words.count else { return nil }
        bits = set.words[word]
      }
      let bit = bits.trailingZeroBitCount
      bits &= bits - 1
      return set.first + Int64(word * 64 + bit)
    }
  }
}
