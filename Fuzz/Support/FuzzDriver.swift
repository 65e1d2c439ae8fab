// What the six libFuzzer targets share: the driver (libFuzzer under `make fuzz`, a replay of files
// otherwise), the chunked reads half of the inputs get, and where an input's text starts.
import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// A target's `LLVMFuzzerTestOneInput`: reads one input and returns 0, or -1 to keep an input
/// that is not for this target out of the corpus.
public typealias FuzzInputHandler = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

#if FUZZING
  @_silgen_name("LLVMFuzzerRunDriver")
  func runFuzzer(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: FuzzInputHandler
  ) -> Int32
#endif

/// Runs a fuzz target and returns its exit status. Built by `make fuzz` with
/// `-sanitize=fuzzer,address -DFUZZING`, libFuzzer drives `fuzzOne` with the command line's
/// options and corpus. A plain build instead gives `fuzzOne` each file named on the command line,
/// whole (to check reproducers and seeds), and returns 0.
public func runFuzzTarget(_ fuzzOne: FuzzInputHandler) -> Int32 {
  #if FUZZING
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    return runFuzzer(&argc, &argv, fuzzOne)
  #else
    for path in CommandLine.arguments.dropFirst() {
      guard let file = fopen(path, "rb") else { continue }
      var bytes: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count <= 0 { break }
        bytes += chunk[0..<count]
      }
      fclose(file)
      _ = bytes.withUnsafeBufferPointer { fuzzOne($0.baseAddress, $0.count) }
    }
    return 0
  #endif
}

/// The read options for an input of `size` bytes: half of the inputs (the odd sizes) are read in
/// 2 to 8 chunks, chosen by the length so that a replay reads alike, which splits text,
/// attributes and tags across the parser's pushes. Without it the reader's buffering (refills in
/// the middle of a value, compaction of consumed bytes, line counting across both) is only
/// reached by inputs larger than the 1 MiB default, far beyond what libFuzzer generates.
public func chunkedReadOptions(size: Int) -> ReadOptions {
  var options = ReadOptions()
  if size % 2 == 1 { options.chunkSize = max(1, size / (2 + (size / 2) % 7)) }
  return options
}

/// The index of the first byte after a UTF-8 byte order mark and any spaces, tabs and line
/// breaks; nil when there is none.
public func firstNonBlankIndex(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
  var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
  while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
  return index < bytes.count ? index : nil
}
