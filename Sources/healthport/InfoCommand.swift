import HealthPort

/// `healthport info`: an overview of an export.
enum InfoCommand: Command {
  static let name = "info"
  static let summary = "Show an overview of an export: version, dates, counts per type, sources, warnings."
  static let options =
    [
      OptionSpec(name: "--format", short: nil, valueName: "table|json", help: "Output format (default: table)."),
      OptionSpec(
        name: "--rewrites", short: nil, valueName: nil,
        help: "Also count the rewritten records per source and type (one more sorted pass; see docs)."),
      OptionSpec(name: "--quiet", short: "-q", valueName: nil, help: "No progress bar."),
    ] + FilterOptions.specs
  static let usage = """
    USAGE: healthport info [INPUT] [--format table|json] [--rewrites] [--quiet]
                           [--type T] [--activity A] [--source-product P] [--source TEXT]
                           [--from D] [--to D] [--tz ZONE]

    ARGUMENTS:
      INPUT                       export.xml, export.zip, an export folder, or - for stdin (default).

    EXAMPLES:
      healthport info export.zip
      healthport info export.xml --format json | jq .recordsByType
      healthport info export.zip --source-product Watch --from 2024-01-01
      healthport info export.zip --rewrites
    """

  static func run(_ arguments: ParsedArguments) throws {
    let format = try arguments.choice("--format", ["table", "json"], default: "table", command: name)
    guard arguments.positionals.count <= 1 else {
      throw HealthPortError(.usage, message: "expected one INPUT, got \(arguments.positionals.count)")
    }
    let input = arguments.positionals.first
    let filter = try FilterOptions.parse(arguments, command: name)
    let collector = ExportSummaryCollector()
    // Plain `info` keeps its parallel tally of Records: the census goes beside it only when asked.
    let census = arguments.flag("--rewrites") ? RewriteCensus() : nil
    let sideFiles = SideFileTally(next: census.map { SinkGroup([collector, $0]) } ?? collector)
    let report = try FilterOptions.read(
      input, into: sideFiles, filter: filter, arguments: arguments, command: name, answersFromExport: true)
    let out = OutputStream()
    var bytes: [UInt8] = []
    if format == "json" {
      InfoRendering.appendJSON(collector.summary, sideFiles, report: report, rewrites: census?.counts, to: &bytes)
    } else {
      var table = InfoRendering.table(collector.summary, sideFiles, report: report)
      if let census { table += InfoRendering.rewritesTable(census.counts) }
      bytes.append(contentsOf: table.utf8)
    }
    try out.write(bytes)
    try out.commit()
  }
}

/// Renders an ``ExportSummary`` for people (table) or programs (JSON).
enum InfoRendering {
  /// A warning of the summary in words.
  static func text(_ warning: ExportSummary.Warning) -> String {
    switch warning {
    case .text(let text): text
    case .skippedElements(let count): "skipped \(count) damaged element(s) (--skip-invalid); everything else was read"
    }
  }

  static func appendJSON(
    _ s: ExportSummary, _ side: SideFileTally, report: ReadReport, rewrites: [RewriteCensus.Count]?,
    to out: inout [UInt8]
  ) {
    func key(_ name: String, first: Bool = false) {
      out.append(contentsOf: Array((first ? "{\n  " : ",\n  ").utf8))
      JSONEscaping.appendString(name, to: &out)
      out.append(contentsOf: Array(": ".utf8))
    }
    func counts(_ map: [String: Int]) {
      out.append(UInt8(ascii: "{"))
      for (index, (name, count)) in map.sorted(by: { $0.key < $1.key }).enumerated() {
        if index > 0 { out.append(contentsOf: Array(", ".utf8)) }
        JSONEscaping.appendString(name, to: &out)
        out.append(contentsOf: Array(": ".utf8))
        JSONEscaping.appendInteger(count, to: &out)
      }
      out.append(UInt8(ascii: "}"))
    }
    /// A list of objects, one a line (`[]` when empty); `object` writes an item's fields.
    func objects<Item>(_ items: [Item], _ object: (Item) -> Void) {
      out.append(UInt8(ascii: "["))
      for (index, item) in items.enumerated() {
        out.append(contentsOf: Array((index > 0 ? ",\n    " : "\n    ").utf8))
        object(item)
        out.append(UInt8(ascii: "}"))
      }
      out.append(contentsOf: Array((items.isEmpty ? "]" : "\n  ]").utf8))
    }
    /// An object's field name: the first opens the object.
    func field(_ name: String, first: Bool = false) {
      out.append(contentsOf: Array(((first ? "{" : ", ") + "\"\(name)\": ").utf8))
    }
    key("exportVersion", first: true)
    if let version = s.exportVersion {
      JSONEscaping.appendInteger(version, to: &out)
    } else {
      out.append(contentsOf: Array("null".utf8))
    }
    key("locale")
    JSONEscaping.appendOptional(s.locale, to: &out)
    key("exportDate")
    JSONEscaping.appendOptional(s.exportDate, to: &out)
    key("firstDate")
    JSONEscaping.appendOptional(s.firstDate?.description, to: &out)
    key("lastDate")
    JSONEscaping.appendOptional(s.lastDate?.description, to: &out)
    key("recordCount")
    JSONEscaping.appendInteger(s.recordCount, to: &out)
    key("recordsByType")
    counts(s.recordsByType)
    key("unitsByType")
    out.append(UInt8(ascii: "{"))
    for (index, (type, units)) in s.unitsByType.sorted(by: { $0.key < $1.key }).enumerated() {
      if index > 0 { out.append(contentsOf: Array(", ".utf8)) }
      JSONEscaping.appendString(type, to: &out)
      out.append(contentsOf: Array(": [".utf8))
      for (n, unit) in units.sorted().enumerated() {
        if n > 0 { out.append(contentsOf: Array(", ".utf8)) }
        JSONEscaping.appendString(unit, to: &out)
      }
      out.append(UInt8(ascii: "]"))
    }
    out.append(UInt8(ascii: "}"))
    key("workoutCount")
    JSONEscaping.appendInteger(s.workoutCount, to: &out)
    key("workoutsByActivity")
    counts(s.workoutsByActivity)
    for (name, value) in [
      ("correlationCount", s.correlationCount), ("correlationRecordCount", s.correlationRecordCount),
      ("activitySummaryCount", s.activitySummaryCount), ("clinicalRecordCount", s.clinicalRecordCount),
      ("audiogramCount", s.audiogramCount), ("visionPrescriptionCount", s.visionPrescriptionCount),
      ("routeFileCount", side.routeFiles), ("routePointCount", side.routePoints),
      ("inlineRouteCount", side.inlineRoutes), ("inlineRoutePointCount", side.inlinePoints),
      ("ecgRecordingCount", side.ecgRecordings), ("ecgSampleCount", side.ecgSamples),
    ] {
      key(name)
      JSONEscaping.appendInteger(value, to: &out)
    }
    for (name, paths) in [
      ("unreferencedRouteFiles", AnySequence(report.sideFiles.unreferencedRoutes)),
      ("missingRouteFiles", AnySequence(report.sideFiles.missingRoutes.map(\.path))),
    ] {
      key(name)
      out.append(UInt8(ascii: "["))
      for (index, path) in paths.enumerated() {
        if index > 0 { out.append(contentsOf: Array(", ".utf8)) }
        JSONEscaping.appendString(path, to: &out)
      }
      out.append(UInt8(ascii: "]"))
    }
    key("elementCounts")
    counts(s.elementCounts)
    key("sources")
    objects(s.sources) { source in
      field("name", first: true)
      JSONEscaping.appendString(source.name, to: &out)
      field("product")
      JSONEscaping.appendOptional(source.product, to: &out)
      field("records")
      JSONEscaping.appendInteger(source.records, to: &out)
    }
    key("warnings")
    out.append(UInt8(ascii: "["))
    for (index, warning) in s.warnings.map(InfoRendering.text).enumerated() {
      if index > 0 { out.append(contentsOf: Array(", ".utf8)) }
      JSONEscaping.appendString(warning, to: &out)
    }
    out.append(UInt8(ascii: "]"))
    if let rewrites {
      key("rewrites")
      objects(rewrites) { entry in
        field("source", first: true)
        JSONEscaping.appendString(entry.sourceName, to: &out)
        field("type")
        JSONEscaping.appendString(entry.type, to: &out)
        field("count")
        JSONEscaping.appendInteger(entry.count, to: &out)
      }
    }
    key("input")
    out.append(contentsOf: Array("{\"path\": ".utf8))
    JSONEscaping.appendString(report.documentName, to: &out)
    out.append(contentsOf: Array(", \"format\": ".utf8))
    JSONEscaping.appendString(report.format.rawValue, to: &out)
    out.append(contentsOf: Array(", \"bytes\": \(report.documentBytes)}".utf8))
    out.append(contentsOf: Array("\n}\n".utf8))
  }

  static func table(_ s: ExportSummary, _ side: SideFileTally, report: ReadReport) -> String {
    var lines: [String] = []
    // The overview's labels and values, aligned once all are known (the longest label sets the column).
    var rows: [(label: String, value: String)] = []
    func row(_ label: String, _ value: String) { rows.append((label, value)) }
    row("Export", "\(report.documentName) (\(report.format.rawValue), \(formatBytes(report.documentBytes)))")
    row("Export version", s.exportVersion.map(String.init) ?? "none (no version comment)")
    row("Locale", (s.locale ?? "-").shownInTable)
    row("Exported", (s.exportDate ?? "-").shownInTable)
    row("Records", grouped(s.recordCount))
    if let first = s.firstDate, let last = s.lastDate { row("Dates", "\(first) … \(last)") }
    row("Workouts", grouped(s.workoutCount))
    row(
      "Correlations",
      grouped(s.correlationCount)
        + (s.correlationRecordCount > 0
          ? " (holding \(grouped(s.correlationRecordCount)) copies of records, not counted above)" : ""))
    row("Activity summaries", grouped(s.activitySummaryCount))
    if side.routeFiles > 0 || side.inlineRoutes > 0 || !report.sideFiles.missingRoutes.isEmpty {
      var routes = "\(grouped(side.routeFiles)) GPX file(s), \(grouped(side.routePoints)) points"
      if side.inlineRoutes > 0 {
        routes += "; \(grouped(side.inlineRoutes)) inline, \(grouped(side.inlinePoints)) points"
      }
      let unreferenced = report.sideFiles.unreferencedRoutes.count
      let missing = report.sideFiles.missingRoutes.count
      if unreferenced > 0 || missing > 0 { routes += " (\(unreferenced) unreferenced, \(missing) missing)" }
      row("Routes", routes)
    }
    if side.ecgRecordings > 0 {
      row("ECG recordings", "\(grouped(side.ecgRecordings)) (\(grouped(side.ecgSamples)) samples)")
    }
    if s.clinicalRecordCount > 0 { row("Clinical records", grouped(s.clinicalRecordCount)) }
    if s.audiogramCount > 0 { row("Audiograms", grouped(s.audiogramCount)) }
    if s.visionPrescriptionCount > 0 { row("Vision prescriptions", grouped(s.visionPrescriptionCount)) }
    let labelWidth = max(20, (rows.map(\.label.displayWidth).max() ?? 0) + 2)
    lines = rows.map { $0.label.padding(to: labelWidth) + $0.value }
    if !s.recordsByType.isEmpty {
      lines.append("")
      lines.append("Records by type")
      let width = min(60, s.recordsByType.keys.map(\.shownInTable.displayWidth).max() ?? 0)
      for (type, count) in s.recordsByType.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
        let units = (s.unitsByType[type] ?? []).sorted().joined(separator: ", ").shownInTable
        lines.append(
          "  " + type.shownInTable.padding(to: width + 2) + grouped(count).leftPadded(to: 12)
            + (units.isEmpty ? "" : "  " + units))
      }
    }
    if !s.workoutsByActivity.isEmpty {
      lines.append("")
      lines.append("Workouts by activity")
      let width = s.workoutsByActivity.keys.map(\.shownInTable.displayWidth).max() ?? 0
      for (type, count) in s.workoutsByActivity.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
        lines.append("  " + type.shownInTable.padding(to: width + 2) + grouped(count).leftPadded(to: 12))
      }
    }
    if !s.sources.isEmpty {
      lines.append("")
      lines.append("Sources (records)")
      let labels = s.sources.map { "\($0.name) [\($0.product ?? "unknown product")]".shownInTable }
      let width = labels.map(\.displayWidth).max() ?? 0
      for (label, source) in zip(labels, s.sources) {
        lines.append("  " + label.padding(to: width + 2) + grouped(source.records).leftPadded(to: 12))
      }
    }
    lines.append("")
    if s.warnings.isEmpty {
      lines.append("Warnings: none")
    } else {
      lines.append("Warnings")
      for warning in s.warnings.map(InfoRendering.text) { lines.append("  - " + warning.shownInTable) }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// `info --rewrites`: the rewrites per source and type, most first.
  static func rewritesTable(_ counts: [RewriteCensus.Count]) -> String {
    guard !counts.isEmpty else { return "\nRewrites: none\n" }
    var lines = ["", "Rewrites (records repeating an earlier one; answers count them once)"]
    let sources = counts.map(\.sourceName.shownInTable)
    let types = counts.map { KnownNames.shortTypeName($0.type).shownInTable }
    let sourceWidth = sources.map(\.displayWidth).max() ?? 0
    let typeWidth = types.map(\.displayWidth).max() ?? 0
    let order = counts.indices.sorted { (counts[$0].count, $1) > (counts[$1].count, $0) }
    for index in order {
      lines.append(
        "  " + sources[index].padding(to: sourceWidth + 2) + types[index].padding(to: typeWidth + 2)
          + grouped(counts[index].count).leftPadded(to: 12))
    }
    return lines.joined(separator: "\n") + "\n"
  }

  static func grouped(_ value: Int) -> String { NumberText.grouped(value) }

  static func formatBytes(_ bytes: Int64) -> String {
    bytes >= 1_000_000 ? "\(bytes / 100_000 / 10).\(bytes / 100_000 % 10) MB" : "\(bytes) bytes"
  }
}

/// Hands everything on to `info`'s summary and counts the side files that pass the filters:
/// GPX routes and their points, inline `Location` routes, ECG recordings and their samples.
final class SideFileTally: ExportStage {
  let next: ExportSink
  private(set) var routeFiles = 0
  private(set) var routePoints = 0
  private(set) var inlineRoutes = 0
  private(set) var inlinePoints = 0
  private(set) var ecgRecordings = 0
  private(set) var ecgSamples = 0

  init(next: ExportSink) { self.next = next }

  /// Side files, and the next sink's wants; Records are the summary's alone, so they may be
  /// tallied without passing here (``SinkCapabilities/recordTallies``).
  var capabilities: SinkCapabilities { next.capabilities.union(.sideFiles) }

  func consume(_ element: ExportElement) throws {
    if case .workout(let workout) = element {
      for route in workout.routes {
        let points = route.children.reduce(0) { if case .location = $1 { $0 + 1 } else { $0 } }
        if points > 0 {
          inlineRoutes += 1
          inlinePoints += points
        }
      }
    }
    try next.consume(element)
  }

  func consumeSideFile(_ event: SideFileEvent) throws {
    switch event {
    case .routeBegin: routeFiles += 1
    case .routePoints(let points): routePoints += points.count
    case .ecgBegin: ecgRecordings += 1
    case .ecgSamples(let samples): ecgSamples += samples.count
    case .routeEnd, .ecgEnd: break
    }
  }
}
