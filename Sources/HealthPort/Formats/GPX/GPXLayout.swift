/// A route file in the Health app's exact GPX layout: the XML declaration, the
/// `gpx` start tag, `metadata/time`, `trk/name`, one `trkpt` a line (`lon` before `lat`, `ele`,
/// `time`, the `extensions`), two-space indentation, no line feed after `</gpx>`. The writer
/// renders with it, and `GPXLayoutCheck` tells whether a file read is exactly this rendering.
/// `routes --to gpx` writes its tracks from the same pieces (``writeRoutes(_:_:to:)``).
package enum GPXLayout {
  static func head(name: String?, metadataTime: String?) -> [UInt8] {
    var out = documentStart(creator: "Apple Health Export", schemaLocation: true)
    if let metadataTime {
      out += Array("  <metadata>\n    <time>".utf8)
      appendText(metadataTime, to: &out)
      out += Array("</time>\n  </metadata>\n".utf8)
    }
    appendTrackStart(name: name, to: &out)
    out += segmentStart
    return out
  }

  static let tail = segmentEnd + trackEnd + documentEnd

  /// The XML declaration and the `gpx` start tag, each on its line; Apple's names the schema's
  /// location too.
  static func documentStart(creator: String, schemaLocation: Bool) -> [UInt8] {
    let namespace = "http://www.topografix.com/GPX/1/1"
    var text =
      #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n" + #"<gpx version="1.1" creator=""# + creator
      + #"" xmlns=""# + namespace + "\""
    if schemaLocation {
      text +=
        #" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation=""# + namespace + " "
        + namespace + #"/gpx.xsd""#
    }
    return Array((text + ">\n").utf8)
  }

  /// `<trk>` and its `<name>`, each on its line. Apple's files escape the name as every text
  /// (``appendText(_:to:onlyAmpersandAndLessThan:)``); `routes --to gpx` has always escaped only
  /// `&` and `<`, what XML requires in text.
  static func appendTrackStart(name: String?, onlyAmpersandAndLessThan: Bool = false, to out: inout [UInt8]) {
    out += Array("  <trk>\n".utf8)
    guard let name else { return }
    out += Array("    <name>".utf8)
    appendText(name, to: &out, onlyAmpersandAndLessThan: onlyAmpersandAndLessThan)
    out += Array("</name>\n".utf8)
  }

  /// A segment's start tag, after its track's lines; its first point starts a new line.
  static let segmentStart = Array("    <trkseg>".utf8)
  /// A line feed after the last point, and the segment's end tag on its line.
  static let segmentEnd = Array("\n    </trkseg>\n".utf8)
  static let trackEnd = Array("  </trk>\n".utf8)
  /// Without a line feed: Apple's files end there.
  static let documentEnd = Array("</gpx>".utf8)

  /// A line feed, six spaces and the point's `trkpt` element, its texts escaped.
  package static func appendPoint(_ point: RoutePoint, to out: inout [UInt8]) {
    out += Array("\n      <trkpt lon=\"".utf8)
    appendText(point.longitude, to: &out)
    out += Array("\" lat=\"".utf8)
    appendText(point.latitude, to: &out)
    out += Array("\">".utf8)
    element("ele", point.elevation, to: &out)
    element("time", point.time, to: &out)
    if point.speed != nil || point.course != nil || point.horizontalAccuracy != nil || point.verticalAccuracy != nil {
      out += Array("<extensions>".utf8)
      element("speed", point.speed, to: &out)
      element("course", point.course, to: &out)
      element("hAcc", point.horizontalAccuracy, to: &out)
      element("vAcc", point.verticalAccuracy, to: &out)
      out += Array("</extensions>".utf8)
    }
    out += Array("</trkpt>".utf8)
  }

  private static func element(_ name: StaticString, _ value: String?, to out: inout [UInt8]) {
    guard let value else { return }
    out.append(UInt8(ascii: "<"))
    out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    out.append(UInt8(ascii: ">"))
    appendText(value, to: &out)
    out += [UInt8(ascii: "<"), UInt8(ascii: "/")]
    out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    out.append(UInt8(ascii: ">"))
  }

  /// Text and attribute values: `&`, `<`, `>` and `"` escaped, the rest as it is; `&` and `<`
  /// alone with `onlyAmpersandAndLessThan`.
  private static func appendText(_ text: String, to out: inout [UInt8], onlyAmpersandAndLessThan: Bool = false) {
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "&"): out += Array("&amp;".utf8)
      case UInt8(ascii: "<"): out += Array("&lt;".utf8)
      case UInt8(ascii: ">") where !onlyAmpersandAndLessThan: out += Array("&gt;".utf8)
      case UInt8(ascii: "\"") where !onlyAmpersandAndLessThan: out += Array("&quot;".utf8)
      default: out.append(byte)
      }
    }
  }
}

/// Compares a GPX file's bytes, as they are read, with ``GPXLayout``'s rendering of what was
/// parsed from them, in flat memory: the bytes are held only until the points they hold are
/// parsed (the parser runs on the reading thread for this). A file that is not exactly Apple's
/// layout (another header, indentation, a trailing line feed, elements Apple does not write)
/// fails, and its raw bytes are then kept beside its points.
final class GPXLayoutCheck {
  private var raw: [UInt8] = []
  private var start = 0
  private var headDone = false
  private var scratch: [UInt8] = []
  private(set) var matches = true
  /// More bytes than this waiting for a point means the file is not in the layout.
  private let limit = 8 << 20

  func feed(_ bytes: UnsafeRawBufferPointer) {
    guard matches else { return }
    if start > 1 << 20 {
      raw.removeSubrange(0..<start)
      start = 0
    }
    raw.append(contentsOf: bytes)
    if raw.count - start > limit { fail() }
  }

  func point(_ point: RoutePoint, header: GPXReader.Header) {
    guard matches else { return }
    head(header)
    scratch.removeAll(keepingCapacity: true)
    GPXLayout.appendPoint(point, to: &scratch)
    expect(scratch)
  }

  /// At the end of the file: whether every byte was the layout's (``matches`` tells it after).
  @discardableResult
  func finish(header: GPXReader.Header) -> Bool {
    head(header)
    expect(GPXLayout.tail)
    if start != raw.count { fail() }
    return matches
  }

  private func head(_ header: GPXReader.Header) {
    guard !headDone else { return }
    headDone = true
    expect(GPXLayout.head(name: header.name, metadataTime: header.metadataTime))
  }

  private func expect(_ rendered: [UInt8]) {
    guard matches else { return }
    guard raw.count - start >= rendered.count, raw[start..<(start + rendered.count)].elementsEqual(rendered) else {
      return fail()
    }
    start += rendered.count
  }

  private func fail() {
    matches = false
    raw = []
    start = 0
  }
}
