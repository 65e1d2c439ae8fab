// A program outside the package, type-checked by PublicAPITests against HealthPort's public
// declarations alone: a sink, a stage and an aggregation of its own, the model's fields, the
// filters and StepTotals, as the DocC catalog shows them.
import HealthPort

/// A sink: steps summed as they stream by (the getting-started article's first program).
final class StepCounter: ExportSink {
  var steps = 0.0
  var interest: ElementInterest {
    var interest = ElementInterest()
    interest.recordTypes = ["HKQuantityTypeIdentifierStepCount"]
    interest.correlations = false
    interest.workouts = false
    interest.others = false
    return interest
  }
  func begin(_ header: ExportHeader) throws { _ = (header.locale, header.exportVersion) }
  func consume(_ element: ExportElement) throws {
    if case .record(let record) = element, record.type == "HKQuantityTypeIdentifierStepCount" {
      steps += record.numericValue ?? 0
    }
  }
  func end(_ report: ReadReport) throws { _ = (report.documentName, report.documentBytes, report.warnings) }
}

/// A stage: drops the Records of one source, hands everything else on.
final class DropSource: ExportStage {
  let next: ExportSink
  let sourceName: String
  init(_ sourceName: String, next: ExportSink) {
    self.sourceName = sourceName
    self.next = next
  }
  func consume(_ element: ExportElement) throws {
    if case .record(let record) = element, record.sourceName == sourceName { return }
    try next.consume(element)
  }
}

/// An aggregation: workout minutes per activity, routes' points and ECGs counted.
final class WorkoutMinutes: ExportSink {
  var minutes: [String: Double] = [:]
  var routePoints = 0
  var recordings: [String] = []
  var capabilities: SinkCapabilities { .sideFiles }
  func begin(_ header: ExportHeader) throws {}
  func consume(_ element: ExportElement) throws {
    switch element {
    case .workout(let workout):
      let seconds = Double(workout.endDate.secondsSince1970 - workout.startDate.secondsSince1970)
      minutes[workout.workoutActivityType, default: 0] += seconds / 60
      _ = (workout.duration, workout.durationUnit, workout.totalDistance, workout.totalDistanceUnit)
      _ = (workout.totalEnergyBurned, workout.totalEnergyBurnedUnit, workout.sourceName, workout.sourceProduct)
      _ = workout.metadata.map { ($0.key, $0.value) }
    case .correlation(let correlation):
      _ = (correlation.type, correlation.sourceName, correlation.startDate < correlation.endDate)
      _ = (correlation.records.count, correlation.metadata.count)
    case .record(let record):
      _ = (record.unit, record.value, record.device, record.creationDate?.description, record.sourceProduct)
    case .me(let me): _ = me.node[attribute: "HKCharacteristicTypeIdentifierDateOfBirth"]
    case .exportDate(let date): _ = date.node[attribute: "value"]
    case .activitySummary(let summary): _ = summary.node.children.map(\.name)
    case .clinicalRecord(let record): _ = record.node.text
    case .audiogram(let audiogram): _ = audiogram.node.name
    case .visionPrescription(let prescription): _ = prescription.node.name
    case .other(let node): _ = node.name
    }
  }
  func consumeSideFile(_ event: SideFileEvent) throws {
    switch event {
    case .routeBegin(let file): _ = (file.path, file.displayName)
    case .routePoints(let points):
      routePoints += points.count
      _ = points.map { ($0.latitudeDegrees, $0.longitudeDegrees, $0.elevationMetres, $0.instant) }
    case .routeEnd(let points): _ = points
    case .ecgBegin(let recording):
      recordings.append(recording.path)
      _ = (recording.recordedDate, recording.unit, recording.sampleRateHertz)
    case .ecgSamples(let samples): _ = samples.count <= SideFileEvent.batchSize
    case .ecgEnd(let samples): _ = samples
    }
  }
  func end(_ report: ReadReport) throws {}
}

func run(path: String) throws {
  var options = ReadOptions()
  options.skipInvalid = true
  options.concurrent = false
  let counter = StepCounter()
  try ExportReader(path: path, options: options).read(into: DropSource("Old phone", next: counter))

  var configuration = StepTotals.Configuration()
  configuration.by = .week
  configuration.dedupe = true
  let totals = StepTotals(configuration)
  var filter = ExportFilter(sourceProducts: ["Watch"])
  try filter.limitDates(from: "2024-01-01", to: nil)
  try ExportReader(path: path).read(into: FilteringSink(filter: filter, next: totals))
  for row in totals.result { print(row.period, NumberText.exact(row.value), row.samples) }

  let workouts = WorkoutMinutes()
  do {
    try ExportReader(bytes: Array("<HealthData/>".utf8), name: "tiny.xml").read(into: workouts)
  } catch let error as HealthPortError {
    print(error.file ?? "-", error.line ?? 0, error.column ?? 0, error.message, error)
  }
  _ = HealthDate("2024-03-01 08:00:00 +0100").map {
    HealthDate(secondsSince1970: $0.secondsSince1970, offsetSeconds: 0)
  }
}
