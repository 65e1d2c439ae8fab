import HealthPort
import SQLiteStore

/// What the loader keeps to join side files to the rows it wrote: for each workout read (in
/// document order), its row id and those of its routes and activities (also for a workout that
/// an earlier load inserted), and the route or recording being loaded.
final class SideFileLoadState {
  var joins = SideFileJoins<Int64>()
  /// The ids the current route's points get; nil while no route is being loaded or its points
  /// are already in the database.
  var route: (workout: Int64?, activity: Int64?, route: Int64?)?
  /// The `unreferenced_routes` row of the unreferenced route being loaded, and its file: keyed
  /// by its points' digest at its end.
  var unreferenced: (id: Int64, file: String)?
  var position = 0
  var recording: Int64?
  var statements: SideFileStatements?
}

/// The side files' statements, prepared on first use.
struct SideFileStatements {
  let insertPoint, hasRoutePoints, beginUnreferenced, findWorkout, workoutRoutes, workoutActivities: SQLiteStatement
  let insertRecording, finishRecording, insertSample: SQLiteStatement
  let unreferencedKeys: UnreferencedRouteKeys

  init(_ db: SQLiteConnection) throws {
    insertPoint = try db.prepare(
      Statements.insert("route_points", ["person"] + SQLiteSchema.routePointNames + ["unreferenced_route_id"]))
    hasRoutePoints = try db.prepare("SELECT 1 FROM route_points WHERE route_id = ? AND origin = 'gpx' LIMIT 1")
    beginUnreferenced = try db.prepare("INSERT INTO unreferenced_routes (person, file, export_id) VALUES (?, ?, ?)")
    unreferencedKeys = try UnreferencedRouteKeys(db)
    findWorkout = try db.prepare(
      "SELECT id FROM workouts WHERE person = ? AND activity_type = ? AND start_unix = ? AND end_unix = ? "
        + "AND source_id = ? AND creation_key = ?")
    workoutRoutes = try db.prepare("SELECT id FROM workout_routes WHERE workout_id = ? ORDER BY position")
    workoutActivities = try db.prepare(
      "SELECT id, start_unix, end_unix FROM workout_activities WHERE workout_id = ? ORDER BY position")
    insertRecording = try db.prepare(
      Statements.insert("ecg_recordings", ["person"] + SQLiteSchema.ecgRecordingNames + ["export_id"], ignore: true))
    finishRecording = try db.prepare("UPDATE ecg_recordings SET samples = ? WHERE id = ?")
    insertSample = try db.prepare(
      Statements.insert("ecg_samples", SQLiteSchema.ecgSampleColumns.names("recording_id", "position", "value")))
  }
}

extension SQLiteLoader {
  var sideStatements: SideFileStatements {
    get throws {
      if let statements = sideFiles.statements { return statements }
      let statements = try SideFileStatements(db)
      sideFiles.statements = statements
      return statements
    }
  }

  /// A workout this load inserted: its row, routes and activities are noted as they are written.
  func noteInsertedWorkout(_ id: Int64) { sideFiles.joins.noteWorkout(id) }
  func noteInsertedRoute(_ id: Int64) { sideFiles.joins.noteRoute(id) }
  func noteInsertedActivity(_ id: Int64, _ activity: WorkoutActivity) { sideFiles.joins.noteActivity(id, activity) }

  /// A workout already in the database (an earlier load, or a copy in this one): its rows, read
  /// back. Returns its id.
  @discardableResult
  func noteExistingWorkout(_ workout: Workout, sourceID: Int64) throws -> Int64 {
    let s = try sideStatements
    var find = Binder(s.findWorkout, text)
    try addKey(to: &find, workout, type: workout.workoutActivityType, sourceID: sourceID)
    let id = try s.findWorkout.step() ? s.findWorkout.int64(0) : -1
    s.findWorkout.reset()
    text.arena.reset()
    var routes: [Int64] = []
    var activities: [SideFileJoins<Int64>.Activity] = []
    try s.workoutRoutes.bind(1, id)
    while try s.workoutRoutes.step() { routes.append(s.workoutRoutes.int64(0)) }
    s.workoutRoutes.reset()
    try s.workoutActivities.bind(1, id)
    while try s.workoutActivities.step() {
      let a = s.workoutActivities
      activities.append((a.int64(0), a.int64(1), a.isNull(2) ? nil : a.int64(2)))
    }
    s.workoutActivities.reset()
    sideFiles.joins.noteWorkout(id, routes: routes, activities: activities)
    return id
  }

  /// The `route_points` rows of a legacy route's inline `Location` points, as it is inserted.
  func insertInlinePoints(_ route: WorkoutRoute, routeID: Int64) throws {
    let locations = route.children.compactMap { if case .location(let node) = $0 { node } else { nil } }
    let first = locations.first?[attribute: "date"].flatMap(HealthDate.init)
    guard !locations.isEmpty, let ids = sideFiles.joins.inlineIDs(routeID: routeID, firstPoint: first) else { return }
    sideFiles.route = ids
    sideFiles.position = 0
    for node in locations {
      let time = node[attribute: "date"].flatMap(HealthDate.init).map(Self.utcText)
      try insertPoint(
        origin: "inline", time: time,
        RoutePoint(
          latitude: node[attribute: "latitude"] ?? "", longitude: node[attribute: "longitude"] ?? "",
          elevation: node[attribute: "altitude"], speed: node[attribute: "speed"], course: node[attribute: "course"],
          horizontalAccuracy: node[attribute: "horizontalAccuracy"],
          verticalAccuracy: node[attribute: "verticalAccuracy"]))
    }
    sideFiles.route = nil
  }

  package var capabilities: SinkCapabilities { .sideFiles }

  package func consumeSideFile(_ event: SideFileEvent) throws {
    let s = try sideStatements
    switch event {
    case .routeBegin(let file):
      sideFiles.position = 0
      let ids = sideFiles.joins.ids(of: file)
      guard ids.workout != nil else {
        // Keyed at its end, by (person, file, digest of its points).
        try s.unreferencedKeys.removeUnfinished(person: person, file: file.path)
        try s.beginUnreferenced.bind(1, person)
        try s.beginUnreferenced.bind(2, file.path)
        try s.beginUnreferenced.bind(3, result.exportID)
        try s.beginUnreferenced.run()
        sideFiles.unreferenced = (db.lastInsertRowID, file.path)
        sideFiles.route = (nil, nil, nil)
        return
      }
      if let routeID = ids.route {
        try s.hasRoutePoints.bind(1, routeID)
        let loaded = try s.hasRoutePoints.step()
        s.hasRoutePoints.reset()
        if loaded {
          sideFiles.route = nil
          return
        }
      }
      sideFiles.route = ids
    case .routePoints(let points):
      guard sideFiles.route != nil else { return }
      for point in points { try insertPoint(origin: "gpx", time: point.time, point) }
      try commitIfDue()
    case .routeEnd:
      sideFiles.route = nil
      if let route = sideFiles.unreferenced {
        sideFiles.unreferenced = nil
        let removed = try s.unreferencedKeys.finish(route.id, person: person, file: route.file)
        count(.routePoints, -removed)
      }
    case .ecgBegin(let recording):
      var b = Binder(s.insertRecording, text)
      try b.add(person)
      try b.add(recording.path)
      for field in [recording.name, recording.dateOfBirth] { try b.add(field) }
      try b.add(date: recording.recordedDate.flatMap(HealthDate.init))
      for field in [
        recording.classification, recording.symptoms, recording.softwareVersion, recording.device,
        recording.sampleRate, recording.lead, recording.unit,
      ] {
        try b.add(field)
      }
      try b.add(Self.headerJSON(recording))
      try b.add(Int64(0))
      try b.add(recording.sampleRateHertz)
      try b.add(result.exportID)
      sideFiles.recording = try b.run() == 1 ? db.lastInsertRowID : nil
      sideFiles.position = 0
      if sideFiles.recording != nil { count(.ecgRecordings) }
    case .ecgSamples(let values):
      guard let recording = sideFiles.recording else { return }
      for value in values {
        var b = Binder(s.insertSample, text)
        try b.add(recording)
        try b.add(sideFiles.position)
        try b.add(value)
        try b.run()
        sideFiles.position += 1
      }
      count(.ecgSamples, values.count)
      try commitIfDue()
    case .ecgEnd(let samples):
      guard let recording = sideFiles.recording else { return }
      try s.finishRecording.bind(1, Int64(samples))
      try s.finishRecording.bind(2, recording)
      try s.finishRecording.run()
      s.finishRecording.reset()
      sideFiles.recording = nil
    }
  }

  /// `2019-09-24T10:22:37Z`: a Location's date as GPX writes times.
  static func utcText(_ date: HealthDate) -> String {
    let text = HealthDate(secondsSince1970: date.secondsSince1970, offsetSeconds: 0).description
    return String(text.prefix(10)) + "T" + String(text.dropFirst(11).prefix(8)) + "Z"
  }

  /// The header lines as JSON `[key, value]` pairs, as `--split` writes them.
  static func headerJSON(_ recording: ECGRecording) -> String {
    var json: [UInt8] = []
    CSVMetadataJSON.appendPairs(recording.header.map { ($0.key, $0.value) }, to: &json)
    return String(decoding: json, as: UTF8.self)
  }

  /// Commits the batch when it is full, as ``consume(_:)`` does.
  private func commitIfDue() throws {
    guard pending >= batchRows else { return }
    try db.execute("COMMIT")
    checkpointer?.request()
    try afterBatch?()
    try db.execute("BEGIN IMMEDIATE")
    pending = 0
  }

  private func insertPoint(origin: String, time: String?, _ point: RoutePoint) throws {
    guard let route = sideFiles.route else { return }
    var b = Binder(try sideStatements.insertPoint, text)
    try b.add(person)
    try b.add(route.workout)
    try b.add(route.activity)
    try b.add(route.route)
    try b.add(origin)
    try b.add(sideFiles.position)
    try b.add(time)
    for field in [
      point.latitude, point.longitude, point.elevation, point.speed, point.course, point.horizontalAccuracy,
      point.verticalAccuracy,
    ] {
      try b.add(field)
    }
    try b.add(sideFiles.unreferenced?.id)
    try b.run()
    sideFiles.position += 1
    count(.routePoints)
  }
}
