/// The tables of the export's side files (GPX routes, ECG recordings), shared by `--split`,
/// SQLite and Parquet. Their rows are not elements of export.xml: they have no `id` in the
/// document's numbering, and a `--split` folder is read back without them.
extension ColumnCatalog {
  static func structure(_ name: String, _ meaning: String, required: Bool = false) -> TableColumn {
    TableColumn(name, .integer, .structure, required: required, meaning)
  }

  static func content(_ name: String, _ type: ColumnType, _ meaning: String, required: Bool = false) -> TableColumn {
    TableColumn(name, type, .content, required: required, meaning)
  }

  /// `route_points.csv`: every point of every route, from GPX files and inline `Location`s alike.
  package static let routePoints = TableDefinition(
    "route_points", element: nil, rows: "route point (a GPX `trkpt`, or a legacy inline `Location`)",
    columns: [
      structure("workout_id", "the `id` of the route's `Workout`; empty for a GPX file that no workout references"),
      structure("activity_id", "the `id` of the `WorkoutActivity` whose time range holds the route's first point"),
      structure("route_id", "the `id` of the `WorkoutRoute` that references the file or holds the points"),
      TableColumn("origin", .text, .derived, required: true, "`gpx` (a file under `workout-routes/`) or `inline`"),
      structure("position", "the point's place in its route, from 0", required: true),
      content("time", .instant, "when: ISO 8601 in UTC (`2019-09-24T10:22:37Z`; GPX's as written)"),
      content("latitude", .number, "degrees north", required: true),
      content("longitude", .number, "degrees east", required: true),
      content("elevation", .number, "metres above sea level"),
      content("speed", .number, "metres per second"),
      content("course", .number, "degrees from north (-1: invalid)"),
      content("horizontal_accuracy", .number, "metres"),
      content("vertical_accuracy", .number, "metres"),
    ])

  /// `ecg_recordings.csv`: one row per ECG file, its header block as columns.
  package static let ecgRecordings = TableDefinition(
    "ecg_recordings", element: nil, rows: "ECG recording (a file under `electrocardiograms/`)",
    columns: [
      structure("id", "the recording's number, from 1, in the order read", required: true),
      content("file", .text, "the file, `/electrocardiograms/ecg_2023-03-04.csv`", required: true),
      content("name", .text, "the `Name` line (the person's name, often empty)"),
      content("date_of_birth", .text, "`Date of Birth` as written (`Jun 12, 2006`)"),
      content("recorded_date", .exportDate, "`Recorded Date`: when it was recorded"),
      content("classification", .text, "e.g. `Sinus Rhythm`, `Atrial Fibrillation`, `Inconclusive`"),
      content("symptoms", .text, "the symptoms noted, often empty"),
      content("software_version", .text, "the ECG app's version"),
      content("device", .text, "the watch model, e.g. `Watch6,7`"),
      content("sample_rate", .text, "`Sample Rate` as written (`512 hertz`)"),
      content("lead", .text, "e.g. `Lead I`"),
      content("unit", .text, "the samples' unit, `µV`"),
      content("header", .json, "every header line as `[key, value]` pairs in order (localized labels included)"),
      TableColumn("samples", .integer, .derived, required: true, "the number of samples"),
      TableColumn("sample_rate_hz", .number, .derived, "the sample rate in hertz (`512.844`)"),
    ])

  /// `ecg_samples.csv`: the voltages of every recording, in file order.
  package static let ecgSamples = TableDefinition(
    "ecg_samples", element: nil, rows: "ECG sample",
    columns: [
      structure("recording_id", "the `id` of its recording", required: true),
      structure("position", "its place in the recording, from 0", required: true),
      content(
        "value", .number, "the voltage in the recording's `unit`, with `.` as the decimal separator", required: true),
    ])

  /// The side files' tables, in the README's order.
  package static let sideFileTables = [routePoints, ecgRecordings, ecgSamples]
}
