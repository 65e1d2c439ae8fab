// The libFuzzer target for the XML reader: every input is read as an export, as `healthport info`
// would, and must end in a value or a HealthPortError, never a crash, hang or sanitizer report.
//
// Built by `make fuzz` with `-sanitize=fuzzer,address -DFUZZING`: libFuzzer drives
// `fuzzOne`. A plain build replays the files named on the command line instead (used to check
// reproducers and seeds).
import FuzzSupport
import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// Reads one input; returns 0 as libFuzzer expects.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  let collector = ExportSummaryCollector()
  do {
    try ExportReader(bytes: bytes, name: "<fuzz>").read(into: collector)
  } catch is HealthPortError {
    // Expected for malformed input.
  } catch {
    fatalError("unexpected error type: \(error)")
  }
  return 0
}

exit(runFuzzTarget { fuzzOne($0, $1) })
