extension WorkoutTotals {
  /// The second pass of `workouts` (docs/workouts.md): the HeartRate records of the workouts
  /// without heart-rate statistics (``heartRateWindows``), read again from the file at `path`
  /// through ``WorkoutHeartRates`` and applied to the rows and the summary (``apply(_:)``).
  ///
  /// Records come before workouts in an export, so the first pass cannot know which records a
  /// workout needs. Standard input cannot be read twice: with `path` nil or `-`, or when every
  /// workout had statistics, nothing is read and the answer is nil. The pass reports no skipped
  /// element (`options.onSkip` is cleared): the first pass reported them.
  ///
  /// - Returns: the rewritten HeartRate samples dropped, per source name (empty with
  ///   ``Configuration/keepRewrites``); nil when no pass was made.
  package func readHeartRates(from path: String?, options: ReadOptions) throws -> [StepTotals.RewriteCount]? {
    guard !heartRateWindows.isEmpty, let path, path != "-" else { return nil }
    let heartRates = WorkoutHeartRates(heartRateWindows, keepRewrites: configuration.keepRewrites)
    var options = options
    options.onSkip = nil
    try ExportReader(path: path, options: options).read(into: heartRates)
    apply(heartRates)
    return heartRates.rewrites
  }
}
