import HealthPort
import SQLiteStore

/// The memory the loader binds text from: an arena for the values of the statement being bound
/// (see ``TextArena``), and the writers' date formatter.
final class BindingText {
  let arena = TextArena()
  var dates = ExportDateFormatter()
  /// For the rare value that does not fit in the arena (bound with a copy).
  var scratch: [UInt8] = []
}

/// Binds parameters in order, text without copies (SQLITE_STATIC, from ``BindingText/arena``).
///
/// Every run binds every parameter of its statement, and ``run()`` empties the arena only once
/// the statement has run, so no statement ever reads arena memory that another has reused.
struct Binder {
  let statement: SQLiteStatement
  let text: BindingText
  var index: Int32 = 1

  init(_ statement: SQLiteStatement, _ text: BindingText) {
    self.statement = statement
    self.text = text
  }

  /// Runs the statement to completion, then frees the arena; returns the rows changed.
  @discardableResult
  mutating func run() throws -> Int {
    defer { text.arena.reset() }
    return try statement.run()
  }

  mutating func add(_ value: String) throws {
    var value = value
    let stored = value.withUTF8 { text.arena.copy($0) }
    let at = next()
    if let stored { try statement.bindStatic(at, utf8: stored) } else { try statement.bind(at, value) }
  }
  mutating func add(_ value: String?) throws {
    if let value { try add(value) } else { try addNull() }
  }
  mutating func addNull() throws { try statement.bindNull(next()) }
  mutating func add(_ value: Int64) throws { try statement.bind(next(), value) }
  mutating func add(_ value: Int64?) throws { try statement.bind(next(), value) }
  mutating func add(_ value: Int) throws { try statement.bind(next(), Int64(value)) }
  mutating func add(_ value: Double) throws { try statement.bind(next(), value) }
  mutating func add(_ value: Double?) throws { try statement.bind(next(), value) }

  /// The parameter the next value binds to; moves past it.
  @inline(__always)
  private mutating func next() -> Int32 {
    index += 1
    return index - 1
  }

  /// Three parameters: the date as written, Unix seconds, UTC offset in minutes (NULLs when absent);
  /// with `localDay`, a fourth: the local day as written (`YYYY-MM-DD`, the string's first 10 bytes).
  mutating func add(date: HealthDate?, localDay: Bool = false) throws {
    let dayIndex = index + 3
    if let date {
      if let room = text.arena.reserve(ExportDateFormatter.writeRoom),
        let count = text.dates.write(date, to: room.baseAddress!)
      {
        try statement.bindStatic(index, utf8: UnsafeBufferPointer(rebasing: room[..<count]))
        if localDay { try statement.bindStatic(dayIndex, utf8: UnsafeBufferPointer(rebasing: room[..<min(10, count)])) }
      } else {
        text.scratch.removeAll(keepingCapacity: true)
        date.append(to: &text.scratch)
        try statement.bindText(index, utf8: text.scratch)
        if localDay { try statement.bindText(dayIndex, utf8: Array(text.scratch.prefix(10))) }
      }
      try statement.bind(index + 1, date.secondsSince1970)
      try statement.bind(index + 2, Int64(date.offsetSeconds / 60))
    } else {
      try statement.bindNull(index)
      try statement.bindNull(index + 1)
      try statement.bindNull(index + 2)
      if localDay { try statement.bindNull(dayIndex) }
    }
    index += localDay ? 4 : 3
  }
}
