import HealthPort

/// What `steps`, `stats` and `chart` set alike on ``StepTotals`` and ``Stats``: the period, the
/// zone of local days, `--dedupe`, `--keep-rewrites` and `--priority`.
protocol PeriodSettings {
  var by: PeriodKind { get set }
  var zone: ZoneRule { get set }
  var dedupe: Bool { get set }
  var keepRewrites: Bool { get set }
  var priority: [String] { get set }
}

extension StepTotals.Configuration: PeriodSettings {}
extension Stats.Configuration: PeriodSettings {}

extension PeriodSettings {
  /// From the command line: `--by` (day, week, month or year), the filter's zone (`--tz`),
  /// `--keep-rewrites`, then `--dedupe` with its `--priority`; usage errors in that order.
  mutating func take(_ arguments: ParsedArguments, filter: ExportFilter, command: String) throws {
    let by = try FilterOptions.period(arguments, command: command)
    let keepRewrites = arguments.flag("--keep-rewrites")
    let (dedupe, priority) = try FilterOptions.dedupe(arguments)
    set(by: by, zone: filter.zone, dedupe: dedupe, keepRewrites: keepRewrites, priority: priority)
  }

  mutating func set(by: PeriodKind, zone: ZoneRule, dedupe: Bool, keepRewrites: Bool, priority: [String]) {
    self.by = by
    self.zone = zone
    self.dedupe = dedupe
    self.keepRewrites = keepRewrites
    self.priority = priority
  }
}
