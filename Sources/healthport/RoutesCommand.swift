import HealthPort

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
    if perWorkout, let output {
      // One folder output: every file appears, with the manifest, or none does.
      let folder = try FolderOutput(path: output, protecting: input, writes: .routesPerWorkout)
      do {
        try spool.forEachRoute { workout in
          let stamp = RouteSpool.utcText(workout.start).filter { $0 != ":" && $0 != "-" }
          let name =
            workout.file.map {
              FileNames.sanitized("unreferenced_" + RouteSpool.baseName($0, dropping: ".gpx")) + ".gpx"
            }
            ?? FileNames.sanitized("route_\(workout.number ?? 0)_\(workout.activity ?? "")_\(stamp)") + ".gpx"
          try GPXLayout.writeRoutes([workout], spool, to: try OutputStream(path: folder.root + "/" + name))
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
    case "gpx": try GPXLayout.writeRoutes(spool, spool, to: out)
    case "csv": try CSVRoutes.write(spool, spool, to: out)
    default: try GeoJSONRoutes.write(spool, spool, to: out)
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
}
