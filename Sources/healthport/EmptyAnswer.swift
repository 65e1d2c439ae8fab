import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// When an answer is empty but the input holds records, one line on stderr that says why (also
/// with `--quiet`; stdout and the exit code stay as they are): the wanted type's span when the
/// filters left none of it, else up to three types closest to it by name (every type when the
/// input holds at most three), with their counts. It
/// reads the input a second time, unfiltered, so only a file or folder is explained, never stdin
/// or a pipe.
enum EmptyAnswer {
  /// For an answer about Records of `type`.
  static func explain(records type: String, input: String?, command: String) {
    guard let census = census(of: input) else { return }
    let noun = Noun(one: "record", many: "records", kind: "type", kinds: "types")
    if let line = message(wanted: type, in: census.recordTypes, noun: noun, short: KnownNames.shortTypeName) {
      CommandLineTool.writeError("healthport \(command): \(line)\n")
    }
  }

  /// For an answer about Workouts of `activities` (nil: any).
  static func explain(workouts activities: Set<String>?, input: String?, command: String) {
    guard let census = census(of: input) else { return }
    let short = KnownNames.shortActivityName
    let line: String?
    if let activities, activities.count == 1, let activity = activities.first {
      let noun = Noun(one: "workout", many: "workouts", kind: "activity", kinds: "activities")
      line = message(wanted: activity, in: census.activities, noun: noun, short: short)
    } else if !census.activities.isEmpty {
      let total = census.activities.values.reduce(0) { $0 + $1.count }
      line =
        "no workouts matched the filters; the input's \(NumberText.grouped(total)) "
        + "\(total == 1 ? "workout spans" : "workouts span") \(span(census.activities.values))"
    } else {
      line = nil
    }
    if let line { CommandLineTool.writeError("healthport \(command): \(line)\n") }
  }

  private static func census(of input: String?) -> ElementCensus? {
    guard let input, input != "-" else { return nil }
    var status = stat()
    guard stat(input, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG || (status.st_mode & S_IFMT) == S_IFDIR
    else { return nil }
    let census = ElementCensus()
    guard (try? ExportReader(path: input, options: ReadOptions()).read(into: census)) != nil else { return nil }
    return census
  }

  struct Noun {
    var one: String
    var many: String
    /// What they are of: `type`, `activity`.
    var kind: String
    var kinds: String
  }

  static func message(
    wanted: String, in entries: [String: ElementCensus.Entry], noun: Noun, short: (String) -> String
  ) -> String? {
    guard !entries.isEmpty else { return nil }
    let name = short(wanted).shownInTable
    func counted(_ count: Int) -> String { "\(NumberText.grouped(count)) \(count == 1 ? noun.one : noun.many)" }
    if let entry = entries[wanted] {
      return "no \(name) \(noun.many) matched the filters; the input's \(NumberText.grouped(entry.count)) \(name) "
        + "\(entry.count == 1 ? noun.one + " spans" : noun.many + " span") \(span([entry]))"
    }
    var pool = Array(entries.keys)
    var closest: [String] = []
    while closest.count < 3, let best = NameSuggestion.closest(to: short(wanted), in: pool.map(short)) {
      let index = pool.firstIndex { short($0) == best }!
      closest.append(pool.remove(at: index))
    }
    // An input of a few types (another tool's per-type CSV) names them all, close or not.
    if closest.isEmpty && entries.count <= 3 { closest = entries.keys.sorted() }
    let total = entries.values.reduce(0) { $0 + $1.count }
    guard !closest.isEmpty else {
      return "no \(name) \(noun.many); the input holds \(counted(total)) of \(entries.count) other "
        + (entries.count == 1 ? noun.kind : noun.kinds) + " (healthport info lists them)"
    }
    let held = closest.map { "\(counted(entries[$0]!.count)) of \(noun.kind) '\(short($0).shownInTable)'" }
    return "no \(name) \(noun.many); the input holds " + held.joined(separator: ", ")
  }

  /// `2019-01-03 … 2023-05-09`: the days (as written) of the earliest start and the latest end.
  private static func span<S: Sequence>(_ entries: S) -> String where S.Element == ElementCensus.Entry {
    let first = entries.compactMap(\.first).min { $0.secondsSince1970 < $1.secondsSince1970 }
    let last = entries.compactMap(\.last).max { $0.secondsSince1970 < $1.secondsSince1970 }
    return "\(first?.description.prefix(10) ?? "?") … \(last?.description.prefix(10) ?? "?")"
  }
}
