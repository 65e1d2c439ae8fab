#if canImport(Glibc)
  import Glibc
#endif

/// Reads an export's side files into a ``BundleSink``, after export.xml: each GPX route joined
/// to its workout (and the `WorkoutActivity` whose range holds its first point), each ECG
/// recording on its own. Unless the bundle is written back, the files are parsed on worker
/// threads (``BundleSideFilePool``) and handed on in the order they were read; ``drain()`` waits
/// for the last. With `--skip-invalid` a damaged file is checked whole before any of it is
/// handed on, so it is skipped entirely (a zip member is held in memory or spooled for that).
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
  private var pool: BundleSideFilePool?

  init(options: ReadOptions, bundle: BundleSink) {
    self.options = options
    self.bundle = bundle
  }

  /// Reads the side file at `path` from `source` (or queues it for the workers). `member` is the
  /// bundle member announced for it, when the bundle is written back.
  func read(_ path: SideFilePath, from source: Source, member: BundleMember? = nil) throws {
    let reference = path.kind == .route ? bundle.join(path.reference) : nil
    if !lossless, ReadOptions.sideFileThreads(options) > 1 {
      let pool = pool ?? BundleSideFilePool(options: options)
      self.pool = pool
      switch source {
      case .file(let file, let displayName):
        return try submit(path, reference, .file(path: file, displayName: displayName), to: pool)
      case .stream(let stream):
        let (bytes, complete) = try held(stream, pool)
        if complete { return try submit(path, reference, .bytes(bytes, displayName: stream.displayName), to: pool) }
        // Too large to hold: read here, after the files before it.
        try drain()
        return try readHere(path, reference, from: .stream(PrefixedByteSource(prefix: bytes, base: stream)))
      }
    }
    try drain()
    try readHere(path, reference, from: source, member: member)
    // glibc keeps pages that routes parsed on this thread freed (their input buffers, their
    // batches) instead of reusing them all: without this, the peak grows with the files read.
    // A trim walks the whole heap, so it comes after enough points or samples, not after a
    // number of files: every 16 files made 100,000 one-point routes quadratic.
    filesReadHere += 1
    if valuesReadHere >= Self.valuesPerTrim || filesReadHere >= Self.filesPerTrim {
      valuesReadHere = 0
      filesReadHere = 0
      _ = mallocTrim(0)
    }
  }

  /// Route points and ECG samples read on this thread since the last trim, and how many call
  /// for one (about 5 MB of Apple's GPX).
  private var valuesReadHere = 0
  static let valuesPerTrim = 16_384
  /// Files read on this thread since the last trim, and how many call for one: each leaves holes
  /// (its buffers, its parser) however few its points. A zip of 20,000 one-point routes trimmed
  /// once by points alone, and peaked at 61–105 MB to a folder.
  private var filesReadHere = 0
  static let filesPerTrim = 128

  /// Waits for the files queued for the workers and hands them on (the first error, in file
  /// order, is thrown).
  func drain() throws {
    guard let pool else { return }
    while pool.inFlight > 0 { try deliverNext(pool) }
  }

  /// Ends the workers (after an error; ``drain()`` leaves them waiting for more files).
  func stop() {
    pool?.stop()
    pool = nil
  }

  private func submit(
    _ path: SideFilePath, _ reference: BundleSink.Reference?, _ input: BundleSideFilePool.Input,
    to pool: BundleSideFilePool
  ) throws {
    pool.submit(path, reference: reference, input: input)
    while pool.inFlight > pool.limit { try deliverNext(pool) }
  }

  /// A zip member's bytes, whole when it is at most ``BundleSideFilePool/memberLimit`` bytes.
  /// When the stream fails, the files before it are handed on first (their errors come first).
  private func held(_ stream: ByteSource, _ pool: BundleSideFilePool) throws -> ([UInt8], complete: Bool) {
    var bytes: [UInt8] = []
    // Read into one buffer and copy what came: growing the array by 64 KiB of zeros for each
    // member cost more than the member (a minute for 10,000 small routes in a debug build).
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    defer { buffer.deallocate() }
    do {
      while bytes.count <= BundleSideFilePool.memberLimit {
        let count = try stream.read(into: buffer)
        if count == 0 { return (bytes, true) }
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
      }
    } catch {
      try drain()
      throw error
    }
    return (bytes, false)
  }

  private func deliverNext(_ pool: BundleSideFilePool) throws {
    let (parse, end) = try pool.deliverNext { try bundle.consumeSideFile($0) }
    switch end {
    case .read(let points): try count(parse, points)
    case .skipped(let error):
      skip(error)
    case .notAnECG(let file):
      report.notECGs.append(file.displayName)
    case .failed(let error):
      throw error
    }
  }

  private func skip(_ error: HealthPortError) {
    let message = "\(error.description); skipped the file"
    skipped.append(message)
    options.onSkip?(message)
  }

  /// Reads the side file on this thread.
  private func readHere(
    _ path: SideFilePath, _ reference: BundleSink.Reference?, from source: Source, member: BundleMember? = nil
  ) throws {
    var source = source
    var spool: SpoolFile?
    defer { spool?.remove() }
    let parse = SideFileParse(path: path, options: options, reference: reference)
    if options.skipInvalid {
      if case .stream(let stream) = source {
        let file = try SpoolFile(copying: stream)
        spool = file
        source = .file(path: file.path, displayName: stream.displayName)
      }
      do {
        _ = try parse.read(try open(source), check: true) { _ in }
      } catch let error as HealthPortError where error.kind == .malformed {
        return skip(error)
      } catch is NotAnECG {
        // Left out below, with its warning (or copied as it is when the bundle is written back).
      }
    }
    guard lossless else {
      do {
        try deliver(parse, from: try open(source))
      } catch let error as NotAnECG {
        report.notECGs.append(error.displayName)
      }
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
    let matchesLayout: Bool
    do {
      matchesLayout = try deliver(parse, from: input, layout: true)
    } catch let error as NotAnECG {
      // Not a recording (no event was handed on): its bytes go into the bundle as they are.
      report.notECGs.append(error.displayName)
      report.notECGsCopied = true
      if staged != nil { try readToEnd(input) }
      if var member {
        member.kind = .other
        try bundle.consumeBundleEvent(.member(member))
      }
      matchesLayout = false
    }
    guard !matchesLayout else { return }
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

  private var lossless: Bool { bundle.next.capabilities.contains(.bundleMembers) }

  /// Reads what is left of `source` (through a tee, so that its copy is whole).
  private func readToEnd(_ source: ByteSource) throws {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    defer { buffer.deallocate() }
    while try source.read(into: buffer) > 0 {}
  }

  /// The report of the whole read: the export's, with the side files and their warnings.
  func finish(_ exportReport: ReadReport, cutShort: Bool = false) -> ReadReport {
    var result = exportReport
    report.cutShort = cutShort
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

  /// Reads the file and hands its events on; with `layout`, returns whether Apple's layout
  /// gives the file back byte for byte (else true).
  @discardableResult
  private func deliver(_ parse: SideFileParse, from source: ByteSource, layout: Bool = false) throws -> Bool {
    let outcome = try parse.read(source, check: false, layout: layout) { try bundle.consumeSideFile($0) }
    try count(parse, outcome.count)
    return outcome.matchesLayout
  }

  private func count(_ parse: SideFileParse, _ count: Int) throws {
    valuesReadHere += count
    switch parse.path.kind {
    case .route:
      report.routeFiles += 1
      report.routePoints += count
      if parse.reference == nil { try report.unreferencedRoutes.append(parse.path.reference) }
    case .ecg:
      report.ecgRecordings += 1
      report.ecgSamples += count
    }
  }
}

/// A temporary file holding a copy of a stream (a zip member), removed by ``remove()`` or on a
/// signal (``TemporaryFiles``).
struct SpoolFile {
  let path: String
  private let registration: TemporaryFiles.Registration?

  init(copying source: ByteSource) throws {
    let folder = SystemFile.temporaryFolder
    let (descriptor, path) = try SystemFile.makeTemporary(
      "spool", in: folder, orThrow: StagedBytes.creationFailure(folder))
    self.path = path
    registration = TemporaryFiles.registerFile(path)
    defer { close(descriptor) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
    defer { buffer.deallocate() }
    do {
      while true {
        let count = try source.read(into: buffer)
        if count == 0 { break }
        try SystemFile.writeAll(descriptor, UnsafeRawBufferPointer(rebasing: buffer[0..<count])) {
          HealthPortError(.failure, file: path, message: "cannot write a temporary file: \($0)")
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

/// glibc's `malloc_trim` (in `malloc.h`, which the Glibc module leaves out): returns the free
/// pages of the heap to the system.
@_silgen_name("malloc_trim")
private func mallocTrim(_ pad: Int) -> Int32
