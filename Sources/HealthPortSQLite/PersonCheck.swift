import HealthPort
import SQLiteStore

/// Tells a second person's export loaded into the first one's `person` (issue 30, item 11): an
/// export of the same person repeats what the database holds for the span they share, and comes
/// from the same sources. At the start of a load it reads what the database holds for the
/// person (the span of its records' starts, and its source names: one index probe per record
/// type, and the small `sources` table); during the load it counts this export's records inside
/// that span and those of them that were already there; at the end it says whether to warn.
struct PersonCheck {
  /// The span of the starts of the person's records before this load (nil when it had none).
  private(set) var held: (first: Int64, firstDay: String, last: Int64, lastDay: String)?
  private var heldSourceNames: Set<String> = []
  /// This export's records inside ``held``, and those of them that this load did not add.
  private(set) var inside = 0
  private(set) var alreadyThere = 0
  /// The span of this export's record starts.
  private var first: HealthDate?
  private var last: HealthDate?

  /// Reads what the database holds for `person`.
  init(_ db: SQLiteConnection, person: String) throws {
    // The record types, one index probe each (records_key begins with person, type, start_unix).
    let nextType = try db.prepare("SELECT min(type) FROM records WHERE person = ? AND type > ?")
    let earliest = try db.prepare(
      "SELECT start_unix, start_local_day FROM records WHERE person = ? AND type = ? ORDER BY start_unix LIMIT 1")
    let latest = try db.prepare(
      "SELECT start_unix, start_local_day FROM records WHERE person = ? AND type = ? ORDER BY start_unix DESC LIMIT 1")
    var type = ""
    while true {
      try nextType.bind(1, person)
      try nextType.bind(2, type)
      guard try nextType.step(), let next = nextType.text(0) else { break }
      nextType.reset()
      type = next
      for (statement, isFirst) in [(earliest, true), (latest, false)] {
        try statement.bind(1, person)
        try statement.bind(2, type)
        defer { statement.reset() }
        guard try statement.step() else { continue }
        let (unix, day) = (statement.int64(0), statement.text(1) ?? "")
        guard let span = held else {
          held = (unix, day, unix, day)
          continue
        }
        if isFirst, unix < span.first { held = (unix, day, span.last, span.lastDay) }
        if !isFirst, unix > span.last { held = (span.first, span.firstDay, unix, day) }
      }
    }
    nextType.reset()
    guard held != nil else { return }
    let names = try db.prepare("SELECT DISTINCT name FROM sources WHERE person = ?")
    try names.bind(1, person)
    while try names.step() { heldSourceNames.insert(names.text(0) ?? "") }
  }

  /// A top-level record of this export, `added` when this load inserted its row. (An exact copy,
  /// within this export, of a record it added counts as already there: a few, where it matters.)
  @inline(__always)
  mutating func note(_ start: HealthDate, added: Bool) {
    if first.map({ start.secondsSince1970 < $0.secondsSince1970 }) ?? true { first = start }
    if last.map({ start.secondsSince1970 > $0.secondsSince1970 }) ?? true { last = start }
    guard let held, start.secondsSince1970 >= held.first, start.secondsSince1970 <= held.last else { return }
    inside += 1
    if !added { alreadyThere += 1 }
  }

  /// The warning for the end of the load of `path`, nil when this export looks like the same
  /// person's: at least half of its records inside the span the database held were already there
  /// (or none lies inside it), and it shares a source name with what the database held.
  func warning(path: String, person: String, sourceNames: Set<String>) -> LoadWarning? {
    guard let held, let first, let last else { return nil }
    var reasons: [String] = []
    if inside > 0, alreadyThere * 2 < inside {
      let percent = alreadyThere * 100 / inside
      reasons.append(
        "only \(percent) % of its \(NumberText.grouped(inside)) records within that span were already there")
    }
    if !sourceNames.isEmpty, heldSourceNames.isDisjoint(with: sourceNames) {
      reasons.append("it shares no source name with them")
    }
    guard !reasons.isEmpty else { return nil }
    func day(_ date: HealthDate) -> String { String(date.description.prefix(10)) }
    return .anotherPersonsRecords(
      path: path, person: person, heldFirstDay: held.firstDay, heldLastDay: held.lastDay, firstDay: day(first),
      lastDay: day(last), reasons: reasons)
  }
}
