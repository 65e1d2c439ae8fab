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
    // exact duplicates is fed that many times, as the export held them.
    let rows = try db.prepare(
      """
      SELECT r.start_date, r.end_date, r.creation_date, r.value_text, r.unit, r.copies, s.name, s.version, s.product
      FROM records r JOIN sources s ON s.id = r.source_id
      WHERE r.person = ? AND r.type = '\(StepTotals.stepType)' AND r.value_num IS NOT NULL
      ORDER BY r.id
      """)
    try rows.bind(1, person)
    while try rows.step() {
      guard let start = rows.text(0).flatMap(HealthDate.init), let end = rows.text(1).flatMap(HealthDate.init)
      else { continue }
      var record = Record(
        type: StepTotals.stepType, sourceName: rows.text(6) ?? "", sourceVersion: rows.text(7),
        unit: rows.text(4), creationDate: rows.text(2).flatMap(HealthDate.init), startDate: start, endDate: end,
        value: rows.text(3))
      record.sourceProduct = rows.text(8)
      guard record.numericValue != nil else { continue }
      for _ in 0..<max(1, rows.int64(5)) { try totals.add(record) }
    }
    totals.finish()
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
