// The libFuzzer target for the CSV readers: every input is written to a scratch file and read as
// healthport reads a CSV table (its own single table, or another tool's CSV, told apart by the
// header), into an `info` summary. It must end in a value or a HealthPortError, never a crash,
// hang or sanitizer report.
//
// Built by `make fuzz` with `-sanitize=fuzzer,address -DFUZZING`; a plain build replays the
// files named on the command line instead.
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

#if FUZZING
  @_silgen_name("LLVMFuzzerRunDriver")
  func runFuzzer(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
  ) -> Int32

  var argc = CommandLine.argc
  var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
  let status = runFuzzer(&argc, &argv, { fuzzOne($0, $1) })
  unlink(scratch)
  exit(status)
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
  unlink(scratch)
#endif
