/// The side-file tables of a `--split` folder (`route_points.csv`, `ecg_recordings.csv`,
/// `ecg_samples.csv`) and what joins their rows to the export's elements: the ids the writer
/// gave each Workout, its `WorkoutRoute`s and `WorkoutActivity`s (a few integers per workout).
final class CSVSideFileTables {
  private let folder: String
  private var joins = SideFileJoins<Int>()
  private var routePoints: CSVTableFile?
  private var recordings: CSVTableFile?
  private var samples: CSVTableFile?
  /// The ids written on the rows of the route being read.
  private var route: (workout: Int?, activity: Int?, route: Int?)?
  private var position = 0
  private var recording: ECGRecording?
  private var recordingCount = 0
  private var dates = ExportDateFormatter(style: .utc)

  init(folder: String) { self.folder = folder }

  /// Every table file made so far (to finish or forget).
  var files: [CSVTableFile] { [routePoints, recordings, samples].compactMap { $0 } }

  func noteWorkout(_ id: Int) { joins.noteWorkout(id) }
  func noteRoute(_ id: Int) { joins.noteRoute(id) }
  func noteActivity(_ id: Int, _ activity: WorkoutActivity) { joins.noteActivity(id, activity) }

  /// The route_points rows of a legacy route's inline `Location` points (route `routeID` of the
  /// workout being written).
  func writeInline(_ locations: [ElementNode], routeID: Int, budget: inout Int) throws {
    let first = locations.first.flatMap { Self.attribute($0, "date") }.flatMap { HealthDate($0) }
    guard let ids = joins.inlineIDs(routeID: routeID, firstPoint: first) else { return }
    route = ids
    position = 0
    for node in locations {
      let time = Self.attribute(node, "date").flatMap { HealthDate($0) }
      try writePoint(
        origin: "inline", time: time.map { .date($0) },
        RoutePoint(
          latitude: Self.attribute(node, "latitude") ?? "", longitude: Self.attribute(node, "longitude") ?? "",
          elevation: Self.attribute(node, "altitude"), speed: Self.attribute(node, "speed"),
          course: Self.attribute(node, "course"), horizontalAccuracy: Self.attribute(node, "horizontalAccuracy"),
          verticalAccuracy: Self.attribute(node, "verticalAccuracy")), budget: &budget)
    }
  }

  func consume(_ event: SideFileEvent, budget: inout Int) throws {
    switch event {
    case .routeBegin(let file):
      position = 0
      route = joins.ids(of: file)
    case .routePoints(let points):
      for point in points { try writePoint(origin: "gpx", time: point.time.map { .text($0) }, point, budget: &budget) }
    case .routeEnd: route = nil
    case .ecgBegin(let recording):
      recordingCount += 1
      self.recording = recording
      position = 0
    case .ecgSamples(let values):
      let table = file(&samples, ColumnCatalog.ecgSamples)
      for value in values {
        CSVEncoding.appendInteger(recordingCount, to: &table.buffer)
        table.buffer.append(CSVEncoding.comma)
        CSVEncoding.appendInteger(position, to: &table.buffer)
        table.buffer.append(CSVEncoding.comma)
        CSVEncoding.appendField(value, to: &table.buffer)
        try table.endRow(budget: &budget)
        position += 1
      }
    case .ecgEnd(let count):
      guard let recording else { return }
      let table = file(&recordings, ColumnCatalog.ecgRecordings)
      CSVEncoding.appendInteger(recordingCount, to: &table.buffer)
      for field in [
        recording.path, recording.name, recording.dateOfBirth, recording.recordedDate, recording.classification,
        recording.symptoms, recording.softwareVersion, recording.device, recording.sampleRate, recording.lead,
        recording.unit,
      ] {
        table.buffer.append(CSVEncoding.comma)
        CSVEncoding.appendField(field, to: &table.buffer)
      }
      table.buffer.append(CSVEncoding.comma)
      var json: [UInt8] = []
      CSVMetadataJSON.appendPairs(recording.header.map { ($0.key, $0.value) }, to: &json)
      CSVEncoding.appendField(bytes: json, to: &table.buffer)
      table.buffer.append(CSVEncoding.comma)
      CSVEncoding.appendInteger(count, to: &table.buffer)
      table.buffer.append(CSVEncoding.comma)
      if let hertz = recording.sampleRateHertz { CSVEncoding.appendField(Self.decimal(hertz), to: &table.buffer) }
      try table.endRow(budget: &budget)
      self.recording = nil
    }
  }

  private enum Time {
    case text(String)
    case date(HealthDate)
  }

  private func writePoint(origin: String, time: Time?, _ point: RoutePoint, budget: inout Int) throws {
    let table = file(&routePoints, ColumnCatalog.routePoints)
    // Field by field, not through array literals: this runs once per route point.
    if let id = route?.workout { CSVEncoding.appendInteger(id, to: &table.buffer) }
    table.buffer.append(CSVEncoding.comma)
    if let id = route?.activity { CSVEncoding.appendInteger(id, to: &table.buffer) }
    table.buffer.append(CSVEncoding.comma)
    if let id = route?.route { CSVEncoding.appendInteger(id, to: &table.buffer) }
    table.buffer.append(CSVEncoding.comma)
    CSVEncoding.appendField(origin, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    CSVEncoding.appendInteger(position, to: &table.buffer)
    table.buffer.append(CSVEncoding.comma)
    switch time {
    case .text(let text): CSVEncoding.appendField(text, to: &table.buffer)
    case .date(let date): dates.append(date, to: &table.buffer)
    case nil: break
    }
    // A local function, not an array of the fields: no allocation per point.
    func thenField(_ value: String?) {
      table.buffer.append(CSVEncoding.comma)
      CSVEncoding.appendField(value, to: &table.buffer)
    }
    thenField(point.latitude)
    thenField(point.longitude)
    thenField(point.elevation)
    thenField(point.speed)
    thenField(point.course)
    thenField(point.horizontalAccuracy)
    thenField(point.verticalAccuracy)
    try table.endRow(budget: &budget)
    position += 1
  }

  private func file(_ slot: inout CSVTableFile?, _ definition: TableDefinition) -> CSVTableFile {
    if let table = slot { return table }
    let table = CSVTableFile(path: folder + "/" + definition.name + ".csv", header: definition.columnNames)
    slot = table
    return table
  }

  private static func attribute(_ node: ElementNode, _ name: String) -> String? {
    node.attributes.first { $0.name == name }?.value
  }

  /// `512`, `512.844`: the shortest text that reads back as the same number.
  static func decimal(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
  }
}
