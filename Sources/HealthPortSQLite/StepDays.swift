import HealthPort
import SQLiteStore

/// The rows behind the `daily_steps_dedupe` view: `healthport steps --dedupe --by day` computed
/// over the database's StepCount rows by the library's own de-duplication (``StepTotals``), which
/// portable SQL cannot express. Recomputed for one person at the end of each load, inside its
/// last transaction.
enum StepDays {
  static func recompute(_ db: SQLiteConnection, person: String) throws {
    var configuration = StepTotals.Configuration()
    configuration.by = .day
    configuration.dedupe = true
    let totals = StepTotals(configuration)
    // "First appearance" is the order rows were first inserted: id order. A row holding `copies`
    // exact duplicates is fed that many times, as the export held them. The ids come from the key
    // index and are sorted here: an ORDER BY over whole rows would have SQLite sort them all in
    // memory (tens of MB for a large export).
    let ids = try db.prepare(
      "SELECT id FROM records WHERE person = ? AND type = '\(StepTotals.stepType)' AND value_num IS NOT NULL")
    try ids.bind(1, person)
    var order: [Int64] = []
    while try ids.step() { order.append(ids.int64(0)) }
    order.sort()
    var sources: [Int64: (name: String, version: String?, product: String?)] = [:]
    let source = try db.prepare("SELECT name, version, product FROM sources WHERE id = ?")
    let row = try db.prepare(
      "SELECT start_date, end_date, creation_date, value_text, unit, copies, source_id FROM records WHERE id = ?")
    for id in order {
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
    let delete = try db.prepare("DELETE FROM step_days_dedupe WHERE person = ?")
    try delete.bind(1, person)
    _ = try delete.run()
    let insert = try db.prepare("INSERT INTO step_days_dedupe (person, period, steps, samples) VALUES (?, ?, ?, ?)")
    for day in totals.result {
      try insert.bind(1, person)
      try insert.bind(2, day.period)
      try insert.bind(3, day.value)
      try insert.bind(4, Int64(day.samples))
      _ = try insert.run()
    }
  }
}
