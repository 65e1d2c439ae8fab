// The libFuzzer target for the GPX reader: every input is read as healthport reads a workout
// route given on its own (a document whose root is `gpx`, a bundle of one side file), into the
// JSON Lines writer (its `route` and point lines, thrown away), which takes side files where an
// `info` summary does not. It must end in a value or a HealthPortError, never a crash, hang or
// sanitizer report.
//
// Inputs that would not reach the GPX reader (no `<gpx` in the head the recogniser reads) are
// rejected (returning -1 keeps them out of the corpus); fuzz-xml covers the rest.
//
// Built by `make fuzz` with `-sanitize=fuzzer,address -DFUZZING`; a plain build replays the
// files named on the command line instead.
import FuzzSupport
import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// True when `bytes` may be taken as GPX: its first byte after a UTF-8 byte order mark and blanks
/// is `<`, and `<gpx` comes in its first 64 KiB.
func mayBeGPX(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
  guard let index = firstNonBlankIndex(bytes), bytes[index] == UInt8(ascii: "<") else { return false }
  let head = bytes[index..<min(bytes.count, index + (64 << 10))]
  let tag = Array("<gpx".utf8)
  return head.indices.contains { head[$0...].starts(with: tag) }
}

/// Reads one input; returns 0 as libFuzzer expects, or -1 for an input that is not GPX.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let input = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
  guard mayBeGPX(input) else { return -1 }
  let options = chunkedReadOptions(size: size)
  let writer = JSONLinesWriter(output: OutputStream(name: "<fuzz>", consumer: { _ in }))
  do {
    try ExportReader(bytes: Array(input), name: "route_fuzz.gpx", options: options).read(into: writer)
  } catch is HealthPortError {
    // Expected for malformed input.
  } catch {
    fatalError("unexpected error type: \(error)")
  }
  return 0
}

exit(runFuzzTarget { fuzzOne($0, $1) })
