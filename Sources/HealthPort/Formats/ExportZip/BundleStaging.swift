#if canImport(Glibc)
  import Glibc
#endif

/// Bytes held for later in flat memory: the first ``memoryLimit`` (256 KiB) in memory, the rest in a
/// temporary file (removed by ``remove()``, deinit, or on a signal). The bundle reader keeps a
/// side file's raw bytes in one until it knows whether Apple's layout gives them back; the
/// bundle writer keeps a member that arrives before its turn in the input's order.
final class StagedBytes {
  static let memoryLimit = 256 << 10

  private var memory: [UInt8] = []
  private var file: Int32 = -1
  private var path: String?
  private var registration: TemporaryFiles.Registration?
  private(set) var count: Int64 = 0

  init() {}

  deinit { remove() }

  func append(_ bytes: UnsafeRawBufferPointer) throws {
    count += Int64(bytes.count)
    if file < 0, memory.count + bytes.count <= Self.memoryLimit {
      memory.append(contentsOf: bytes)
      return
    }
    if file < 0 { try spill() }
    try Self.writeAll(file, bytes, name: path ?? "")
  }

  func append(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try append($0) } }

  /// Bytes held in memory (the rest is on disk).
  var memoryCount: Int { memory.count }

  /// Moves what is in memory to the temporary file (for bytes kept a long while).
  func moveToDisk() throws { if file < 0 { try spill() } }

  /// Calls `body` with the bytes in order, in chunks of at most ``BundleEvent/chunkSize``.
  func replay(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    try memory.withUnsafeBytes { all in
      var offset = 0
      while offset < all.count {
        let end = min(all.count, offset + BundleEvent.chunkSize)
        try body(UnsafeRawBufferPointer(rebasing: all[offset..<end]))
        offset = end
      }
    }
    guard file >= 0 else { return }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: BundleEvent.chunkSize, alignment: 16)
    defer { buffer.deallocate() }
    var offset: off_t = 0
    while true {
      let n = pread(file, buffer.baseAddress, buffer.count, offset)
      if n < 0, errno == EINTR { continue }
      guard n >= 0 else {
        throw HealthPortError(.failure, file: path ?? "", message: "cannot read: \(String(cString: strerror(errno)))")
      }
      if n == 0 { break }
      offset += off_t(n)
      try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
    }
  }

  /// Copies the bytes from `offset` on into `buffer`, as many as fit; 0 at the end.
  func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard offset < count else { return 0 }
    guard file >= 0 else {
      let start = Int(offset)
      let length = min(buffer.count, memory.count - start)
      memory.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[start..<(start + length)])) }
      return length
    }
    while true {
      let n = pread(file, buffer.baseAddress, buffer.count, off_t(offset))
      if n < 0, errno == EINTR { continue }
      guard n >= 0 else {
        throw HealthPortError(.failure, file: path ?? "", message: "cannot read: \(String(cString: strerror(errno)))")
      }
      return n
    }
  }

  func remove() {
    memory = []
    if file >= 0 {
      close(file)
      file = -1
    }
    if let path {
      unlink(path)
      TemporaryFiles.unregister(registration)
      self.path = nil
    }
  }

  private func spill() throws {
    let folder = SystemFile.temporaryFolder
    let (descriptor, path) = try SystemFile.makeTemporary("stage", in: folder, orThrow: Self.creationFailure(folder))
    registration = TemporaryFiles.registerFile(path)
    self.path = path
    file = descriptor
    try memory.withUnsafeBytes { try Self.writeAll(descriptor, $0, name: path) }
    memory = []
  }

  static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, name: String) throws {
    try SystemFile.writeAll(descriptor, bytes) { HealthPortError(.failure, file: name, message: "cannot write: \($0)") }
  }

  /// The error when a temporary file cannot be made in `folder` (here and for a spooled member).
  static func creationFailure(_ folder: String) -> (_ reason: String) -> HealthPortError {
    { HealthPortError(.failure, file: folder, message: "cannot create a temporary file: \($0)") }
  }
}

/// A source that copies every byte it reads into ``StagedBytes``.
final class TeeByteSource: WrappingByteSource {
  let base: ByteSource
  let copy: StagedBytes

  init(_ base: ByteSource, into copy: StagedBytes) {
    self.base = base
    self.copy = copy
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let count = try base.read(into: buffer)
    if count > 0 { try copy.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) }
    return count
  }
}
