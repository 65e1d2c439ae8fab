// The libFuzzer target for the ECG reader: every input is read as healthport reads an ECG
// recording given on its own (a `Name` line, then `Recorded Date,` or `Sample Rate,` among the
// first lines: a bundle of one side file), into the JSON Lines writer (its `ecg` and sample
// lines, thrown away), which takes side files where an `info` summary does not. It must end in
// a value or a HealthPortError, never a crash, hang or sanitizer report.
//
// Inputs that the recogniser would give to another reader are rejected (returning -1 keeps them
// out of the corpus); fuzz-csv covers CSV.
//
// Built by `make fuzz` with `-sanitize=fuzzer,address -DFUZZING`; a plain build replays the
// files named on the command line instead.
import FuzzSupport
import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// True when `bytes` may be taken as an ECG recording: after a UTF-8 byte order mark, a first
/// line `Name` or `Name,…`, and a `Recorded Date,` or `Sample Rate,` line in the first 4 KiB.
func mayBeECG(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
  let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
  let head = bytes[start..<min(bytes.count, start + 4096)]
  guard head.starts(with: "Name".utf8) else { return false }
  let text = String(decoding: head, as: UTF8.self)
  return text.contains("\nRecorded Date,") || text.contains("\nSample Rate,")
}

/// Reads one input; returns 0 as libFuzzer expects, or -1 for an input that is not an ECG.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let input = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
  guard mayBeECG(input) else { return -1 }
  var options = ReadOptions()
  // Every other input skips invalid recordings: both paths of a bad sample are taken.
  if size % 2 == 1 { options.skipInvalid = true }
  let writer = JSONLinesWriter(output: OutputStream(name: "<fuzz>", consumer: { _ in }))
  do {
    try ExportReader(bytes: Array(input), name: "ecg_fuzz.csv", options: options).read(into: writer)
  } catch is HealthPortError {
    // Expected for malformed input.
  } catch {
    fatalError("unexpected error type: \(error)")
  }
  return 0
}

exit(runFuzzTarget { fuzzOne($0, $1) })
