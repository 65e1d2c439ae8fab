extension GPXLayout {
  /// `routes --to gpx` (docs/routes.md): one document, healthport its creator, a `trk` per
  /// workout named by its activity and start (an unreferenced route file by its name), a `trkseg`
  /// per route, its points as Apple writes them (``appendPoint(_:to:)``), read back from the
  /// spool in flat memory.
  package static func writeRoutes(_ workouts: some RouteList, _ spool: RouteSpool, to out: OutputStream)
    throws
  {
    try out.committing {
      try out.write(documentStart(creator: "healthport", schemaLocation: false))
      try workouts.forEachRoute { workout in
        let title =
          workout.file.map { "unreferenced " + RouteSpool.baseName($0) } ?? "\(workout.activity ?? "") \(workout.start)"
        var start: [UInt8] = []
        appendTrackStart(name: title, onlyAmpersandAndLessThan: true, to: &start)
        try out.write(start)
        for route in workout.routes {
          // Each point starts its own line (the Health app's layout): the segment's tags end theirs.
          try out.write(segmentStart)
          var text: [UInt8] = []
          try spool.forEachPoint(route) { point in
            appendPoint(point, to: &text)
            if text.count >= 1 << 16 {
              try out.write(text)
              text.removeAll(keepingCapacity: true)
            }
          }
          try out.write(text)
          try out.write(segmentEnd)
        }
        try out.write(trackEnd)
      }
      try out.write(documentEnd + [0x0A])
    }
  }
}
