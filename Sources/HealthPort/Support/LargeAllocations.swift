#if canImport(Glibc)
  import Glibc
#endif

/// Where large buffers come from, for the commands that allocate and free many of them
/// (`convert --to parquet`, `load`), and which heap every thread allocates from.
///
/// glibc serves a request above its mmap threshold (128 KiB at first) with a mapping of its own,
/// returned to the system when freed. But each time such a mapping is freed, the threshold rises
/// to its size (up to 32 MiB), so later buffers of that size come from the heap, where the holes
/// they leave between live blocks are not returned. `convert --to parquet`, whose page buffers
/// grow to megabytes and are freed at every row group, peaked at 70 MB on a 100 MB export and
/// 85 MB on a 1 GB one that way; with the threshold fixed, 69 and 72 MB.
package enum LargeAllocations {
  /// `M_MMAP_THRESHOLD`.
  private static let mmapThreshold: Int32 = -3
  /// `M_ARENA_MAX`.
  private static let arenaMax: Int32 = -8

  /// Serves every request of more than `bytes` with a mapping of its own, and stops glibc
  /// from raising that threshold. Without effect on other C libraries.
  package static func mapAbove(_ bytes: Int = 128 << 10) {
    mallopt(mmapThreshold, Int32(clamping: bytes))
  }

  /// Has every thread allocate from the one heap. glibc otherwise gives a thread that finds the
  /// heap busy an arena of its own (up to 8 per processor), and each keeps the pages freed in it:
  /// a zip of 20,000 small GPX routes peaked at 99 MB to an unzipped folder and 75 MB to JSON
  /// Lines that way, with 14–21 MB live; with one arena, 46 and 59 MB. The reading threads do not
  /// wait on it measurably (`info` and `convert --to csv` of a 26 MB export, 2 threads: as fast).
  /// Call it before any thread starts: a thread keeps the arena it has.
  package static func oneArena() {
    mallopt(arenaMax, 1)
  }

  /// glibc's `mallopt` (``GlibcFunction``); without effect elsewhere.
  private static func mallopt(_ parameter: Int32, _ value: Int32) {
    _ = malloptFunction?(parameter, value)
  }

  private static let malloptFunction = GlibcFunction.lookUp(
    "mallopt", as: (@convention(c) (Int32, Int32) -> Int32).self)
}
