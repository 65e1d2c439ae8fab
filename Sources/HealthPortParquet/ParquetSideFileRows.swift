import HealthPort
import ParquetFile

/// An instant and the offset it was written in.
struct ParquetInstant: Equatable {
  let microseconds: Int64
  let offsetMinutes: Int32
  /// To the second, for the `year=` folder.
  let date: HealthDate

  init(_ date: HealthDate, fractionMicroseconds: Int64 = 0) {
    self.date = date
    microseconds = date.secondsSince1970 * 1_000_000 + fractionMicroseconds
    offsetMinutes = date.offsetSeconds / 60
  }

  /// A GPX time: `2019-09-24T10:22:37Z`, with a fraction of up to six digits (`…37.25Z`) or an
  /// offset (`…37+02:00`); nil for anything else, which keeps its text.
  static func gpx(_ text: String) -> ParquetInstant? {
    let bytes = Array(text.utf8)
    guard bytes.count >= 20, bytes[10] == UInt8(ascii: "T") else { return nil }
    var rest = bytes
    var fraction: Int64 = 0
    if bytes[19] == UInt8(ascii: ".") {
      var end = 20
      while end < bytes.count, (48...57).contains(bytes[end]) { end += 1 }
      let digits = end - 20
      guard digits >= 1, digits <= 6 else { return nil }
      for index in 20..<end { fraction = fraction * 10 + Int64(bytes[index] - 48) }
      for _ in digits..<6 { fraction *= 10 }
      rest = Array(bytes[..<19] + bytes[end...])
    }
    let zoned =
      rest.count == 20 && rest[19] == UInt8(ascii: "Z")
      || rest.count == 25 && (rest[19] == UInt8(ascii: "+") || rest[19] == UInt8(ascii: "-"))
        && rest[22] == UInt8(ascii: ":")
    guard zoned, let date = rest.withUnsafeBytes({ HealthDate.flexible($0) }) else { return nil }
    return ParquetInstant(date, fractionMicroseconds: fraction)
  }
}

/// The rows of the side files' tables (`route_points`, `ecg_recordings`, `ecg_samples`) and what
/// joins them to the export's rows, as `--split` writes them: the ids of each Workout, its
/// `WorkoutRoute`s and its own `WorkoutActivity`s (a few integers per workout).
final class ParquetSideFileRows {
  private var joins = SideFileJoins<Int>()
  /// The ids on the rows of the route being read.
  private var route: (workout: Int?, activity: Int?, route: Int?) = (nil, nil, nil)
  private var position = 0
  private var recording: ECGRecording?
  private var recordingCount = 0
  private let identifiers: IdentifierFilter?

  init(identifiers: IdentifierFilter?) { self.identifiers = identifiers }

  func noteWorkout(_ id: Int) { joins.noteWorkout(id) }
  func noteRoute(_ id: Int) { joins.noteRoute(id) }
  func noteActivity(_ id: Int, _ activity: WorkoutActivity) { joins.noteActivity(id, activity) }

  /// The rows of a legacy route's inline `Location`s (route `routeID` of the last workout).
  func writeInline(_ locations: [ElementNode], routeID: Int, to table: () throws -> ParquetTableWriter) throws {
    func attribute(_ node: ElementNode, _ name: String) -> String? {
      node.attributes.first { $0.name == name }?.value
    }
    let first = locations.first.flatMap { attribute($0, "date") }.flatMap { HealthDate($0) }
    guard let ids = joins.inlineIDs(routeID: routeID, firstPoint: first) else { return }
    route = ids
    position = 0
    for node in locations {
      let text = attribute(node, "date")
      let time = text.flatMap { HealthDate($0) }.map { ParquetInstant($0) }
      try writePoint(
        origin: "inline", time: time, timeText: text,
        RoutePoint(
          latitude: attribute(node, "latitude") ?? "", longitude: attribute(node, "longitude") ?? "",
          elevation: attribute(node, "altitude"), speed: attribute(node, "speed"), course: attribute(node, "course"),
          horizontalAccuracy: attribute(node, "horizontalAccuracy"),
          verticalAccuracy: attribute(node, "verticalAccuracy")), to: try table())
    }
    route = (nil, nil, nil)
  }

  /// One event of a side file; `tables` gives the writer of `route_points`, `ecg_recordings` or
  /// `ecg_samples`.
  func consume(_ event: SideFileEvent, tables: (TableDefinition) throws -> ParquetTableWriter) throws {
    switch event {
    case .routeBegin(let file):
      position = 0
      route = joins.ids(of: file)
    case .routePoints(let points):
      let table = try tables(ColumnCatalog.routePoints)
      for point in points {
        try writePoint(
          origin: "gpx", time: point.time.flatMap(ParquetInstant.gpx), timeText: point.time, point, to: table)
      }
    case .routeEnd: route = (nil, nil, nil)
    case .ecgBegin(let recording):
      recordingCount += 1
      self.recording = recording
      position = 0
    case .ecgSamples(let values):
      let table = try tables(ColumnCatalog.ecgSamples)
      for value in values {
        try table.startRow()
        try table.integer(recordingCount)
        try table.integer(position)
        try table.text(value)
        try table.endRow()
        position += 1
      }
    case .ecgEnd(let count):
      guard let recording else { return }
      try write(recording, samples: count, to: tables(ColumnCatalog.ecgRecordings))
      self.recording = nil
    }
  }

  private func write(_ recording: ECGRecording, samples: Int, to table: ParquetTableWriter) throws {
    let recorded = recording.recordedDate.flatMap { HealthDate($0) }
    try table.startRow(start: recorded)
    try table.integer(recordingCount)
    try table.text(recording.path)
    if let identifiers {
      try table.text(nil)
      try table.text(recording.dateOfBirth.flatMap(identifiers.yearOfBirth))
    } else {
      try table.text(recording.name)
      try table.text(recording.dateOfBirth)
    }
    for field in [
      recording.recordedDate, recording.classification, recording.symptoms, recording.softwareVersion,
      recording.device, recording.sampleRate, recording.lead, recording.unit,
    ] {
      try table.text(field)
    }
    let header = recording.header.map { ($0.key, $0.value) }
    try table.text(JSONPairs.encode(identifiers.map { $0.ecgHeader(header) } ?? header))
    try table.integer(samples)
    try table.number(recording.sampleRateHertz)
    try table.endRow()
  }

  private func writePoint(
    origin: String, time: ParquetInstant?, timeText: String?, _ point: RoutePoint, to table: ParquetTableWriter
  ) throws {
    try table.startRow(start: time?.date)
    try table.integer(route.workout)
    try table.integer(route.activity)
    try table.integer(route.route)
    try table.text(origin)
    try table.integer(position)
    try table.time(time, text: timeText)
    for field in [
      point.latitude, point.longitude, point.elevation, point.speed, point.course, point.horizontalAccuracy,
      point.verticalAccuracy,
    ] {
      try table.text(field)
    }
    try table.endRow()
    position += 1
  }
}
