import Foundation
import TestSupport
import Testing

@testable import HealthPort

/// Collects what a reader hands on.
final class CollectingSink: ExportSink {
  var header: ExportHeader?
  var elements: [ExportElement] = []
  var report: ReadReport?

  func begin(_ header: ExportHeader) throws { self.header = header }
  func consume(_ element: ExportElement) throws { elements.append(element) }
  func end(_ report: ReadReport) throws { self.report = report }
}

/// Hands every event on to several sinks.
final class TeeSink: ExportSink {
  let sinks: [ExportSink]
  init(_ sinks: [ExportSink]) { self.sinks = sinks }
  func begin(_ header: ExportHeader) throws { for sink in sinks { try sink.begin(header) } }
  func consume(_ element: ExportElement) throws { for sink in sinks { try sink.consume(element) } }
  func end(_ report: ReadReport) throws { for sink in sinks { try sink.end(report) } }
}

enum CSVTestFiles {
  static let repoRoot = TestEnvironment.repoRoot
  static let realFixtures = TestEnvironment.realFixtures

  /// A fresh temporary directory.
  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("healthport-csv-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// Writes `text` to a new file in a temporary directory.
  static func file(_ text: String, name: String = "input.csv") throws -> URL {
    let url = try temporaryDirectory().appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url
  }

  /// Every real fixture export (xml/zip) and the Reyrolle fragments (wrapped in a root), plus
  /// Samples/export.xml when present: name → path of a readable export.
  static func exports() throws -> [(String, String)] {
    var result: [(String, String)] = []
    let samples = repoRoot.appendingPathComponent("Samples/export.xml")
    if FileManager.default.fileExists(atPath: samples.path) { result.append(("Samples/export.xml", samples.path)) }
    guard FileManager.default.fileExists(atPath: realFixtures.path),
      let files = FileManager.default.enumerator(at: realFixtures, includingPropertiesForKeys: nil)
    else { return result }
    let wrapped = try temporaryDirectory()
    for case let url as URL in files where ["xml", "zip"].contains(url.pathExtension) {
      let name = String(url.path.dropFirst(realFixtures.path.count + 1))
      if url.path.contains("NicolasReyrolle") {
        let body = try Data(contentsOf: url)
        var data = Data("<HealthData locale=\"en_US\">\n ".utf8)
        data.append(body)
        data.append(Data("\n</HealthData>\n".utf8))
        let target = wrapped.appendingPathComponent(url.lastPathComponent)
        try data.write(to: target)
        result.append((name, target.path))
      } else {
        result.append((name, url.path))
      }
    }
    return result.sorted { $0.0 < $1.0 }
  }
}
