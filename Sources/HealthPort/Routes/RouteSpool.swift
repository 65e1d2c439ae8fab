#if canImport(Glibc)
  import Glibc
#endif

/// `healthport routes`' sink (docs/routes.md): the selected workouts, and every point of their routes (GPX files
/// and inline `Location`s) spooled to a temporary file as they stream, so that a workout's routes
/// can be written together, in flat memory, whatever order the files came in.
package final class RouteSpool: ExportSink {
  /// A workout with route points, or a GPX file that no workout references, as written out.
  package struct WorkoutRoutes {
    /// The workout's number among those selected; nil for an unreferenced route.
    package var number: Int?
    /// Without `HKWorkoutActivityType`; nil for an unreferenced route.
    package var activity: String?
    package var start: HealthDate
    package var end: HealthDate
    /// Seconds: the workout's `duration` when its unit is known, else end − start.
    package var duration: Double
    /// An unreferenced route's file (`/workout-routes/route_….gpx`) and its first and last
    /// points' times as written; nil for a workout.
    package var file: String?
    package var firstTime: String?
    package var lastTime: String?

    /// `start` and `end` as written out: the workout's, or the points' times.
    package var startText: String { firstTime ?? start.description }
    package var endText: String { lastTime ?? end.description }
    /// Each route's points in the spool: byte offset and point count, in the order of the
    /// workout's `WorkoutRoute`s (GPX files may arrive in any order).
    package var routes: [(offset: Int64, points: Int)] {
      stored.sorted { $0.index < $1.index }.map { ($0.offset, $0.points) }
    }
    var stored: [(index: Int, offset: Int64, points: Int)] = []
  }

  package private(set) var workouts: [WorkoutRoutes] = []
  /// The GPX files that no workout references, in file order: written when no activity, type or
  /// source filter is given, and the first point is within the dates. Kept in a scratch file (a
  /// zip may hold any number of them), read back in order by ``forEachRoute(_:)``.
  private let unreferenced: UnreferencedRoutes
  private let file: SpoolWriter
  private var current: Int?
  private let filter: ExportFilter
  /// An unreferenced route being read.
  private var pending: WorkoutRoutes?

  package init(filter: ExportFilter = ExportFilter()) throws {
    file = try SpoolWriter()
    unreferenced = try UnreferencedRoutes()
    self.filter = filter
  }

  deinit { file.remove() }

  package var interest: ElementInterest { .workoutsOnly }
  package var capabilities: SinkCapabilities { .sideFiles }
  package func begin(_ header: ExportHeader) throws {}
  package func end(_ report: ReadReport) throws { try file.flush() }

  package func consume(_ element: ExportElement) throws {
    guard case .workout(let workout) = element else { return }
    let seconds = Double(workout.endDate.secondsSince1970 - workout.startDate.secondsSince1970)
    let duration = workout.duration.flatMap(Double.init).flatMap { value in
      Self.secondsPerUnit[workout.durationUnit ?? ""].map { value * $0 }
    }
    var entry = WorkoutRoutes(
      number: workouts.count + 1, activity: Self.shortActivity(workout.workoutActivityType),
      start: workout.startDate, end: workout.endDate, duration: duration ?? seconds)
    for (index, route) in workout.routes.enumerated() {
      let offset = file.offset
      var points = 0
      for case .location(let node) in route.children {
        let value = { (name: String) in node.attributes.first { $0.name == name }?.value }
        let time = value("date").flatMap { HealthDate($0) }.map(Self.utcText)
        try file.append(
          RoutePoint(
            latitude: value("latitude") ?? "", longitude: value("longitude") ?? "", elevation: value("altitude"),
            time: time, speed: value("speed"), course: value("course"),
            horizontalAccuracy: value("horizontalAccuracy"), verticalAccuracy: value("verticalAccuracy")))
        points += 1
      }
      if points > 0 { entry.stored.append((index, offset, points)) }
    }
    workouts.append(entry)
  }

  package func consumeSideFile(_ event: SideFileEvent) throws {
    switch event {
    case .routeBegin(let route):
      current = route.join.map(\.workoutIndex).flatMap { $0 >= 0 && $0 < workouts.count ? $0 : nil }
      if let current, let join = route.join { workouts[current].stored.append((join.routeIndex, file.offset, 0)) }
      if route.join == nil, filter.types == nil, filter.activities == nil, filter.sourceProducts.isEmpty,
        filter.sourceText == nil
      {
        let none = HealthDate(secondsSince1970: 0, offsetSeconds: 0)
        pending = WorkoutRoutes(start: none, end: none, duration: 0, file: route.path, stored: [(0, file.offset, 0)])
      }
    case .routePoints(let points):
      if var route = pending {
        for point in points { try file.append(point) }
        route.stored[0].points += points.count
        route.firstTime = route.firstTime ?? points.first?.time
        route.lastTime = points.last?.time ?? route.lastTime
        pending = route
      }
      guard let current else { return }
      for point in points { try file.append(point) }
      workouts[current].stored[workouts[current].stored.count - 1].points += points.count
    case .routeEnd:
      if let current, workouts[current].stored.last?.points == 0 { workouts[current].stored.removeLast() }
      current = nil
      if let route = pending { try keepUnreferenced(route) }
      pending = nil
    case .ecgBegin, .ecgSamples, .ecgEnd: break
    }
  }

  /// Keeps an unreferenced route with points whose first point is within the date filter (a
  /// route without times only without one): start and end are its first and last points'.
  private func keepUnreferenced(_ route: WorkoutRoutes) throws {
    var route = route
    guard route.stored[0].points > 0 else { return }
    let first = route.firstTime.flatMap { HealthDate.flexible($0) }
    let last = route.lastTime.flatMap { HealthDate.flexible($0) }
    if filter.from != nil || filter.to != nil {
      guard let first, filter.inRange(first) else { return }
    }
    if let first, let last {
      route.start = first
      route.end = last
      route.duration = Double(last.secondsSince1970 - first.secondsSince1970)
    }
    try unreferenced.append(route)
  }

  /// Calls `body` with each route to write, in order: the workouts with route points, then the
  /// unreferenced routes, read back from their scratch file.
  package func forEachRoute(_ body: (WorkoutRoutes) throws -> Void) throws {
    for workout in workouts where !workout.routes.isEmpty { try body(workout) }
    try unreferenced.forEach(body)
  }

  /// Calls `body` with each point of the route at `route`, in order.
  package func forEachPoint(_ route: (offset: Int64, points: Int), _ body: (RoutePoint) throws -> Void) throws {
    try file.read(from: route.offset, points: route.points, body)
  }

  static let secondsPerUnit: [String: Double] = ["s": 1, "min": 60, "hr": 3600, "h": 3600, "d": 86_400]

  static func shortActivity(_ type: String) -> String {
    type.hasPrefix("HKWorkoutActivityType") ? String(type.dropFirst(21)) : type
  }

  /// `route_x.gpx` of `/workout-routes/route_x.gpx`, without `dropping` at its end.
  package static func baseName(_ path: String, dropping suffix: String = "") -> String {
    let base = path.split(separator: "/").last.map(String.init) ?? path
    return base.hasSuffix(suffix) ? String(base.dropLast(suffix.count)) : base
  }

  /// `2019-09-24T10:22:37Z`.
  package static func utcText(_ date: HealthDate) -> String {
    let text = HealthDate(secondsSince1970: date.secondsSince1970, offsetSeconds: 0).description
    return String(text.prefix(10)) + "T" + String(text.dropFirst(11).prefix(8)) + "Z"
  }
}

/// Routes to write, in order: an array of them, or a whole spool's (``RouteSpool/forEachRoute(_:)``).
package protocol RouteList {
  func forEachRoute(_ body: (RouteSpool.WorkoutRoutes) throws -> Void) throws
}

extension RouteSpool: RouteList {}

extension Array: RouteList where Element == RouteSpool.WorkoutRoutes {
  package func forEachRoute(_ body: (RouteSpool.WorkoutRoutes) throws -> Void) throws {
    for route in self { try body(route) }
  }
}

/// The unreferenced routes of a spool, one record each in a scratch file, in order: their points'
/// place in the spool, their dates and duration as binary numbers, then their file and first and
/// last points' times, each a length (-1 for none) and its UTF-8 bytes.
final class UnreferencedRoutes {
  private let scratch: ScratchFile
  private var buffer: [UInt8] = []

  init() throws {
    scratch = try ScratchFile(purpose: "the unreferenced routes")
  }

  func append(_ route: RouteSpool.WorkoutRoutes) throws {
    let place = route.stored[0]
    for number in [
      place.offset, Int64(place.points), route.start.secondsSince1970, Int64(route.start.offsetSeconds),
      route.end.secondsSince1970, Int64(route.end.offsetSeconds), Int64(bitPattern: route.duration.bitPattern),
    ] {
      withUnsafeBytes(of: number.littleEndian) { buffer.append(contentsOf: $0) }
    }
    for text in [route.file, route.firstTime, route.lastTime] {
      let bytes = text.map { Array($0.utf8) }
      withUnsafeBytes(of: Int64(bytes?.count ?? -1).littleEndian) { buffer.append(contentsOf: $0) }
      if let bytes { buffer.append(contentsOf: bytes) }
    }
    if buffer.count >= 1 << 16 { try flush() }
  }

  private func flush() throws {
    try buffer.withUnsafeBytes { try scratch.append($0) }
    buffer.removeAll(keepingCapacity: true)
  }

  /// Calls `body` with each route, in the order they were appended.
  func forEach(_ body: (RouteSpool.WorkoutRoutes) throws -> Void) throws {
    try flush()
    var reader = Reader(scratch: scratch)
    while reader.position < scratch.size {
      var numbers: [Int64] = []
      for _ in 0..<7 { numbers.append(try reader.number()) }
      let file = try reader.text()
      let firstTime = try reader.text()
      let lastTime = try reader.text()
      try body(
        RouteSpool.WorkoutRoutes(
          start: HealthDate(secondsSince1970: numbers[2], offsetSeconds: Int32(truncatingIfNeeded: numbers[3])),
          end: HealthDate(secondsSince1970: numbers[4], offsetSeconds: Int32(truncatingIfNeeded: numbers[5])),
          duration: Double(bitPattern: UInt64(bitPattern: numbers[6])), file: file, firstTime: firstTime,
          lastTime: lastTime, stored: [(0, numbers[0], Int(numbers[1]))]))
    }
  }

  /// Reads the scratch file forwards, 64 KiB at a time.
  private struct Reader {
    let scratch: ScratchFile
    /// The file offset of the next byte to hand out.
    private(set) var position: Int64 = 0
    private var chunk: [UInt8] = []
    private var index = 0

    init(scratch: ScratchFile) { self.scratch = scratch }

    mutating func bytes(_ count: Int) throws -> ArraySlice<UInt8> {
      if chunk.count - index < count {
        guard Int64(count) <= scratch.size - position else {
          throw HealthPortError(
            .failure, file: scratch.folder, message: "cannot read back a temporary file for \(scratch.purpose)")
        }
        let start = position + Int64(chunk.count - index)
        let want = Int(min(max(Int64(count), 1 << 16), scratch.size - position)) - (chunk.count - index)
        var more = [UInt8](repeating: 0, count: max(0, want))
        try more.withUnsafeMutableBytes { try scratch.read(into: $0, at: start) }
        chunk = Array(chunk[index...]) + more
        index = 0
      }
      defer {
        index += count
        position += Int64(count)
      }
      return chunk[index..<index + count]
    }

    mutating func number() throws -> Int64 {
      var value: Int64 = 0
      let slice = try bytes(8)
      withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: slice) }
      return Int64(littleEndian: value)
    }

    mutating func text() throws -> String? {
      let count = try number()
      guard count >= 0 else { return nil }
      return String(decoding: try bytes(Int(count)), as: UTF8.self)
    }
  }
}

/// The spool: one point a line, eight tab-separated fields (empty for none), in a temporary file
/// removed at the end or on a signal.
final class SpoolWriter {
  let path: String
  /// The folder of the spool (`$TMPDIR`, else `/tmp`), for messages.
  let folder: String
  private let descriptor: Int32
  private let registration: TemporaryFiles.Registration?
  private var buffer: [UInt8] = []
  private(set) var offset: Int64 = 0

  init() throws {
    folder = SystemFile.temporaryFolder
    let made = try SystemFile.makeTemporary(
      "routes", in: folder, orThrow: SystemFile.scratchFailure("create the routes' temporary spool", in: folder))
    descriptor = made.descriptor
    path = made.path
    registration = TemporaryFiles.registerFile(path)
    buffer.reserveCapacity(1 << 16)
  }

  func remove() {
    close(descriptor)
    unlink(path)
    TemporaryFiles.unregister(registration)
  }

  func append(_ point: RoutePoint) throws {
    let fields = [
      point.latitude, point.longitude, point.elevation, point.time, point.speed, point.course,
      point.horizontalAccuracy, point.verticalAccuracy,
    ]
    let start = buffer.count
    for (index, field) in fields.enumerated() {
      if index > 0 { buffer.append(0x09) }
      if let field { buffer.append(contentsOf: field.utf8) }
    }
    buffer.append(0x0A)
    offset += Int64(buffer.count - start)
    if buffer.count >= 1 << 16 { try flush() }
  }

  func flush() throws {
    // The spool is healthport's own, removed at the end: the message names what it is for, not
    // its name.
    let failure = SystemFile.scratchFailure("write the routes' temporary spool", in: folder)
    try buffer.withUnsafeBytes { try SystemFile.writeAll(descriptor, $0, orThrow: failure) }
    buffer.removeAll(keepingCapacity: true)
  }

  func read(from start: Int64, points: Int, _ body: (RoutePoint) throws -> Void) throws {
    try flush()
    var position = start
    var line: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    var remaining = points
    while remaining > 0 {
      let n = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(position)) }
      guard n > 0 else { throw HealthPortError(.failure, file: path, message: "cannot read a temporary file") }
      position += Int64(n)
      for byte in chunk[0..<n] {
        guard remaining > 0 else { break }
        if byte != 0x0A {
          line.append(byte)
          continue
        }
        let fields = line.split(separator: 0x09, omittingEmptySubsequences: false).map {
          $0.isEmpty ? nil : String(decoding: $0, as: UTF8.self)
        }
        try body(
          RoutePoint(
            latitude: fields[0] ?? "", longitude: fields[1] ?? "", elevation: fields[2], time: fields[3],
            speed: fields[4], course: fields[5], horizontalAccuracy: fields[6], verticalAccuracy: fields[7]))
        line.removeAll(keepingCapacity: true)
        remaining -= 1
      }
    }
  }
}
