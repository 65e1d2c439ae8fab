import XMLStream

#if canImport(Glibc)
  import Glibc
#endif

/// Reads a GPX 1.1 route file as Apple writes it through libxml2's SAX2 push
/// parser, streaming: `trkpt` `lat`/`lon`, `ele`, `time`, and the `extensions` `speed`, `course`,
/// `hAcc`, `vAcc`. Points go to `onPoints` in batches of ``SideFileEvent/batchSize``, so a
/// route of any length stays in flat memory. Problems are `path:line:col: error: …`.
struct GPXReader {
  let options: ReadOptions

  /// What the file says about itself, complete once the first point (or the end) is read.
  struct Header {
    var name: String?
    var metadataTime: String?
  }

  /// Reads `source`; `onPoints` gets each batch with the header read so far (complete: Apple
  /// writes `metadata` and `trk/name` before the points). Returns the number of points.
  /// With `check`, the file's bytes are compared with Apple's layout as they are parsed (see
  /// ``GPXLayoutCheck``); the parser then runs on this thread.
  @discardableResult
  func read(
    _ source: ByteSource, check: GPXLayoutCheck? = nil, onPoints: @escaping (Header, [RoutePoint]) throws -> Void
  ) throws -> Int {
    let handler = GPXEventHandler(onPoints: onPoints)
    handler.check = check
    let parser = XMLPushParser(
      documentName: source.displayName, handler: handler, concurrent: options.concurrent && check == nil)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: min(options.chunkSize, 64 << 10), alignment: 64)
    defer { buffer.deallocate() }
    do {
      defer { parser.waitForHandler() }
      while true {
        let count = try source.read(into: buffer)
        if count == 0 { break }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
        check?.feed(bytes)
        try parser.feed(bytes)
      }
      try parser.finish()
      try handler.flush()
      if let check { _ = check.finish(header: handler.header) }
    } catch let error as XMLStreamError {
      throw error.readerError
    }
    return handler.pointCount
  }

  /// Recognised by its root element, `gpx`.
  static func recognise(_ head: InputHead) -> InputHead.Recognition {
    guard let first = head.firstNonBlankByte else { return head.undecided }
    guard first == UInt8(ascii: "<") else { return .no }
    switch XMLRootSniffer.sniff(Array(head.bytes[head.textStart...])) {
    case .root(let name): return name == "gpx" ? .yes : .no
    case .notXML: return .no
    case .needMore: return head.undecided
    }
  }
}

/// The SAX handler behind ``GPXReader``: a small state machine over the elements Apple writes;
/// other elements are checked for well-formedness and passed over.
private final class GPXEventHandler: XMLEventHandler {
  private enum Field { case elevation, time, speed, course, horizontalAccuracy, verticalAccuracy, name, metadataTime }

  let onPoints: (GPXReader.Header, [RoutePoint]) throws -> Void
  var check: GPXLayoutCheck?
  private(set) var header = GPXReader.Header()
  private var batch: [RoutePoint] = []
  private(set) var pointCount = 0
  private var depth = 0
  private var inMetadata = false
  private var inTrack = false
  /// The `trkpt` being read (when `inPoint`), filled in place.
  private var point = RoutePoint(latitude: "", longitude: "")
  private var inPoint = false
  private var field: Field?
  private var text: [UInt8] = []

  init(onPoints: @escaping (GPXReader.Header, [RoutePoint]) throws -> Void) {
    self.onPoints = onPoints
    batch.reserveCapacity(SideFileEvent.batchSize)
  }

  func startElement(_ name: XMLBytes, attributes: XMLAttributes) throws {
    depth += 1
    let name = name.buffer
    if depth == 1 {
      guard Self.equals(name, "gpx") else {
        throw ExportDataError(
          message: "not a GPX route: the root element is <\(String(decoding: name, as: UTF8.self))>, expected <gpx>")
      }
      return
    }
    field = nil
    if inPoint {
      switch depth {
      case 5: field = Self.equals(name, "ele") ? .elevation : Self.equals(name, "time") ? .time : nil
      case 6:
        switch name.count {
        case 5 where Self.equals(name, "speed"): field = .speed
        case 6 where Self.equals(name, "course"): field = .course
        case 4:
          field = Self.equals(name, "hAcc") ? .horizontalAccuracy : Self.equals(name, "vAcc") ? .verticalAccuracy : nil
        default: break
        }
      default: break
      }
    } else if depth == 4, inTrack, Self.equals(name, "trkpt") {
      point = try Self.point(attributes)
      inPoint = true
    } else if depth == 2 {
      inMetadata = Self.equals(name, "metadata")
      inTrack = Self.equals(name, "trk")
    } else if depth == 3, inMetadata, Self.equals(name, "time") {
      field = .metadataTime
    } else if depth == 3, inTrack, Self.equals(name, "name") {
      field = .name
    }
    if !text.isEmpty { text.removeAll(keepingCapacity: true) }
  }

  func endElement(_ name: XMLBytes) throws {
    defer { depth -= 1 }
    if let field {
      self.field = nil
      try store(field)
    } else if depth == 4, inPoint {
      inPoint = false
      pointCount += 1
      var done = RoutePoint(latitude: "", longitude: "")
      swap(&done, &point)
      check?.point(done, header: header)
      batch.append(done)
      if batch.count == SideFileEvent.batchSize { try flush() }
    }
  }

  func text(_ bytes: XMLBytes) throws {
    guard let field else { return }
    // Checked before the piece is kept: a text over the cap is never held.
    if text.count + bytes.buffer.count > Self.maximumTextBytes { throw Self.overCap(field) }
    text.append(contentsOf: bytes.buffer)
  }

  /// White space over the cap, which the parser counted and did not keep.
  func overlongBlanks(_ count: Int) throws {
    guard let field else { return }
    throw Self.overCap(field)
  }

  private static func overCap(_ field: Field) -> ExportDataError {
    ExportDataError(
      message: "the text of <\(elementName(field))> is over \(maximumTextBytes >> 20) MiB (healthport's limit)")
  }

  /// The most text one GPX element may hold, in bytes (docs/errors.md).
  static let maximumTextBytes = 16 << 20

  /// Hands on the points read since the last batch (also at the end, with none when the route
  /// is empty and nothing was handed on yet).
  func flush() throws {
    guard !batch.isEmpty || pointCount == 0 else { return }
    try onPoints(header, batch)
    batch.removeAll(keepingCapacity: true)
  }

  /// A name against an ASCII literal, byte for byte.
  @inline(__always)
  private static func equals(_ name: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
    name.count == literal.utf8CodeUnitCount && memcmp(name.baseAddress!, literal.utf8Start, name.count) == 0
  }

  private func store(_ field: Field) throws {
    defer { text.removeAll(keepingCapacity: true) }
    let value = String(decoding: text, as: UTF8.self)
    switch field {
    case .name: header.name = value
    case .metadataTime: header.metadataTime = value
    case .time:
      guard text.withUnsafeBytes({ HealthDate.flexible($0) }) != nil else {
        throw ExportDataError(message: "the point's time '\(value)' is not an ISO 8601 date")
      }
      point.time = value
    default:
      guard GPXNumber.isDecimal(text) else {
        throw ExportDataError(message: "the point's \(Self.elementName(field)) '\(value)' is not a number")
      }
      switch field {
      case .elevation: point.elevation = value
      case .speed: point.speed = value
      case .course: point.course = value
      case .horizontalAccuracy: point.horizontalAccuracy = value
      case .verticalAccuracy: point.verticalAccuracy = value
      default: break
      }
    }
  }

  private static func elementName(_ field: Field) -> String {
    switch field {
    case .elevation: "ele"
    case .speed: "speed"
    case .course: "course"
    case .horizontalAccuracy: "hAcc"
    case .verticalAccuracy: "vAcc"
    case .time, .metadataTime: "time"
    case .name: "name"
    }
  }

  /// A point from a `trkpt`'s `lat` and `lon`, both required and in range.
  private static func point(_ attributes: XMLAttributes) throws -> RoutePoint {
    var latitude: String?
    var longitude: String?
    for index in 0..<attributes.count {
      let name = attributes.name(at: index).buffer
      if equals(name, "lat") {
        latitude = try coordinate(attributes.value(at: index).buffer, "lat", limit: 90)
      } else if equals(name, "lon") {
        longitude = try coordinate(attributes.value(at: index).buffer, "lon", limit: 180)
      }
    }
    guard let latitude, let longitude else {
      throw ExportDataError(message: "a <trkpt> without \(latitude == nil ? "lat" : "lon")")
    }
    return RoutePoint(latitude: latitude, longitude: longitude)
  }

  private static func coordinate(_ bytes: UnsafeBufferPointer<UInt8>, _ name: String, limit: Int) throws -> String {
    let text = String(decoding: bytes, as: UTF8.self)
    guard GPXNumber.isDecimal(bytes),
      GPXNumber.isWithin(bytes, limit: limit) ?? Double(text).map({ abs($0) <= Double(limit) }) ?? false
    else {
      throw ExportDataError(message: "the <trkpt> \(name) '\(text)' is not a number from -\(limit) to \(limit)")
    }
    return text
  }
}

/// The number syntax of GPX's `xsd:decimal` (and Apple's `%f`): an optional sign, digits, and an
/// optional fraction; an exponent is tolerated.
enum GPXNumber {
  /// Whether decimal text of the plain form (`-`, one to three digits, a fraction) is within
  /// `±limit`, as `Double(text)` would tell it; nil for any other form, or when rounding could
  /// decide (just over the limit), for the caller to parse.
  @inline(__always)
  static func isWithin(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> Bool? {
    var index = 0
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
    var whole = 0
    let wholeStart = index
    while index < bytes.count, bytes[index] &- 0x30 < 10, index - wholeStart < 3 {
      whole = whole * 10 + Int(bytes[index] &- 0x30)
      index += 1
    }
    guard index > wholeStart else { return nil }
    var zeroFraction = true
    if index < bytes.count {
      guard bytes[index] == UInt8(ascii: "."), index + 1 < bytes.count else { return nil }
      index += 1
      while index < bytes.count {
        let digit = bytes[index] &- 0x30
        guard digit < 10 else { return nil }
        if digit != 0 { zeroFraction = false }
        index += 1
      }
    }
    if whole < limit { return true }
    if whole > limit { return false }
    return zeroFraction ? true : nil
  }

  static func isDecimal<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
    var digits = 0
    var index = bytes.startIndex
    if index != bytes.endIndex, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
      index = bytes.index(after: index)
    }
    var seenPoint = false
    while index != bytes.endIndex {
      let byte = bytes[index]
      if byte >= 0x30 && byte <= 0x39 {
        digits += 1
      } else if byte == UInt8(ascii: "."), !seenPoint {
        seenPoint = true
      } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E"), digits > 0 {
        let rest = bytes[bytes.index(after: index)...]
        return !rest.isEmpty && !rest.contains(UInt8(ascii: ".")) && isDecimal(rest)
      } else {
        return false
      }
      index = bytes.index(after: index)
    }
    return digits > 0
  }
}
