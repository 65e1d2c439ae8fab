import XMLStream

#if canImport(Glibc)
  import Glibc
#endif

/// Reads an export's side files on worker threads while the reading thread hands their events
/// on, in the order the files were submitted: each worker takes the next file and parses it
/// whole (a ``SideFileParse``), its events waiting in a window of at most
/// ``BundleSideFilePool/window`` per file, and at most ``limit`` files are in flight (held,
/// parsed or waiting). Memory stays flat: a 10-million-point route blocks its worker until the
/// reading thread has taken its batches.
final class BundleSideFilePool {
  /// Where a worker reads the file: a path it opens itself, or bytes read from a zip's stream.
  enum Input {
    case file(path: String, displayName: String)
    case bytes([UInt8], displayName: String)
  }

  /// How a file's read ended: its point or sample count, a skip (`--skip-invalid`), or an error.
  enum End {
    case read(count: Int)
    case skipped(HealthPortError)
    /// A file in an ECG folder without an ECG header: left out, with a warning.
    case notAnECG(NotAnECG)
    case failed(any Error)
  }

  private struct Job {
    var parse: SideFileParse
    var input: Input
  }

  private struct Slot {
    var parse: SideFileParse
    var events: [SideFileEvent] = []
    var end: End?
  }

  /// Events (route points and ECG samples in batches, begin and end) a worker may hold ready per file.
  static let window = 2
  /// A zip member larger than this is not read into memory: it is read on the reading thread.
  static let memberLimit = 8 << 20

  let threads: Int
  /// Files in flight at most.
  let limit: Int
  private let options: ReadOptions
  private let lock = ConditionLock()
  private let workers = WorkerThreads()
  private var queue: [Int: Job] = [:]
  private var slots: [Int: Slot] = [:]
  private var submitted = 0
  private var claimed = 0
  private var delivered = 0
  private var stopped = false

  private struct Stopped: Error {}

  init(options: ReadOptions) {
    var options = options
    // The workers are the parallelism: each parses with its handler on its own thread.
    options.concurrent = false
    self.options = options
    threads = max(1, ReadOptions.sideFileThreads(options))
    limit = threads + 1
  }

  /// Files submitted and not yet handed on.
  var inFlight: Int { submitted - delivered }

  /// Queues a file; the workers start with the first.
  func submit(_ path: SideFilePath, reference: BundleSink.Reference?, input: Input) {
    let job = Job(parse: SideFileParse(path: path, options: options, reference: reference), input: input)
    lock.lock()
    queue[submitted] = job
    submitted += 1
    lock.broadcast()
    lock.unlock()
    if workers.count == 0 { workers.start(threads) { self.work() } }
  }

  /// Hands the next file's events to `emit` as they come, and returns the file and how its read ended.
  func deliverNext(_ emit: (SideFileEvent) throws -> Void) throws -> (SideFileParse, End) {
    precondition(delivered < submitted)
    let index = delivered
    while true {
      lock.lock()
      while slots[index]?.events.isEmpty ?? true, slots[index]?.end == nil { lock.wait() }
      let events = slots[index]!.events
      let parse = slots[index]!.parse
      slots[index]!.events.removeAll()
      let end = events.isEmpty ? slots.removeValue(forKey: index)?.end : nil
      lock.broadcast()
      lock.unlock()
      for event in events { try emit(event) }
      if let end {
        delivered += 1
        return (parse, end)
      }
    }
  }

  /// Stops the workers (those waiting for room or for work end) and waits for them; needed once
  /// a file was submitted (the workers hold the pool until then).
  func stop() {
    lock.lock()
    stopped = true
    queue.removeAll()
    lock.broadcast()
    lock.unlock()
    workers.join()
  }

  private func work() {
    while let (index, job) = claim() {
      let end = run(index, job)
      lock.lock()
      slots[index]!.end = end
      lock.broadcast()
      lock.unlock()
    }
  }

  private func claim() -> (Int, Job)? {
    lock.lock()
    defer { lock.unlock() }
    while !stopped, claimed == submitted { lock.wait() }
    guard !stopped, let job = queue.removeValue(forKey: claimed) else { return nil }
    defer { claimed += 1 }
    slots[claimed] = Slot(parse: job.parse)
    return (claimed, job)
  }

  private func run(_ index: Int, _ job: Job) -> End {
    do {
      if options.skipInvalid {
        do {
          _ = try job.parse.read(try open(job.input), check: true) { _ in }
        } catch let error as HealthPortError where error.kind == .malformed {
          return .skipped(error)
        }
      }
      let outcome = try job.parse.read(try open(job.input), check: false) { try post(index, $0) }
      return .read(count: outcome.count)
    } catch let error as NotAnECG {
      return .notAnECG(error)
    } catch {
      return .failed(error)
    }
  }

  /// Hands an event to the slot, waiting while the window is full.
  private func post(_ index: Int, _ event: SideFileEvent) throws {
    lock.lock()
    defer { lock.unlock() }
    while !stopped, slots[index]!.events.count >= Self.window { lock.wait() }
    if stopped { throw Stopped() }
    slots[index]!.events.append(event)
    lock.broadcast()
  }

  private func open(_ input: Input) throws -> ByteSource {
    switch input {
    case .bytes(let bytes, let displayName): return MemoryByteSource(bytes: bytes, name: displayName)
    case .file(let path, let displayName):
      let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
      guard descriptor >= 0 else { throw InputRecognizer.cannotOpen(displayName) }
      return FileByteSource(
        fileDescriptor: descriptor, ownsDescriptor: true, prefix: [], displayName: displayName, totalBytes: nil)
    }
  }
}

extension ReadOptions {
  /// Side files parsed at once: `threads` when the read is concurrent, else one (read in sequence).
  static func sideFileThreads(_ options: ReadOptions) -> Int { options.concurrent ? options.threads : 1 }
}
