// The libFuzzer target for the JSON Lines reader: every input is read as healthport reads its own
// JSON Lines or JSON document (an input whose first non-blank byte is `{`), into an `info`
// summary. It must end in a value or a HealthPortError, never a crash, hang or sanitizer report.
//
// Inputs that would go to the XML reader instead are rejected (returning -1 keeps them out of
// the corpus), so the time goes to the hand-written JSON parser; fuzz-xml covers the rest.
//
// Built by `make fuzz` with `-sanitize=fuzzer,address -DFUZZING`; a plain build replays the
// files named on the command line instead.
import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// True when the reader would take `bytes` as JSON: its first byte after a UTF-8 byte order
/// mark and blanks is `{`.
func looksLikeJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
  var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
  while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
  return index < bytes.count && bytes[index] == UInt8(ascii: "{")
}

/// Reads one input; returns 0 as libFuzzer expects, or -1 for an input that is not JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let input = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
  guard looksLikeJSON(input) else { return -1 }
  // Half of the inputs are read in 2 to 8 chunks (chosen by the input's length, so that a replay
  // reads alike): the reader's buffering (refills in the middle of a value, the compaction of
  // consumed bytes, line counting across both) is otherwise only reached by inputs larger than
  // the 1 MiB default, far beyond what libFuzzer generates.
  var options = ReadOptions()
  if size % 2 == 1 { options.chunkSize = max(1, size / (2 + (size / 2) % 7)) }
  do {
    try ExportReader(bytes: Array(input), name: "<fuzz>", options: options).read(into: ExportSummaryCollector())
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
