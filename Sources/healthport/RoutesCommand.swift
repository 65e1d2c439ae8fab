import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// `healthport routes`: the routes of the selected workouts as GeoJSON, GPX or CSV.
enum RoutesCommand: Command {
  static let name = "routes"
  static let summary = "Write the workouts' routes (GPX files and inline points) as GeoJSON, GPX or CSV."
  static let options =
    [
      OptionSpec(
        name: "--to", short: nil, valueName: "format|date",
        help: "Output format: geojson (default), gpx or csv; a date ends the date range, as for every command.",
        repeatable: true, values: formats),
      OptionSpec(name: "--format", short: nil, valueName: "geojson|gpx|csv", help: "The same as --to FORMAT."),
      OptionSpec(
        name: "--per-workout", short: nil, valueName: nil,
        help: "With --to gpx: one file per workout in the folder -o names, instead of one merged file."),
      FilterOptions.outputOption, FilterOptions.quietOption,
    ] + FilterOptions.specs(excluding: ["--to"])
  static let usage = """
    USAGE: healthport routes [INPUT] [--to geojson|gpx|csv] [-o PATH] [--per-workout]
                             [--activity A] [--source-product P] [--source TEXT] [--from D] [--to D] [--tz ZONE]

    ARGUMENTS:
      INPUT                       export.zip or an export folder (with workout-routes/), export.xml
                                  (with the workout-routes/ folder beside it, if any), or - for stdin.

    `--to` names the output format when its value is one (geojson, gpx, csv) and the end of the
    date range otherwise: `--to gpx --from 2024-01-01 --to 2024-12-31`. --format is the same.

    GeoJSON (RFC 7946): one Feature per workout with route points, a LineString (one route) or a
    MultiLineString (several), [longitude, latitude, elevation]; properties workout_id, activity,
    start, end, distance (m), duration (s) and coordTimes, parallel to the coordinates. GPX
    files that no workout references follow (without --activity, --type or a source filter):
    workout_id and activity null, start and end their first and last points, and file.

    EXAMPLES:
      healthport routes export.zip --activity running --from 2024-01-01 -o runs.geojson
      healthport routes export.zip --to gpx --per-workout -o routes/
    """

  static func run(_ arguments: ParsedArguments) throws {
    let (format, filter) = try formatAndFilter(arguments)
    let input = try FilterOptions.input(arguments, command: name)
    let output = arguments.value("--output")
    let perWorkout = arguments.flag("--per-workout")
    if perWorkout, format != "gpx" || output == nil {
      throw HealthPortError(.usage, message: "--per-workout needs --to gpx and -o FOLDER")
    }
    let spool = try RouteSpool(filter: filter)
    try FilterOptions.read(input, into: spool, filter: filter, arguments: arguments, command: name)
    let workouts = spool.workouts.filter { !$0.routes.isEmpty } + spool.unreferenced
    if perWorkout, let output {
      // One folder output: every file appears, with the manifest, or none does.
      let folder = try FolderOutput(path: output, protecting: input, writes: .routesPerWorkout)
      do {
        for workout in workouts {
          let stamp = RouteSpool.utcText(workout.start).filter { $0 != ":" && $0 != "-" }
          let name =
            workout.file.map { FileNames.sanitized("unreferenced_" + Self.baseName($0, dropping: ".gpx")) + ".gpx" }
            ?? FileNames.sanitized("route_\(workout.number ?? 0)_\(workout.activity ?? "")_\(stamp)") + ".gpx"
          try writeGPX([workout], spool, to: try OutputStream(path: folder.root + "/" + name))
        }
        try folder.commit()
      } catch {
        folder.abort()
        throw folder.describing(error)
      }
      return
    }
    let out = try output.map { try OutputStream(path: $0, protecting: input) } ?? OutputStream()
    switch format {
    case "gpx": try writeGPX(workouts, spool, to: out)
    case "csv": try writeCSV(workouts, spool, to: out)
    default: try writeGeoJSON(workouts, spool, to: out)
    }
  }

  static let formats = ["geojson", "gpx", "csv"]

  /// `--to` is both the output format and the date filter's end, as in `convert`; `--format`
  /// names the format too.
  static func formatAndFilter(_ arguments: ParsedArguments) throws -> (String, ExportFilter) {
    let toValues = arguments.list("--to")
    let formatValues = toValues.map { $0.lowercased() }.filter { formats.contains($0) }
    let dateValues = toValues.filter { !formats.contains($0.lowercased()) }
    if let unknown = dateValues.first(where: { !($0.first?.isNumber ?? false) }) {
      let hint = NameSuggestion.closest(to: unknown, in: formats).map { "; did you mean '\($0)'?" } ?? ""
      throw HealthPortError(
        .usage, message: "unknown format '\(unknown)' for --to (one of \(formats.joined(separator: ", "))\(hint))")
    }
    guard formatValues.count <= 1, dateValues.count <= 1 else {
      throw HealthPortError(.usage, message: "give --to once for the format and at most once for a date")
    }
    var format = formatValues.first
    if arguments.value("--format") != nil {
      let named = try arguments.choice("--format", formats, default: "geojson", command: name)
      if let format, format != named {
        throw HealthPortError(.usage, message: "--format \(named) and --to \(format) name different formats")
      }
      format = named
    }
    let filter = try FilterOptions.filter(arguments, to: dateValues.first)
    return (format ?? "geojson", filter)
  }

  /// Runs `body`, then commits `out`; aborts it on an error.
  private static func writing(_ out: OutputStream, _ body: () throws -> Void) throws {
    do {
      try body()
      try out.commit()
    } catch {
      out.abort()
      throw error
    }
  }

  static func writeGeoJSON(_ workouts: [RouteSpool.WorkoutRoutes], _ spool: RouteSpool, to out: OutputStream) throws {
    try writing(out) {
      try out.write("{\"type\": \"FeatureCollection\", \"features\": [")
      for (index, workout) in workouts.enumerated() {
        let multi = workout.routes.count > 1
        try out.write(index == 0 ? "\n" : ",\n")
        try out.write(
          "{\"type\": \"Feature\", \"geometry\": {\"type\": \"\(multi ? "MultiLineString" : "LineString")\", \"coordinates\": "
        )
        var distance = 0.0
        if multi { try out.write("[") }
        for (n, route) in workout.routes.enumerated() {
          if n > 0 { try out.write(", ") }
          var line: [UInt8] = [UInt8(ascii: "[")]
          var previous: (Double, Double)?
          var first = true
          try spool.forEachPoint(route) { point in
            if !first { line.append(UInt8(ascii: ",")) }
            first = false
            line.append(UInt8(ascii: "["))
            line.append(contentsOf: Array(jsonNumber(point.longitude).utf8))
            line.append(UInt8(ascii: ","))
            line.append(contentsOf: Array(jsonNumber(point.latitude).utf8))
            if let elevation = point.elevation {
              line.append(UInt8(ascii: ","))
              line.append(contentsOf: Array(jsonNumber(elevation).utf8))
            }
            line.append(UInt8(ascii: "]"))
            if let lat = point.latitudeDegrees, let lon = point.longitudeDegrees {
              if let previous { distance += haversine(previous, (lat, lon)) }
              previous = (lat, lon)
            }
            if line.count >= 1 << 16 {
              try out.write(line)
              line.removeAll(keepingCapacity: true)
            }
          }
          line.append(UInt8(ascii: "]"))
          try out.write(line)
        }
        if multi { try out.write("]") }
        let number = workout.number.map { "\($0)" } ?? "null"
        var properties: [UInt8] = Array("}, \"properties\": {\"workout_id\": \(number), \"activity\": ".utf8)
        JSONEscaping.appendOptional(workout.activity, to: &properties)
        properties.append(contentsOf: Array(", \"start\": ".utf8))
        JSONEscaping.appendString(workout.startText, to: &properties)
        properties.append(contentsOf: Array(", \"end\": ".utf8))
        JSONEscaping.appendString(workout.endText, to: &properties)
        if let file = workout.file {
          properties.append(contentsOf: Array(", \"file\": ".utf8))
          JSONEscaping.appendString(file, to: &properties)
        }
        properties.append(
          contentsOf: Array(
            ", \"distance\": \(NumberText.format(distance)), \"duration\": \(NumberText.format(workout.duration)), \"coordTimes\": "
              .utf8))
        try out.write(properties)
        try writeCoordTimes(workout, spool, to: out)
        try out.write("}}")
      }
      try out.write("\n]}\n")
    }
  }

  /// `coordTimes`, nested like the coordinates, from a second pass over the spool (so that a
  /// route of any length stays in flat memory).
  private static func writeCoordTimes(_ workout: RouteSpool.WorkoutRoutes, _ spool: RouteSpool, to out: OutputStream)
    throws
  {
    let multi = workout.routes.count > 1
    var times: [UInt8] = multi ? [UInt8(ascii: "[")] : []
    for (n, route) in workout.routes.enumerated() {
      if n > 0 { times.append(contentsOf: Array(", ".utf8)) }
      times.append(UInt8(ascii: "["))
      var first = true
      try spool.forEachPoint(route) { point in
        if !first { times.append(UInt8(ascii: ",")) }
        first = false
        JSONEscaping.appendOptional(point.time, to: &times)
        if times.count >= 1 << 16 {
          try out.write(times)
          times.removeAll(keepingCapacity: true)
        }
      }
      times.append(UInt8(ascii: "]"))
    }
    if multi { times.append(UInt8(ascii: "]")) }
    try out.write(times)
  }

  static func writeGPX(_ workouts: [RouteSpool.WorkoutRoutes], _ spool: RouteSpool, to out: OutputStream) throws {
    try writing(out) {
      try out.write(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"healthport\" "
          + "xmlns=\"http://www.topografix.com/GPX/1/1\">\n")
      for workout in workouts {
        let title =
          workout.file.map { "unreferenced " + baseName($0) } ?? "\(workout.activity ?? "") \(workout.start)"
        let escaped = title.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        try out.write("  <trk>\n    <name>\(escaped)</name>\n")
        for route in workout.routes {
          // Each point starts its own line (the Health app's layout): the segment's tags end theirs.
          try out.write("    <trkseg>")
          var text: [UInt8] = []
          try spool.forEachPoint(route) { point in
            GPXLayout.appendPoint(point, to: &text)
            if text.count >= 1 << 16 {
              try out.write(text)
              text.removeAll(keepingCapacity: true)
            }
          }
          try out.write(text)
          try out.write("\n    </trkseg>\n")
        }
        try out.write("  </trk>\n")
      }
      try out.write("</gpx>\n")
    }
  }

  static let csvColumns = [
    "workout_id", "activity", "start", "route", "position", "time", "latitude", "longitude", "elevation", "speed",
    "course", "horizontal_accuracy", "vertical_accuracy",
  ]

  static func writeCSV(_ workouts: [RouteSpool.WorkoutRoutes], _ spool: RouteSpool, to out: OutputStream) throws {
    try writing(out) {
      var header: [UInt8] = []
      CSVEncoding.appendHeader(csvColumns, to: &header)
      try out.write(header)
      for workout in workouts {
        for (index, route) in workout.routes.enumerated() {
          var text: [UInt8] = []
          var position = 0
          try spool.forEachPoint(route) { point in
            let fields = [
              workout.number.map { "\($0)" }, workout.activity, workout.startText, "\(index)", "\(position)",
              point.time,
              point.latitude, point.longitude, point.elevation, point.speed, point.course, point.horizontalAccuracy,
              point.verticalAccuracy,
            ]
            for (n, field) in fields.enumerated() {
              if n > 0 { text.append(UInt8(ascii: ",")) }
              if let field { CSVEncoding.appendField(field, to: &text) }
            }
            text.append(0x0A)
            position += 1
            if text.count >= 1 << 16 {
              try out.write(text)
              text.removeAll(keepingCapacity: true)
            }
          }
          try out.write(text)
        }
      }
    }
  }

  /// `route_x.gpx` of `/workout-routes/route_x.gpx`, without `dropping` at its end.
  static func baseName(_ path: String, dropping suffix: String = "") -> String {
    let base = path.split(separator: "/").last.map(String.init) ?? path
    return base.hasSuffix(suffix) ? String(base.dropLast(suffix.count)) : base
  }

  /// The text when it is a JSON number (GPX's decimals are), else the number it reads as.
  static func jsonNumber(_ text: String) -> String {
    var bytes = Array(text.utf8)
    if bytes.first == UInt8(ascii: "-") { bytes.removeFirst() }
    let digits = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    let plain =
      !bytes.isEmpty && digits.count <= 2 && digits.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0 >= 48 && $0 <= 57 } }
      && !(digits[0].count > 1 && digits[0].first == 48)
    if plain { return text }
    return Double(text).map { $0.isFinite ? "\($0)" : "null" } ?? "null"
  }

  /// Metres between two points (haversine, Earth radius 6,371,008.8 m).
  static func haversine(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
    let p1 = a.0 * .pi / 180
    let p2 = b.0 * .pi / 180
    let dp = (b.0 - a.0) * .pi / 180
    let dl = (b.1 - a.1) * .pi / 180
    let h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
    return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
  }
}
