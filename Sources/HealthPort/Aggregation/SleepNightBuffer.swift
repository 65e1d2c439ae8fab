#if canImport(Glibc)
  import Glibc
#endif

/// Holds sleep entries until their night can be merged, so that memory grows with the nights
/// still open, not with the export.
///
/// Samples come mostly in date order, but not always (an app that back-fills its history writes
/// years of old nights after the newer ones). So a night closes — is merged and handed to `close`
/// — once a sample of a night more than ``lag`` nights later has arrived; its entries then go to a
/// scratch file (`tmpfile`, unlinked from the start, so nothing is left behind whatever happens).
/// A sample that arrives for a closed night goes there too, and the night is marked for another
/// merge; ``finish()`` re-reads the file for those nights, ``batch`` nights per pass, and hands
/// them to `close` again, with every entry. Without a scratch file entries stay in memory.
final class SleepNightBuffer {
  /// How many nights after the newest one a night stays open.
  static let lag = 2
  /// Nights merged again per pass over the scratch file.
  static let batch = 64

  private struct Spilled {
    var night: Int64
    var entry: SleepEntry
  }

  private let close: (Int, [SleepEntry]) -> Void
  private var open: [Int: [SleepEntry]] = [:]
  private var newest: Int?
  private var closed: Set<Int> = []
  private var dirty: Set<Int> = []
  private var scratch: UnsafeMutablePointer<FILE>?
  private var scratchFailed = false
  /// Entries of closed nights when there is no scratch file.
  private var kept: [Int: [SleepEntry]] = [:]

  init(close: @escaping (Int, [SleepEntry]) -> Void) { self.close = close }

  deinit { if let scratch { fclose(scratch) } }

  func append(_ entry: SleepEntry, night: Int) {
    if closed.contains(night) || night < (newest ?? night) - Self.lag {
      // A late sample: merged again at the end, with the night's closed entries.
      closed.insert(night)
      dirty.insert(night)
      store([entry], night: night)
      return
    }
    open[night, default: []].append(entry)
    guard night > newest ?? Int.min else { return }
    newest = night
    let due = open.keys.filter { $0 < night - Self.lag }.sorted()
    for day in due { closeOpen(day) }
  }

  /// Closes every open night, then merges the nights that got late samples again.
  func finish() {
    for day in open.keys.sorted() { closeOpen(day) }
    let again = dirty.sorted()
    dirty = []
    if let scratch {
      fflush(scratch)
      var from = 0
      while from < again.count {
        let part = Set(again[from..<min(from + Self.batch, again.count)])
        var entries: [Int: [SleepEntry]] = [:]
        rewind(scratch)
        var item = Spilled(night: 0, entry: SleepEntry.zero)
        while fread(&item, MemoryLayout<Spilled>.stride, 1, scratch) == 1 {
          if part.contains(Int(item.night)) { entries[Int(item.night), default: []].append(item.entry) }
        }
        for day in part.sorted() { close(day, (entries[day] ?? []) + (kept[day] ?? [])) }
        from += Self.batch
      }
      fseek(scratch, 0, SEEK_END)
    } else {
      for day in again { close(day, kept[day] ?? []) }
    }
  }

  private func closeOpen(_ day: Int) {
    guard let entries = open.removeValue(forKey: day) else { return }
    close(day, entries)
    closed.insert(day)
    store(entries, night: day)
  }

  private func store(_ entries: [SleepEntry], night: Int) {
    if scratch == nil, !scratchFailed {
      scratch = tmpfile()
      scratchFailed = scratch == nil
    }
    guard let scratch else {
      kept[night, default: []] += entries
      return
    }
    var items = entries.map { Spilled(night: Int64(night), entry: $0) }
    let written = items.withUnsafeMutableBytes {
      fwrite($0.baseAddress, MemoryLayout<Spilled>.stride, entries.count, scratch)
    }
    if written != entries.count {
      // A full disk: keep what did not fit in memory instead.
      kept[night, default: []] += entries[written...]
    }
  }
}
