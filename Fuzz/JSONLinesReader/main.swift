// The libFuzzer target for the JSON Lines reader: every input is read as healthport reads its own
// JSON Lines or JSON document (an input whose first non-blank byte is `{`), into an `info`
// summary. It must end in a value or a HealthPortError, never a crash, hang or sanitizer report.
//
// Inputs that would go to the XML reader instead are rejected (returning -1 keeps them out of
// the corpus), so the time goes to the hand-written JSON parser; fuzz-xml covers the rest.
//
// Built by `make fuzz` with `-sanitize=fuzzer,address -DFUZZING`; a plain build replays the
// files named on the command line instead.
import FuzzSupport
import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// True when the reader would take `bytes` as JSON: its first byte after a UTF-8 byte order
/// mark and blanks is `{`.
func looksLikeJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
  firstNonBlankIndex(bytes).map { bytes[$0] == UInt8(ascii: "{") } ?? false
}

/// Reads one input; returns 0 as libFuzzer expects, or -1 for an input that is not JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let input = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
  guard looksLikeJSON(input) else { return -1 }
  let options = chunkedReadOptions(size: size)
  do {
    try ExportReader(bytes: Array(input), name: "<fuzz>", options: options).read(into: ExportSummaryCollector())
  } catch is HealthPortError {
    // Expected for malformed input.
  } catch {
    fatalError("unexpected error type: \(error)")
  }
  return 0
}

exit(runFuzzTarget { fuzzOne($0, $1) })
