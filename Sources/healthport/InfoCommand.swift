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
    if format == "json" {
      try InfoRendering.writeJSON(collector.summary, sideFiles, report: report, rewrites: census?.counts, to: out)
    } else {
      try out.write(InfoRendering.table(collector.summary, sideFiles, report: report))
      if let census { try out.write(InfoRendering.rewritesTable(census.counts)) }
    }
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

  /// The summary as JSON, written as it is made (names may be megabytes long: none is held twice).
  static func writeJSON(
    _ s: ExportSummary, _ side: SideFileTally, report: ReadReport, rewrites: [RewriteCensus.Count]?,
    to stream: OutputStream
  ) throws {
    func string(_ text: String) throws {
      try stream.writeJSONString(text)
    }
    func key(_ name: String, first: Bool = false) throws {
      try stream.write(first ? "{\n  " : ",\n  ")
      try string(name)
      try stream.write(": ")
    }
    func counts(_ map: [String: Int]) throws {
      try stream.write("{")
      for (index, (name, count)) in map.sorted(by: { $0.key < $1.key }).enumerated() {
        if index > 0 { try stream.write(", ") }
        try string(name)
        try stream.write(": \(count)")
      }
      try stream.write("}")
    }
    /// A list of objects, one a line (`[]` when empty); `object` writes an item's fields.
    func objects<Item>(_ items: [Item], _ object: (Item) throws -> Void) throws {
      try stream.write("[")
      for (index, item) in items.enumerated() {
        try stream.write(index > 0 ? ",\n    " : "\n    ")
        try object(item)
        try stream.write("}")
      }
      try stream.write(items.isEmpty ? "]" : "\n  ]")
    }
    /// An object's field name: the first opens the object.
    func field(_ name: String, first: Bool = false) throws {
      try stream.write((first ? "{" : ", ") + "\"\(name)\": ")
    }
    func optional(_ text: String?) throws {
      if let text { try string(text) } else { try stream.write("null") }
    }
    try key("exportVersion", first: true)
    try stream.write(s.exportVersion.map(String.init) ?? "null")
    try key("locale")
    try optional(s.locale)
    try key("exportDate")
    try optional(s.exportDate)
    try key("firstDate")
    try optional(s.firstDate?.description)
    try key("lastDate")
    try optional(s.lastDate?.description)
    try key("recordCount")
    try stream.write("\(s.recordCount)")
    try key("recordsByType")
    try counts(s.recordsByType)
    try key("unitsByType")
    try stream.write("{")
    for (index, (type, units)) in s.unitsByType.sorted(by: { $0.key < $1.key }).enumerated() {
      if index > 0 { try stream.write(", ") }
      try string(type)
      try stream.write(": [")
      for (n, unit) in units.sorted().enumerated() {
        if n > 0 { try stream.write(", ") }
        try string(unit)
      }
      try stream.write("]")
    }
    try stream.write("}")
    try key("workoutCount")
    try stream.write("\(s.workoutCount)")
    try key("workoutsByActivity")
    try counts(s.workoutsByActivity)
    for (name, value) in [
      ("correlationCount", s.correlationCount), ("correlationRecordCount", s.correlationRecordCount),
      ("activitySummaryCount", s.activitySummaryCount), ("clinicalRecordCount", s.clinicalRecordCount),
      ("audiogramCount", s.audiogramCount), ("visionPrescriptionCount", s.visionPrescriptionCount),
      ("routeFileCount", side.routeFiles), ("routePointCount", side.routePoints),
      ("inlineRouteCount", side.inlineRoutes), ("inlineRoutePointCount", side.inlinePoints),
      ("ecgRecordingCount", side.ecgRecordings), ("ecgSampleCount", side.ecgSamples),
    ] {
      try key(name)
      try stream.write("\(value)")
    }
    for (name, paths) in [
      ("unreferencedRouteFiles", AnySequence(report.sideFiles.unreferencedRoutes)),
      ("missingRouteFiles", AnySequence(report.sideFiles.missingRoutes.map(\.path))),
    ] {
      try key(name)
      try stream.write("[")
      for (index, path) in paths.enumerated() {
        if index > 0 { try stream.write(", ") }
        try string(path)
      }
      try stream.write("]")
    }
    try key("elementCounts")
    try counts(s.elementCounts)
    try key("sources")
    try objects(s.sources) { source in
      try field("name", first: true)
      try string(source.name)
      try field("product")
      try optional(source.product)
      try field("records")
      try stream.write("\(source.records)")
    }
    try key("warnings")
    try stream.write("[")
    for (index, warning) in s.warnings.map(InfoRendering.text).enumerated() {
      if index > 0 { try stream.write(", ") }
      try string(warning)
    }
    try stream.write("]")
    if let rewrites {
      try key("rewrites")
      try objects(rewrites) { entry in
        try field("source", first: true)
        try string(entry.sourceName)
        try field("type")
        try string(entry.type)
        try field("count")
        try stream.write("\(entry.count)")
      }
    }
    try key("input")
    try stream.write("{\"path\": ")
    try string(report.documentName)
    try stream.write(", \"format\": ")
    try string(report.format.rawValue)
    try stream.write(", \"bytes\": \(report.documentBytes)}")
    try stream.write("\n}\n")
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
      // A table looks at a cell's head only: a long name is not copied whole into its label.
      let labels = s.sources.map { "\($0.name.headForTable) [\($0.product ?? "unknown product")]".shownInTable }
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
      for warning in s.warnings.map(InfoRendering.text) { lines.append("  - " + warning.shownToPeople) }
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
