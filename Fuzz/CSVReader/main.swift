// The libFuzzer target for the CSV readers: every input is written to a scratch file and read as
// healthport reads a CSV table (its own single table, or another tool's CSV, told apart by the
// header), into an `info` summary. It must end in a value or a HealthPortError, never a crash,
// hang or sanitizer report.
//
// Built by `make fuzz` with `-sanitize=fuzzer,address -DFUZZING`; a plain build replays the
// files named on the command line instead.
import FuzzSupport
import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

let scratch = "/tmp/healthport-fuzz-csv-\(getpid()).csv"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let file = fopen(scratch, "wb") else { return 0 }
  if let data, size > 0 { fwrite(data, 1, size, file) }
  fclose(file)
  var options = ReadOptions()
  options.csvDefaultType = "HKQuantityTypeIdentifierStepCount"
  do {
    try ExportReader(path: scratch, options: options).read(into: ExportSummaryCollector())
  } catch is HealthPortError {
    // Expected for malformed input.
  } catch {
    fatalError("unexpected error type: \(error)")
  }
  return 0
}

let status = runFuzzTarget { fuzzOne($0, $1) }
unlink(scratch)
exit(status)
