/// `routes --to csv` (docs/routes.md): one row per point, numbered by workout, route and position.
package enum CSVRoutes {
  static let columns = [
    "workout_id", "activity", "start", "route", "position", "time", "latitude", "longitude", "elevation", "speed",
    "course", "horizontal_accuracy", "vertical_accuracy",
  ]

  package static func write(_ workouts: some RouteList, _ spool: RouteSpool, to out: OutputStream) throws {
    try out.committing {
      var header: [UInt8] = []
      CSVEncoding.appendHeader(columns, to: &header)
      try out.write(header)
      try workouts.forEachRoute { workout in
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
}
