/// An overview of an export: what `healthport info` prints.
///
/// Counting rules (README, `healthport info`): `recordCount`, `recordsByType` and `sources` count top-level
/// Records only; the Records inside Correlations are copies and are counted apart in
/// `correlationRecordCount`. `firstDate` is the earliest Record start, `lastDate` the latest
/// Record end, both as written.
package struct ExportSummary: Sendable {
  /// A warning about the export: the reader's and the summary's own in words, and the total of
  /// damaged elements skipped as data (worded by the caller, who asked for the skipping).
  package enum Warning: Sendable, Equatable {
    case text(String)
    case skippedElements(Int)
  }

  package struct Source: Hashable, Sendable {
    package var name: String
    package var product: String?
    package var records: Int
  }

  package var exportVersion: Int?
  package var locale: String?
  package var exportDate: String?
  package var firstDate: HealthDate?
  package var lastDate: HealthDate?
  package var recordCount = 0
  package var recordsByType: [String: Int] = [:]
  package var unitsByType: [String: Set<String>] = [:]
  package var workoutCount = 0
  package var workoutsByActivity: [String: Int] = [:]
  package var correlationCount = 0
  package var correlationRecordCount = 0
  package var activitySummaryCount = 0
  package var clinicalRecordCount = 0
  package var audiogramCount = 0
  package var visionPrescriptionCount = 0
  /// Every element in the document by name, nested ones and the root included.
  package var elementCounts: [String: Int] = [:]
  package var sources: [Source] = []
  /// What the reader and the summary noticed, in order.
  package var warnings: [Warning] = []
  package var documentBytes: Int64 = 0
  /// Records, Correlations and Workouts that start more than a day after the export's own
  /// `ExportDate` (a device whose clock was wrong: a phone that wrote 2030), counted when
  /// `ExportDate` comes before them, as the Health app writes it. The day of slack keeps samples
  /// written while the export was made, and small clock drifts, out of it.
  package var samplesAfterExportDate = 0
  /// The latest start among them.
  package var latestAfterExportDate: HealthDate?

  package init() {}
}

/// An ``ExportSink`` that builds an ``ExportSummary`` while the export streams past.
package final class ExportSummaryCollector: ExportSink, RecordTallying {
  package private(set) var summary = ExportSummary()
  private let records = RecordTally()
  // Element counts are gathered into fixed slots and named at the end (no hashing per element).
  private var counts = ElementTally()
  /// A day after the instant of `ExportDate`, once seen.
  private var exportInstant = Int64.max

  package init() {}

  /// Its Records may be tallied per range (`RecordTallying`).
  package var capabilities: SinkCapabilities { .recordTallies }

  /// A range's tally, merged after the elements before it (a parallel read): its Records'
  /// starts up to `upTo` (those before the range's next element) weighed against the export date.
  func weighStarts(of tally: RecordTally, from: Int, upTo: Int) {
    for index in from..<upTo { noteStart(tally.starts[index]) }
  }

  /// The rest of a range's tally, after ``weighStarts(of:from:upTo:)`` for all its starts.
  func merge(_ tally: RecordTally) {
    records.merge(tally)
    counts.add(tally.elements)
  }

  package func begin(_ header: ExportHeader) throws {
    summary.exportVersion = header.exportVersion
    summary.locale = header.locale
    counts.add(header.rootName)
  }

  package func consume(_ element: ExportElement) throws {
    switch element {
    case .record(let record):
      records.add(
        type: record.type, unit: record.unit, sourceName: record.sourceName, sourceProduct: record.sourceProduct,
        startDate: record.startDate, endDate: record.endDate)
      noteStart(record.startDate)
      counts.count(record)
    case .correlation(let correlation):
      summary.correlationCount += 1
      summary.correlationRecordCount += correlation.records.count
      noteStart(correlation.startDate)
      counts.count(correlation)
    case .workout(let workout):
      summary.workoutCount += 1
      summary.workoutsByActivity[workout.workoutActivityType, default: 0] += 1
      noteStart(workout.startDate)
      counts.count(workout)
    case .activitySummary(let value): count(value, in: \.activitySummaryCount)
    case .clinicalRecord(let value): count(value, in: \.clinicalRecordCount)
    case .audiogram(let value): count(value, in: \.audiogramCount)
    case .visionPrescription(let value): count(value, in: \.visionPrescriptionCount)
    case .exportDate(let value):
      summary.exportDate = value.value
      if let date = value.date { exportInstant = date.secondsSince1970 + 86_400 }
      counts.count(value.node)
    case .me(let value):
      counts.count(value.node)
    case .other(let node):
      counts.count(node)
    }
  }

  /// A generic element of a kind the summary counts on its own.
  private func count(_ element: some GenericBackedElement, in field: WritableKeyPath<ExportSummary, Int>) {
    summary[keyPath: field] += 1
    counts.count(element.node)
  }

  @inline(__always)
  private func noteStart(_ start: HealthDate) {
    guard start.secondsSince1970 > exportInstant else { return }
    summary.samplesAfterExportDate += 1
    if summary.latestAfterExportDate.map({ start.secondsSince1970 > $0.secondsSince1970 }) ?? true {
      summary.latestAfterExportDate = start
    }
  }

  package func end(_ report: ReadReport) throws {
    summary.warnings = report.warnings.map(ExportSummary.Warning.text)
    if !report.skipped.isEmpty { summary.warnings.append(.skippedElements(report.skipped.count)) }
    if summary.samplesAfterExportDate > 0, let exportDate = summary.exportDate,
      let latest = summary.latestAfterExportDate
    {
      summary.warnings.append(
        .text(
          "\(summary.samplesAfterExportDate) sample(s) dated more than a day after the export's own date \(exportDate) (the latest \(latest)): a device's clock was probably wrong"
        ))
    }
    summary.documentBytes = report.documentBytes
    summary.elementCounts = counts.named()
    summary.recordCount = records.count
    summary.firstDate = records.firstDate
    summary.lastDate = records.lastDate
    for (slot, type) in records.typeNames.enumerated() {
      summary.recordsByType[type] = records.typeCounts[slot]
      if !records.typeUnits[slot].isEmpty { summary.unitsByType[type] = records.typeUnits[slot] }
    }
    summary.sources = zip(records.sources, records.sourceCounts)
      .map { ExportSummary.Source(name: $0.name, product: $0.product, records: $1) }
      .sorted { ($0.records, $1.name) > ($1.records, $0.name) }
  }
}
