/// Reads one side file into side-file events, touching nothing shared: the same work on the
/// reading thread (``SideFileReader``) and on a worker of the ``BundleSideFilePool``.
struct SideFileParse {
  let path: SideFilePath
  let options: ReadOptions
  /// The workout whose `FileReference` names the route, looked up before the read.
  let reference: BundleSink.Reference?

  /// What a read found: its points or samples, and whether the source's bytes are exactly
  /// Apple's layout (always true without `layout`).
  struct Outcome {
    var count: Int
    var matchesLayout: Bool
  }

  /// Reads `source`, handing every event to `emit` (nothing when `check`: damage is only looked
  /// for). With `layout`, also tells whether Apple's layout gives the bytes back.
  func read(
    _ source: ByteSource, check: Bool, layout: Bool = false, emit: (SideFileEvent) throws -> Void
  ) throws -> Outcome {
    switch path.kind {
    case .route:
      var begun = false
      let layoutCheck = layout ? GPXLayoutCheck() : nil
      let points = try withoutActuallyEscaping(emit) { emit in
        try GPXReader(options: options).read(source, check: layoutCheck) { header, points in
          guard !check else { return }
          if !begun {
            begun = true
            try emit(.routeBegin(routeFile(source: source, header: header, first: points.first)))
          }
          if !points.isEmpty { try emit(.routePoints(points)) }
        }
      }
      if !check { try emit(.routeEnd(points: points)) }
      return Outcome(count: points, matchesLayout: layoutCheck?.matches ?? true)
    case .ecg:
      let recording = ECGRecording(path: path.reference, displayName: source.displayName)
      var verbatim = true
      let samples = try ECGReader(options: options).read(
        source, recording: recording, verbatim: &verbatim,
        onBegin: { if !check { try emit(.ecgBegin($0)) } },
        onSamples: { if !check { try emit(.ecgSamples($0)) } })
      if !check { try emit(.ecgEnd(samples: samples)) }
      return Outcome(count: samples, matchesLayout: verbatim || !layout)
    }
  }

  /// The route as its reading begins: joined to its workout, and to the `WorkoutActivity` whose
  /// range holds the first point.
  private func routeFile(source: ByteSource, header: GPXReader.Header, first: RoutePoint?) -> RouteFile {
    var file = RouteFile(path: path.reference, displayName: source.displayName)
    file.name = header.name
    file.metadataTime = header.metadataTime
    file.join = reference.map { reference in
      let time = first?.instant?.secondsSince1970
      let activity = time.flatMap { time in
        reference.activities.firstIndex { time >= $0.start && time <= ($0.end ?? Int64.max) }
      }
      return RouteJoin(workoutIndex: reference.workoutIndex, routeIndex: reference.routeIndex, activityIndex: activity)
    }
    return file
  }
}
