// The libFuzzer target for the parallel reader (issue 16): every input is read with one parser
// and with four on ranges of 64 bytes, and both reads must give the same header, elements and
// report, or the same first error; and so must `info`'s summary, whose Records the four
// parsers tally per range instead of building them. A difference traps (a crash for libFuzzer
// to keep).
//
// Built by `make fuzz` with `-sanitize=fuzzer,address -DFUZZING`; a plain build replays the
// files named on the command line.
import FuzzSupport
import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// What a read showed its sink, as text.
final class TranscriptSink: ExportSink {
  var lines: [String] = []
  func begin(_ header: ExportHeader) throws { lines.append("header \(header)") }
  func consume(_ element: ExportElement) throws { lines.append("\(element)") }
  func end(_ report: ReadReport) throws {
    lines.append(
      "report \(report.warnings) \(report.documentBytes) \(String(describing: report.firstControlCharacterOffset))")
  }
}

/// `threads` parsers on ranges of 64 bytes (one: the sequential reader).
func options(threads: Int) -> ReadOptions {
  var options = ReadOptions()
  options.concurrent = threads > 1
  options.threads = threads
  options.rangeSize = 64
  return options
}

func transcript(_ bytes: [UInt8], threads: Int) -> [String] {
  let sink = TranscriptSink()
  do {
    try ExportReader(bytes: bytes, name: "<fuzz>", options: options(threads: threads)).read(into: sink)
  } catch let error as HealthPortError {
    sink.lines.append("error \(error)")
  } catch {
    fatalError("unexpected error type: \(error)")
  }
  return sink.lines
}

/// `info`'s summary of a read, as text (tables sorted: a dictionary's order is its own), or its
/// first error.
func summary(_ bytes: [UInt8], threads: Int) -> String {
  let collector = ExportSummaryCollector()
  do {
    let report = try ExportReader(bytes: bytes, name: "<fuzz>", options: options(threads: threads)).read(
      into: collector)
    let s = collector.summary
    func sorted<Value>(_ table: [String: Value]) -> String {
      table.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }
    return [
      "records \(s.recordCount) \(String(describing: s.firstDate)) \(String(describing: s.lastDate))",
      "types \(sorted(s.recordsByType))", "units \(sorted(s.unitsByType.mapValues { $0.sorted() }))",
      "sources \(s.sources.map { "\($0.name)|\($0.product ?? "-")|\($0.records)" })",
      "elements \(sorted(s.elementCounts))", "workouts \(s.workoutCount) \(sorted(s.workoutsByActivity))",
      "others \(s.correlationCount) \(s.correlationRecordCount) \(s.activitySummaryCount) \(s.exportDate ?? "-")",
      "warnings \(s.warnings) \(report.documentBytes)",
    ].joined(separator: "\n")
  } catch let error as HealthPortError {
    return "error \(error)"
  } catch {
    fatalError("unexpected error type: \(error)")
  }
}

/// Reads one input both ways; returns 0 as libFuzzer expects.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  let one = transcript(bytes, threads: 1)
  let four = transcript(bytes, threads: 4)
  if one != four {
    let first = zip(one, four).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(one.count, four.count)
    fatalError(
      "one parser and four differ at line \(first) of \(one.count) and \(four.count):\n"
        + "\(first < one.count ? one[first] : "(end)")\n\(first < four.count ? four[first] : "(end)")")
  }
  let oneSummary = summary(bytes, threads: 1)
  let fourSummary = summary(bytes, threads: 4)
  if oneSummary != fourSummary {
    fatalError("info's summary with one parser and with four differ:\n\(oneSummary)\n--\n\(fourSummary)")
  }
  return 0
}

exit(runFuzzTarget { fuzzOne($0, $1) })
