import Foundation

/// The bundle's lines after the elements (``JSONSideFileLines``), handed to the sink as the
/// bundle reader would: side-file events when it has ``SinkCapabilities/sideFiles``, member events
/// when it has ``SinkCapabilities/bundleMembers``; skipped unread otherwise.
extension JSONLinesReader {
  /// True when the object at `position` is a `{"kind":…}` line (not an element).
  func isKindLine(_ b: UnsafeBufferPointer<UInt8>, at position: Int) -> Bool {
    var p = position + 1
    JSONScanner.skipBlank(b, &p)
    let key = Array(#""kind""#.utf8)
    return p + key.count <= b.count && b[p..<(p + key.count)].elementsEqual(key)
  }

  func parseKindLine(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int, into sink: ExportSink) throws {
    var fields: [String: Int] = [:]
    let start = p
    var kind = ""
    try JSONScanner.object(b, &p) { key, p in
      fields[key] = p
      if key == "kind" { kind = try JSONScanner.string(b, &p) } else { try JSONScanner.skip(b, &p, scratch: &keyBytes) }
    }
    let end = p
    func at(_ key: String) -> Int? { fields[key] }
    func string(_ key: String) throws -> String? {
      guard var q = at(key) else { return nil }
      return try JSONScanner.attributeValue(b, &q)
    }
    func integer(_ key: String) throws -> Int? { try string(key).flatMap { Int($0) } }
    func required(_ key: String) throws -> String {
      guard let value = try string(key) else { throw JSONSyntaxError(start, "a \"\(kind)\" line without \"\(key)\"") }
      return value
    }
    /// A member's or side file's path: a NUL (`\u0000`) would cut it short as a file name.
    func path() throws -> String {
      let value = try required("path")
      guard !value.utf8.contains(0) else {
        throw JSONSyntaxError(start, "a \"\(kind)\" line whose \"path\" holds a NUL (\\u0000), which no file name can")
      }
      return value
    }
    let sides = sink.capabilities.contains(.sideFiles)
    let members = sink.capabilities.contains(.bundleMembers)
    switch kind {
    case "member" where members:
      guard let kindName = try string("type"), let type = BundleMember.Kind(rawValue: kindName) else {
        throw JSONSyntaxError(start, "a \"member\" line without a known \"type\"")
      }
      let member = BundleMember(
        index: try integer("index") ?? 0, path: try path(), kind: type,
        modified: try integer("modified").map(Int64.init))
      try sink.consumeBundleEvent(.member(member))
    case "memberEnd" where members: try sink.consumeBundleEvent(.memberEnd)
    case "bytes" where members, "exportBytes" where members:
      guard let bytes = Data(base64Encoded: try required("base64")) else {
        throw JSONSyntaxError(start, "\"base64\" is not base64")
      }
      try sink.consumeBundleEvent(.bytes([UInt8](bytes)))
    case "route" where sides:
      let path = try path()
      var file = RouteFile(path: path, displayName: "\(source.displayName):\(path)")
      file.name = try string("name")
      file.metadataTime = try string("metadataTime")
      if var q = at("join") {
        JSONScanner.skipBlank(b, &q)
        if q < b.count, b[q] == UInt8(ascii: "{") {
          var join = RouteJoin(workoutIndex: -1, routeIndex: 0)
          try JSONScanner.object(b, &q) { key, q in
            let value = try JSONScanner.attributeValue(b, &q).flatMap { Int($0) }
            switch key {
            case "workout": join.workoutIndex = value ?? -1
            case "route": join.routeIndex = value ?? 0
            case "activity": join.activityIndex = value
            default: break
            }
          }
          file.join = join
        }
      }
      try sink.consumeSideFile(.routeBegin(file))
    case "points" where sides:
      guard var q = at("points") else { throw JSONSyntaxError(start, "a \"points\" line without \"points\"") }
      var points: [RoutePoint] = []
      try Self.array(b, &q) { q in
        var values: [String?] = []
        try Self.array(b, &q) { q in values.append(try JSONScanner.attributeValue(b, &q)) }
        guard values.count == 8, let latitude = values[0], let longitude = values[1] else {
          throw JSONSyntaxError(q, "a point is [latitude, longitude, elevation, time, speed, course, hAcc, vAcc]")
        }
        points.append(
          RoutePoint(
            latitude: latitude, longitude: longitude, elevation: values[2], time: values[3], speed: values[4],
            course: values[5], horizontalAccuracy: values[6], verticalAccuracy: values[7]))
      }
      try sink.consumeSideFile(.routePoints(points))
    case "routeEnd" where sides: try sink.consumeSideFile(.routeEnd(points: try integer("points") ?? 0))
    case "ecg" where sides:
      let path = try path()
      var recording = ECGRecording(path: path, displayName: "\(source.displayName):\(path)")
      if var q = at("header") {
        try Self.array(b, &q) { q in
          var pair: [String] = []
          try Self.array(b, &q) { q in pair.append(try JSONScanner.string(b, &q)) }
          guard pair.count == 2 else { throw JSONSyntaxError(q, "a header line is [key, value]") }
          recording.header.append((pair[0], pair[1]))
        }
      }
      recording.headerBytes = Array((try string("headerText") ?? "").utf8)
      recording.decimalSeparator = try string("decimalSeparator") == "," ? 0x2C : 0x2E
      try sink.consumeSideFile(.ecgBegin(recording))
    case "samples" where sides:
      guard var q = at("samples") else { throw JSONSyntaxError(start, "a \"samples\" line without \"samples\"") }
      var samples: [String] = []
      try Self.array(b, &q) { q in samples.append(try JSONScanner.string(b, &q)) }
      try sink.consumeSideFile(.ecgSamples(samples))
    case "ecgEnd" where sides: try sink.consumeSideFile(.ecgEnd(samples: try integer("samples") ?? 0))
    default: break  // a kind this sink does not take, or one a later version writes
    }
    p = end
  }

  /// Iterates the items of the array at `p`.
  static func array(_ b: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ body: (inout Int) throws -> Void) throws {
    JSONScanner.skipBlank(b, &p)
    guard p < b.count, b[p] == UInt8(ascii: "[") else { throw JSONSyntaxError(p, "expected an array") }
    p += 1
    if JSONScanner.closes(b, &p, UInt8(ascii: "]")) { return }
    while true {
      try body(&p)
      if try JSONScanner.nextItem(
        b, &p, close: UInt8(ascii: "]"), cutShort: "unexpected end of the array", expected: "expected ',' or ']'")
      {
        return
      }
    }
  }
}
