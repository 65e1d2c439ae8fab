#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file descriptor written with `write(2)` until every byte is out, counting the file offset.
struct FileOutput {
  let descriptor: Int32
  /// For error messages.
  let path: String
  private(set) var offset: Int64 = 0

  init(descriptor: Int32, path: String) {
    self.descriptor = descriptor
    self.path = path
  }

  mutating func write(_ bytes: [UInt8]) throws(ParquetError) {
    let failure: Int32 = bytes.withUnsafeBytes { buffer in
      var done = 0
      while done < buffer.count {
        let written = systemWrite(descriptor, buffer.baseAddress! + done, buffer.count - done)
        if written < 0 {
          if errno == EINTR { continue }
          return errno
        }
        done += written
      }
      return 0
    }
    if failure != 0 { throw .io(operation: "write", path: path, errno: failure) }
    offset += Int64(bytes.count)
  }
}

/// `write(2)`, named apart from `FileOutput.write`.
@inline(__always)
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, bytes, count)
}
