#if canImport(Glibc)
  import Glibc
#endif

/// Reads an export's side files into a ``BundleSink``, one at a time, after export.xml: each GPX
/// route joined to its workout (and the `WorkoutActivity` whose range holds its first point),
/// each ECG recording on its own. With `--skip-invalid` a damaged file is checked whole before
/// any of it is handed on, so it is skipped entirely (a zip member is spooled to a temporary
/// file for that).
final class SideFileReader {
  /// Where a side file's bytes come from: a stream read once, or a file that can be opened again.
  enum Source {
    case stream(ByteSource)
    case file(path: String, displayName: String)
  }

  let options: ReadOptions
  let bundle: BundleSink
  private(set) var report = SideFileReport()
  private(set) var skipped: [String] = []

  init(options: ReadOptions, bundle: BundleSink) {
    self.options = options
    self.bundle = bundle
  }

  /// Reads the side file at `path` from `source`.
  func read(_ path: SideFilePath, from source: Source) throws {
    var source = source
    var spool: SpoolFile?
    defer { spool?.remove() }
    if options.skipInvalid {
      if case .stream(let stream) = source {
        let file = try SpoolFile(copying: stream)
        spool = file
        source = .file(path: file.path, displayName: stream.displayName)
      }
      do {
        try deliver(path, from: try open(source), check: true)
      } catch let error as HealthPortError where error.kind == .malformed {
        let message = "\(error.description); skipped the file"
        skipped.append(message)
        options.onSkip?(message)
        if path.kind == .route { _ = bundle.join(path.reference) }
        return
      }
    }
    guard lossless else {
      try deliver(path, from: try open(source), check: false)
      return
    }
    // The bundle is written back: the file's bytes are kept until it is known whether Apple's
    // layout gives them back, and handed on raw when it does not.
    var input = try open(source)
    var staged: StagedBytes?
    if case .stream = source {
      let copy = StagedBytes()
      staged = copy
      input = TeeByteSource(input, into: copy)
    }
    defer { staged?.remove() }
    guard try !deliver(path, from: input, check: false, layout: true) else { return }
    if let staged {
      try staged.replay { try bundle.consumeBundleEvent(.bytes(Array($0))) }
    } else {
      let again = try open(source)
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: BundleEvent.chunkSize, alignment: 16)
      defer { buffer.deallocate() }
      while case let count = try again.read(into: buffer), count > 0 {
        try bundle.consumeBundleEvent(.bytes(Array(buffer[0..<count])))
      }
    }
  }

  private var lossless: Bool { bundle.next.wantsBundleMembers }

  /// The report of the whole read: the export's, with the side files and their warnings.
  func finish(_ exportReport: ReadReport) -> ReadReport {
    var result = exportReport
    report.missingRoutes = bundle.references.filter { !$0.value.seen }
      .sorted { ($0.value.workoutIndex, $0.value.routeIndex) < ($1.value.workoutIndex, $1.value.routeIndex) }
      .map { (path: $0.key, workout: $0.value.workout) }
    result.sideFiles = report
    result.skipped += skipped
    result.notes += report.notes
    return result
  }

  func open(_ source: Source) throws -> ByteSource {
    switch source {
    case .stream(let stream): return stream
    case .file(let path, let displayName):
      let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
      guard descriptor >= 0 else { throw InputRecognizer.cannotOpen(displayName) }
      return FileByteSource(
        fileDescriptor: descriptor, ownsDescriptor: true, prefix: [], displayName: displayName, totalBytes: nil)
    }
  }

  /// Reads the file; with `check`, only to find damage (nothing is handed on or counted). With
  /// `layout`, returns whether Apple's layout gives the file back byte for byte (else true).
  @discardableResult
  private func deliver(_ path: SideFilePath, from source: ByteSource, check: Bool, layout: Bool = false) throws
    -> Bool
  {
    switch path.kind {
    case .route:
      let reference = check ? nil : bundle.join(path.reference)
      var begun = false
      let layoutCheck = layout ? GPXLayoutCheck() : nil
      let points = try GPXReader(options: options).read(source, check: layoutCheck) { [bundle] header, points in
        guard !check else { return }
        if !begun {
          begun = true
          var file = RouteFile(path: path.reference, displayName: source.displayName)
          file.name = header.name
          file.metadataTime = header.metadataTime
          file.join = reference.map { reference in
            let first = points.first?.instant?.secondsSince1970
            let activity = first.flatMap { time in
              reference.activities.firstIndex { time >= $0.start && time <= ($0.end ?? Int64.max) }
            }
            return RouteJoin(
              workoutIndex: reference.workoutIndex, routeIndex: reference.routeIndex, activityIndex: activity)
          }
          try bundle.consumeSideFile(.routeBegin(file))
        }
        if !points.isEmpty { try bundle.consumeSideFile(.routePoints(points)) }
      }
      guard !check else { return true }
      try bundle.consumeSideFile(.routeEnd(points: points))
      report.routeFiles += 1
      report.routePoints += points
      if reference == nil { report.unreferencedRoutes.append(path.reference) }
      return layoutCheck?.matches ?? true
    case .ecg:
      let recording = ECGRecording(path: path.reference, displayName: source.displayName)
      var verbatim = true
      let samples = try ECGReader(options: options).read(
        source, recording: recording, verbatim: &verbatim,
        onBegin: { if !check { try bundle.consumeSideFile(.ecgBegin($0)) } },
        onSamples: { if !check { try bundle.consumeSideFile(.ecgSamples($0)) } })
      guard !check else { return true }
      try bundle.consumeSideFile(.ecgEnd(samples: samples))
      report.ecgRecordings += 1
      report.ecgSamples += samples
      return verbatim || !layout
    }
  }
}

/// A temporary file holding a copy of a stream (a zip member), removed by ``remove()`` or on a
/// signal (``TemporaryFiles``).
struct SpoolFile {
  let path: String
  private let registration: TemporaryFiles.Registration?

  init(copying source: ByteSource) throws {
    let folder = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array("\(folder)/healthport-spool-XXXXXX".utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard descriptor >= 0 else {
      throw HealthPortError(
        .failure, file: folder, message: "cannot create a temporary file: \(String(cString: strerror(errno)))")
    }
    path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    registration = TemporaryFiles.registerFile(path)
    defer { close(descriptor) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
    defer { buffer.deallocate() }
    do {
      while true {
        let count = try source.read(into: buffer)
        if count == 0 { break }
        var written = 0
        while written < count {
          let n = Glibc.write(descriptor, buffer.baseAddress! + written, count - written)
          if n < 0, errno == EINTR { continue }
          guard n > 0 else {
            throw HealthPortError(
              .failure, file: path, message: "cannot write a temporary file: \(String(cString: strerror(errno)))")
          }
          written += n
        }
      }
    } catch {
      unlink(path)
      TemporaryFiles.unregister(registration)
      throw error
    }
  }

  func remove() {
    unlink(path)
    TemporaryFiles.unregister(registration)
  }
}
