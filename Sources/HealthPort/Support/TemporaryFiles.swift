import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The temporary files and folders this process has created and not yet renamed into place or
/// removed, so that a signal handler can remove them before the process dies.
///
/// The writers register a temporary path just before they create it and unregister it once it has
/// been renamed into place or removed; the command-line tool's handler for SIGINT, SIGTERM and
/// SIGHUP calls ``removeAll()``. Only paths registered here are ever removed, so a target, an
/// existing database loaded in place or an input is never touched.
///
/// ``removeAll()`` runs inside a signal handler, where allocating or taking a lock can deadlock
/// (the interrupted thread may hold the allocator's lock). So the table is allocated once, before
/// any handler is installed, as fixed-size slots, each a C string buffer with an atomic state: a
/// writer claims a free slot with a compare-and-swap, copies the path in and only then marks it
/// live; the handler takes a live slot over (so that no thread can free and reuse it while it
/// reads the path) and calls only `unlink`, `rmdir` and, for a folder output's temporary folder
/// (``registerTree(_:)``), the calls that walk and empty it. A path that does not fit (too long,
/// or every slot taken) is simply not registered: it is still removed on every error path, only
/// an interruption may leave it.
package enum TemporaryFiles {
  /// A registered path; give it back to `unregister(_:)`.
  package struct Registration: Sendable {
    fileprivate let slot: Int
  }

  /// What a slot holds, stored in its atomic state.
  private enum State {
    static let free = 0
    /// A writer is copying its path in.
    static let claimed = 1
    static let file = 2
    static let folder = 3
    /// The signal handler is removing it; nobody else touches the slot again.
    static let removing = 4
    /// A folder removed with all it holds.
    static let tree = 5
  }

  /// Slots: a split folder holds a file per table, a record table per type of the export; a
  /// Parquet dataset a file per partition and part, thousands for a long history.
  static let slotCount = 16384
  static let pathCapacity = Int(PATH_MAX)
  /// The first ``shortSlots`` slots hold paths shorter than ``shortCapacity`` bytes, 8 to a
  /// 4 KiB page, so that a folder output of many files touches 512 bytes per file, not a page;
  /// the others hold any path.
  static let shortSlots = 16128
  static let shortCapacity = 512

  /// Where the path of `slot` is stored.
  @inline(__always)
  private static func pathBuffer(_ slot: Int) -> UnsafeMutablePointer<CChar> {
    slot < shortSlots
      ? table.paths + slot * shortCapacity
      : table.paths + shortSlots * shortCapacity + (slot - shortSlots) * pathCapacity
  }

  /// The slots' states and path buffers, allocated once and never freed. A buffer is written
  /// before its slot is marked live; the pages of unused buffers are never touched, so the 64 MiB
  /// reserved cost only what is used.
  private struct Table: @unchecked Sendable {
    let states: UnsafeMutablePointer<Atomic<Int>>
    let paths: UnsafeMutablePointer<CChar>

    init() {
      states = .allocate(capacity: TemporaryFiles.slotCount)
      for index in 0..<TemporaryFiles.slotCount { (states + index).initialize(to: Atomic(State.free)) }
      paths = .allocate(
        capacity: TemporaryFiles.shortSlots * TemporaryFiles.shortCapacity
          + (TemporaryFiles.slotCount - TemporaryFiles.shortSlots) * TemporaryFiles.pathCapacity)
    }
  }

  private static let table = Table()

  /// Set once the handler starts removing; creations that start later remove what they made.
  private static let ending = Atomic<Bool>(false)
  /// Threads between ``whileCreating(_:)``'s start and end (registering, then creating).
  private static let creating = Atomic<Int>(0)
  /// One past the highest slot ever claimed: the handler scans no further, so that its passes
  /// stay short however many slots there are.
  private static let usedSlots = Atomic<Int>(0)
  /// Slots claimed and not freed, and where the next search for a free one starts: registering
  /// is O(1) while slots are free and when none is (100,000 files of a folder output scanned
  /// every slot for each file).
  private static let liveSlots = Atomic<Int>(0)
  private static let searchStart = Atomic<Int>(0)

  /// Allocates the table; call it before installing a handler that calls ``removeAll()``, so that
  /// the handler never runs the table's one-time initialization.
  package static func prepare() {
    _ = table
    _ = TreeRemoval.shared
  }

  /// Registers a temporary file at `path`, to be removed if the process is interrupted.
  package static func registerFile(_ path: String) -> Registration? {
    register(path, as: State.file)
  }

  /// Registers a temporary folder; ``removeAll()`` removes it after every registered file, so
  /// register the files it holds too.
  package static func registerFolder(_ path: String) -> Registration? {
    register(path, as: State.folder)
  }

  /// Registers a temporary folder that ``removeAll()`` removes with everything inside it, however
  /// many files and folders that is: a folder output's (``FolderOutput``), whose files need no
  /// registration of their own. Register only a folder this process made, never one holding
  /// anything else.
  package static func registerTree(_ path: String) -> Registration? {
    register(path, as: State.tree)
  }

  /// Registers a new SQLite database and the side files SQLite may create beside it.
  package static func registerDatabase(_ path: String) -> [Registration] {
    ([path] + ["-journal", "-wal", "-shm"].map { path + $0 }).compactMap { registerFile($0) }
  }

  /// Forgets a path that was renamed into place or removed.
  package static func unregister(_ registration: Registration?) {
    guard let registration else { return }
    let state = table.states + registration.slot
    for expected in [State.file, State.folder, State.tree] {
      // Fails only when the handler has taken the slot over, and then the process is ending.
      if state.pointee.compareExchange(expected: expected, desired: State.free, ordering: .acquiringAndReleasing)
        .exchanged
      {
        liveSlots.subtract(1, ordering: .relaxed)
        if registration.slot < searchStart.load(ordering: .relaxed) {
          searchStart.store(registration.slot, ordering: .relaxed)
        }
        return
      }
    }
  }

  package static func unregister(_ registrations: [Registration]) {
    for registration in registrations { unregister(registration) }
  }

  private static func register(_ path: String, as kind: Int) -> Registration? {
    let length = path.utf8.count
    guard length > 0, length < pathCapacity, !path.utf8.contains(0),
      liveSlots.load(ordering: .relaxed) < slotCount
    else { return nil }
    // A short path searches the short slots from the first that may be free, then the long
    // ones; a long path only the long ones.
    let short = length < shortCapacity
    let first = short ? min(searchStart.load(ordering: .relaxed), shortSlots) : shortSlots
    for offset in 0..<slotCount {
      var slot = first + offset
      if slot >= slotCount { slot -= slotCount }
      if !short && slot < shortSlots { break }
      let state = table.states + slot
      guard
        state.pointee.compareExchange(expected: State.free, desired: State.claimed, ordering: .acquiring).exchanged
      else { continue }
      liveSlots.add(1, ordering: .relaxed)
      if short, slot < shortSlots { searchStart.store(slot + 1, ordering: .relaxed) }
      let buffer = pathBuffer(slot)
      path.withCString { _ = strncpy(buffer, $0, length) }
      buffer[length] = 0
      var used = usedSlots.load(ordering: .relaxed)
      while used <= slot {
        let (exchanged, original) = usedSlots.compareExchange(
          expected: used, desired: slot + 1, ordering: .relaxed)
        if exchanged { break }
        used = original
      }
      state.pointee.store(kind, ordering: .releasing)
      return Registration(slot: slot)
    }
    return nil
  }

  /// Registers and creates a path while another thread may be interrupted: `body` registers the
  /// path and creates it, and returns it; when the handler has begun meanwhile, what `body` made
  /// is removed here (the handler waits for creations in progress, so none is made after its
  /// removal without being removed). For writers that create files while the run goes on.
  package static func whileCreating(_ body: () throws -> (path: String, isFolder: Bool)?) rethrows {
    creating.add(1, ordering: .sequentiallyConsistent)
    defer { creating.subtract(1, ordering: .sequentiallyConsistent) }
    guard let made = try body() else { return }
    if ending.load(ordering: .sequentiallyConsistent) {
      _ = made.isFolder ? rmdir(made.path) : unlink(made.path)
    }
  }

  /// Removes every registered file, then every registered tree with what it holds, then every
  /// registered folder, the latest slots first (a folder registered after its parent goes before
  /// it), once the creations in progress on other threads have ended (a bounded wait: the handler
  /// may have interrupted one). Async-signal-safe: no allocation, no lock, only atomics, `unlink`,
  /// `rmdir` and the system calls of ``TreeRemoval``.
  package static func removeAll() {
    ending.store(true, ordering: .sequentiallyConsistent)
    var spins = 0
    while creating.load(ordering: .sequentiallyConsistent) > 0 && spins < 50_000_000 { spins += 1 }
    removeAll(State.file)
    removeAll(State.tree)
    removeAll(State.folder)
  }

  private static func removeAll(_ kind: Int) {
    // A plain loop: a generic range (`(0..<n).reversed()`) may look up its witness table, which
    // allocates in a debug build, and deadlocks when the signal interrupted malloc.
    var slot = usedSlots.load(ordering: .acquiring)
    if slot > slotCount { slot = slotCount }
    while slot > 0 {
      slot -= 1
      let state = table.states + slot
      guard state.pointee.compareExchange(expected: kind, desired: State.removing, ordering: .acquiring).exchanged
      else { continue }
      let path = pathBuffer(slot)
      if kind == State.file {
        _ = unlink(path)
      } else if kind == State.tree {
        TreeRemoval.shared.remove(path)
      } else {
        _ = rmdir(path)
      }
    }
  }
}

/// Removes a folder and everything below it from inside a signal handler: no allocation and no
/// lock, so neither `nftw` nor `opendir` (both allocate); only `open`, `getdents64`, `unlinkat`,
/// `lseek`, `close` and `rmdir`, on a buffer made beforehand by ``TemporaryFiles/prepare()``.
///
/// A folder is read in batches of entries; each file is unlinked as it comes. A subfolder is
/// emptied the same way (its depth bounded by ``maximumDepth``) and removed, and the folder is
/// then read again from its start, the buffer having been reused below. A folder is read until a
/// reading finds it empty, or removes nothing (what is left cannot be removed), so that files
/// another thread creates meanwhile go too.
struct TreeRemoval: @unchecked Sendable {
  static let shared = TreeRemoval()

  /// Subfolders below the tree's root, at most (the bundle layout has three levels).
  static let maximumDepth = 32
  /// Times the root is emptied again when its `rmdir` still fails.
  static let maximumPasses = 8
  static let bufferSize = 32 << 10

  private typealias GetDents = @convention(c) (Int32, UnsafeMutableRawPointer?, Int) -> Int
  /// `getdents64`, looked up once (``GlibcFunction``: glibc declares it only under `_GNU_SOURCE`).
  private let getdents: GetDents?
  private let buffer: UnsafeMutablePointer<UInt8>
  /// A subfolder's name per depth, copied out of ``buffer`` before the walk below reuses it.
  private let names: UnsafeMutablePointer<CChar>
  static let nameCapacity = 256

  private init() {
    getdents = GlibcFunction.lookUp("getdents64", as: GetDents.self)
    buffer = .allocate(capacity: Self.bufferSize)
    names = .allocate(capacity: Self.nameCapacity * (Self.maximumDepth + 1))
  }

  /// Removes `path` (a C string) with all it holds, as far as it can.
  func remove(_ path: UnsafePointer<CChar>) {
    var pass = 0
    while pass < Self.maximumPasses {
      pass += 1
      if rmdir(path) == 0 || errno == ENOENT { return }
      let folder = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      if folder < 0 { return }
      empty(folder, depth: 0)
      close(folder)
    }
  }

  /// Unlinks every entry of the open folder `folder`, emptying and removing its subfolders.
  private func empty(_ folder: Int32, depth: Int) {
    guard let getdents else { return }
    while true {
      var removed = false
      var seen = false
      reading: while true {
        let count = getdents(folder, UnsafeMutableRawPointer(buffer), Self.bufferSize)
        if count <= 0 { break }
        var offset = 0
        while offset < count {
          // struct linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1), d_name.
          let entry = buffer + offset
          let length = Int(entry[16]) | Int(entry[17]) << 8
          let type = Int(entry[18])
          let name = UnsafeRawPointer(entry + 19).assumingMemoryBound(to: CChar.self)
          if length == 0 { break reading }
          offset += length
          if name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0)) { continue }
          seen = true
          if type != Int(DT_DIR) {
            if unlinkat(folder, name, 0) == 0 {
              removed = true
              continue
            }
            if type != Int(DT_UNKNOWN) || errno != EISDIR { continue }
          }
          // A subfolder: the buffer is reused below, so its name is copied out first, and this
          // folder is read again afterwards.
          let subfolder = names + depth * Self.nameCapacity
          var end = 0
          while end < Self.nameCapacity - 1 && name[end] != 0 {
            subfolder[end] = name[end]
            end += 1
          }
          subfolder[end] = 0
          if depth < Self.maximumDepth {
            let child = openat(folder, subfolder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if child >= 0 {
              empty(child, depth: depth + 1)
              close(child)
            }
          }
          if unlinkat(folder, subfolder, AT_REMOVEDIR) == 0 { removed = true }
          break reading
        }
      }
      // Done when empty; stuck when nothing could be removed; else read it again from the start.
      if !seen || !removed || lseek(folder, 0, SEEK_SET) != 0 { return }
    }
  }
}
