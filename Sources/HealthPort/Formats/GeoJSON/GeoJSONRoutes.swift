#if canImport(Glibc)
  import Glibc
#endif

/// `routes` as GeoJSON (RFC 7946, docs/routes.md): one Feature per workout with route points, a
/// LineString (one route) or a MultiLineString (several) of [longitude, latitude, elevation];
/// its properties: workout_id, activity, start, end, distance (m), duration (s) and coordTimes,
/// parallel to the coordinates. An unreferenced route file's Feature has a null workout_id and
/// activity, and its file.
package enum GeoJSONRoutes {
  package static func write(_ workouts: some RouteList, _ spool: RouteSpool, to out: OutputStream) throws {
    try out.committing {
      try out.write("{\"type\": \"FeatureCollection\", \"features\": [")
      var index = 0
      try workouts.forEachRoute { workout in
        defer { index += 1 }
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
