import Foundation
import TestSupport
import Testing

@testable import HealthPort

/// `xml → csv --split → model` must give back the very elements the XML reader produced, for
/// every real fixture and the generated sample; the single table must hold one row per
/// top-level Record.
struct CSVRoundTripTests {
  static let exports: [(String, String)] = (try? CSVTestFiles.exports()) ?? []

  static var exportNames: [String] { exports.map(\.0) }

  static func path(_ name: String) -> String { exports.first { $0.0 == name }!.1 }

  @Test("the fixtures are present", .needsRealFixtures)
  func fixturesPresent() {
    #expect(Self.exports.count >= 10)
  }

  @Test("split CSV reads back to the same elements", arguments: exportNames)
  func splitRoundTrip(name: String) throws {
    let original = CollectingSink()
    let output = try CSVTestFiles.temporaryDirectory().appendingPathComponent("split")
    let writer = try CSVSplitWriter(directory: output.path)
    try ExportReader(path: Self.path(name)).read(into: TeeSink([original, writer]))

    #expect(CSVInput.detect(path: output.path) == .splitFolder)
    let back = CollectingSink()
    try ExportReader(path: output.path).read(into: back)
    #expect(back.header == original.header)
    #expect(back.elements.count == original.elements.count)
    for (index, (a, b)) in zip(original.elements, back.elements).enumerated() where a != b {
      Issue.record("element \(index) differs:\n\(a)\n\(b)")
      break
    }
    #expect(back.elements == original.elements)
    // No temporary folder is left beside the output.
    let siblings = try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path)
    #expect(siblings == ["split"])
  }

  @Test("the single table has one row per top-level Record", arguments: exportNames)
  func singleTable(name: String) throws {
    let output = try CSVTestFiles.temporaryDirectory().appendingPathComponent("records.csv")
    let stream = try OutputStream(path: output.path)
    let writer = CSVRecordsWriter(output: stream)
    let original = CollectingSink()
    try ExportReader(path: Self.path(name)).read(into: TeeSink([original, writer]))
    try stream.commit()

    let expected = try Self.independentTopLevelRecordCount(Self.path(name))
    #expect(writer.rowCount == expected)
    let records = original.elements.compactMap { element -> Record? in
      if case .record(let record) = element { record } else { nil }
    }
    #expect(records.count == expected)

    // Read back: the same Records, without the parts the single table leaves out.
    let back = CollectingSink()
    try ExportReader(path: output.path).read(into: back)
    #expect(back.report?.format == .csv)
    let expectedRecords = records.map { record -> Record in
      var copy = record
      copy.extraAttributes = []
      copy.children = RecordChildren(
        record.children.filter { if case .metadata = $0 { true } else { false } }
          .map { child -> Record.Child in
            if case .metadata(var entry) = child {
              entry.extraAttributes = []
              entry.extraChildren = []
              return .metadata(entry)
            }
            return child
          })
      return copy
    }
    #expect(back.elements == expectedRecords.map { .record($0) })
  }

  /// Top-level Records counted by Python's expat (an independent parser), after dropping the
  /// prolog (some DTDs are malformed) and vertical tabs (which XML forbids and some exports hold).
  static func independentTopLevelRecordCount(_ path: String) throws -> Int {
    let script = """
      import sys, zipfile, xml.parsers.expat
      path = sys.argv[1]
      data = open(path, 'rb').read()
      if data[:2] == b'PK':
          z = zipfile.ZipFile(path)
          for n in z.namelist():
              b = z.read(n)
              if b'<HealthData' in b[:1 << 20] and not n.startswith('__MACOSX'):
                  data = b
                  break
      data = data[data.index(b'<HealthData'):].replace(b'\\x0b', b'')
      depth = 0
      records = 0
      def start(name, attrs):
          global depth, records
          depth += 1
          if depth == 2 and name == 'Record':
              records += 1
      def end(name):
          global depth
          depth -= 1
      p = xml.parsers.expat.ParserCreate()
      p.StartElementHandler = start
      p.EndElementHandler = end
      p.Parse(data, True)
      print(records)
      """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return try #require(Int(text), "python3 could not count the Records of \(path)")
  }
}
