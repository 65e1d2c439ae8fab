// The libFuzzer target for the XML reader: every input is read as an export, as `healthport info`
// would, and must end in a value or a HealthPortError, never a crash, hang or sanitizer report.
//
// Built by `make fuzz` with `-sanitize=fuzzer,address -DFUZZING`: libFuzzer drives
// `fuzzOne`. A plain build replays the files named on the command line instead (used to check
// reproducers and seeds).
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

#if FUZZING
  @_silgen_name("LLVMFuzzerRunDriver")
  func runFuzzer(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
  ) -> Int32

  var argc = CommandLine.argc
  var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
  exit(runFuzzer(&argc, &argv, { fuzzOne($0, $1) }))
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
#endif
