import Foundation
import Testing

@testable import HealthPort

/// The formats are listed once, in ``FormatRegistry/standard``: each input format is recognised
/// by one entry, and the recogniser asks that list, in its order.
@Suite("One list of formats")
struct FormatRegistryTests {
  @Test("every format an input is reported as has exactly one entry, XML asked last")
  func inputsListedOnce() {
    let registry = FormatRegistry.standard
    let read = registry.streamInputs.map(\.format) + registry.folderInputs.map(\.format)
    #expect(read.count == Set(read).count)
    // `json` too is read by the `jsonl` entry, whose reader tells a document from lines itself.
    #expect(Set(read) == [.xml, .zip, .folder, .csv, .csvSplit, .jsonl, .gpx, .ecg])
    #expect(registry.streamInputs.map(\.format) == [.zip, .ecg, .csv, .jsonl, .gpx, .xml])
    #expect(registry.folderInputs.map(\.format) == [.csvSplit, .folder])
    #expect(registry.outputNames == ["csv", "jsonl", "json", "xml", "zip"])
  }

  @Test("a folder without a --split table is taken as an export folder, which must hold an export")
  func folders() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(InputRecognizer.folderFormat(of: folder.path).format == .folder)
    #expect(InputRecognizer.format(ofPath: folder.path) == .folder)
    #expect(throws: HealthPortError.self) { try InputRecognizer.open(folder.path) }
  }
}
