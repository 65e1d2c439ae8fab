import Foundation
import FoundationXML

/// Counts an export's elements with Foundation's XMLParser, a code path independent of
/// healthport's reader, to give tests their expected values.
final class IndependentCount: NSObject, XMLParserDelegate {
  var elementCounts: [String: Int] = [:]
  var topLevelRecordsByType: [String: Int] = [:]
  var workoutsByActivity: [String: Int] = [:]
  var topLevelRecords = 0
  var correlationRecords = 0
  private var path: [String] = []

  /// Counts the XML document `data` (its DOCTYPE removed first: Foundation would choke on iOS 16's).
  static func count(_ data: Data) -> IndependentCount {
    var bytes = [UInt8](data)
    if let start = bytes.firstRange(of: Array("<!DOCTYPE".utf8)),
      let end = bytes[start.upperBound...].firstRange(of: Array("]>".utf8))
    {
      bytes.removeSubrange(start.lowerBound..<end.upperBound)
    }
    let counter = IndependentCount()
    let parser = XMLParser(data: Data(bytes))
    parser.delegate = counter
    _ = parser.parse()
    return counter
  }

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String]
  ) {
    elementCounts[name, default: 0] += 1
    if path.count == 1, name == "Record" {
      topLevelRecords += 1
      topLevelRecordsByType[attributes["type"] ?? "", default: 0] += 1
    }
    if path.count == 2, name == "Record", path.last == "Correlation" { correlationRecords += 1 }
    if path.count == 1, name == "Workout" {
      workoutsByActivity[attributes["workoutActivityType"] ?? "", default: 0] += 1
    }
    path.append(name)
  }

  func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
    path.removeLast()
  }

  /// Top-level Records closed in `data`, a document cut short: counted on the text, line by line,
  /// for the Health app's layout (one space before top-level elements).
  static func topLevelRecordsClosed(in data: Data) -> Int {
    let text = String(decoding: data, as: UTF8.self)
    var count = 0
    var open = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix(" <Record ") {
        if line.hasSuffix("/>") { count += 1 } else if line.hasSuffix(">") { open = true }
      } else if line == " </Record>" && open {
        count += 1
        open = false
      }
    }
    return count
  }
}
