import HealthPort
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A progress line on stderr for long reads: bytes done of total, MB/s, time left.
/// Shown only when stderr is a terminal and the input is over 64 MB, never in pipes or CI logs.
final class ProgressBar: @unchecked Sendable {
  static let minimumInput: Int64 = 64 << 20
  private let start = ProgressBar.now()
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
    let elapsed = max(now - start, 0.001)
    let fraction = min(1, Double(done) / Double(total))
    let rate = Double(done) / elapsed / 1e6
    let left = rate > 0 ? Double(total - done) / 1e6 / rate : 0
    let width = 30
    let filled = Int(fraction * Double(width))
    let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    let line =
      "\r[\(bar)] \(Int(fraction * 100))% \(done / 1_000_000)/\(total / 1_000_000) MB \(Int(rate)) MB/s \(Int(left))s left "
    CommandLineTool.writeError(line)
    drawn = true
  }

  func finish() {
    if drawn { CommandLineTool.writeError("\r\u{1B}[K") }
  }

  static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}

extension ReadOptions {
  /// Read options wired to a progress bar, if any.
  static func with(_ bar: ProgressBar?, skipInvalid: Bool) -> ReadOptions {
    var options = ReadOptions()
    if let bar { options.progress = { bar.update(done: $0, total: $1) } }
    if skipInvalid {
      options.skipInvalid = true
      options.onSkip = { message in
        ReadingFlags.skipped.add(1, ordering: .relaxed)
        CommandLineTool.writeError(message + "\n")
      }
    }
    return options
  }
}

/// `--skip-invalid`, shared by every command that reads an export, and the count of skips that
/// ``CommandLineTool`` reports at the end.
enum ReadingFlags {
  static let skipInvalidOption = OptionSpec(
    name: "--skip-invalid", short: nil, valueName: nil,
    help: "Skip damaged elements (reported on stderr, with a total) instead of stopping at the first.")

  /// Elements skipped so far (reported from the parsing thread of `load` too).
  static let skipped = Atomic<Int>(0)
}
