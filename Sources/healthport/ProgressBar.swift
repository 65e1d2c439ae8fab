import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// A progress line on stderr for long reads: bytes done of total, MB/s, time left.
/// Shown only when stderr is a terminal and the input is over 64 MB, never in pipes or CI logs.
final class ProgressBar: @unchecked Sendable {
  static let minimumInput: Int64 = 64 << 20
  /// Seconds of reading, from the first update on, before the bar shows a rate and a time left.
  static let measuringTime = 1.0
  /// The first update: time and bytes done, the origin of the rate.
  private var first: (time: Double, done: Int64)?
  private var lastDraw = 0.0
  private var drawn = false

  /// A bar when it should be shown for this input, else nil.
  static func make(inputPath: String?, quiet: Bool) -> ProgressBar? {
    guard !quiet, isatty(2) == 1 else { return nil }
    if let inputPath, inputPath != "-" {
      var info = stat()
      guard stat(inputPath, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR, Int64(info.st_size) > minimumInput else {
        return nil
      }
    } else {
      return nil
    }
    return ProgressBar()
  }

  func update(done: Int64, total: Int64?) {
    let now = Self.now()
    guard now - lastDraw >= 0.2, let total, total > 0 else { return }
    lastDraw = now
    let fraction = min(1, Double(done) / Double(total))
    let width = 30
    let filled = Int(fraction * Double(width))
    let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    var line = "\r[\(bar)] \(Int(fraction * 100))% \(done / 1_000_000)/\(total / 1_000_000) MB "
    // A rate and a time left only once there is a measurement: a second of reading since the
    // first update (so the first frame never has one, and start-up time does not count).
    let origin = first ?? (now, done)
    first = origin
    let elapsed = now - origin.time
    if elapsed >= Self.measuringTime, done > origin.done {
      let rate = Double(done - origin.done) / elapsed / 1e6
      let left = Double(max(0, total - done)) / 1e6 / rate
      line += "\(Int(rate.rounded())) MB/s \(Int(left.rounded()))s left "
    }
    CommandLineTool.writeTerminal(line + "\u{1B}[K")
    drawn = true
  }

  func finish() {
    if drawn { CommandLineTool.writeTerminal("\r\u{1B}[K") }
  }

  static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}

extension ReadOptions {
  /// Read options wired to a progress bar, if any. With `skipInvalid`, each skip is printed on
  /// stderr as it happens; the total comes from the ``ReadReport`` (``ReadingFlags/reportSkipped``).
  /// A filter with a single `--type` also names the type of the rows of a CSV without a type
  /// column, the same for every command.
  static func with(_ bar: ProgressBar?, skipInvalid: Bool, filter: ExportFilter? = nil) -> ReadOptions {
    var options = ReadOptions()
    if let types = filter?.types, types.count == 1 { options.csvDefaultType = types.first }
    if let bar { options.progress = { bar.update(done: $0, total: $1) } }
    if skipInvalid {
      options.skipInvalid = true
      options.onSkip = { message in CommandLineTool.writeError(message + "\n") }
    }
    return options
  }
}

/// `--skip-invalid`, shared by every command that reads an export.
enum ReadingFlags {
  static let skipInvalidOption = OptionSpec(
    name: "--skip-invalid", short: nil, valueName: nil,
    help: "Skip damaged elements (reported on stderr, with a total) instead of stopping at the first.")

  /// The total line after a read that skipped damaged elements; `count` is the reader's own
  /// (``ReadReport/skipped``), the one source of it.
  static func reportSkipped(_ count: Int, command: String) {
    guard count > 0 else { return }
    CommandLineTool.writeError("healthport \(command): skipped \(count) damaged element(s); everything else was read\n")
  }
}
