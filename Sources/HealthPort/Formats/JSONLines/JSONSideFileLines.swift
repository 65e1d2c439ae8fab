import Foundation

/// The lines of a bundle's members in lossless JSON Lines, after the element lines (README,
/// "Side files and the rest of the bundle"): `member`, then a route's `route`, `points`…,
/// `routeEnd` or an ECG's `ecg`, `samples`…, `ecgEnd`, then `bytes`… (raw content) and
/// `memberEnd`. export.xml's raw bytes, when the elements would not give it back, are
/// `exportBytes` lines. Points and samples come in the reader's batches, so lines stay bounded.
struct JSONSideFileLines {
  /// The export's member, when the reader named one (before the header is written).
  var exportMember: BundleMember?
  /// A member whose line waits for its first content: a route or ECG whose side-file events a
  /// filter dropped is left out whole.
  private var pendingMember: BundleMember?
  private var inMember = false
  private var sideBegun = false

  /// `,"member":{…}` for the header line, unless it is the default member.
  func headerMember(to out: inout [UInt8]) {
    guard let member = exportMember,
      member.index != BundleMember.defaultExport.index || member.path != BundleMember.defaultExport.path
    else { return }
    out += Array(#","member":"#.utf8)
    Self.memberObject(member, to: &out)
  }

  /// A route's or ECG's first line up to its path: the member's line first if it waits.
  private mutating func beginSideFile(_ opening: String, _ path: String, to out: inout [UInt8]) {
    sideBegun = true
    writePendingMember(to: &out)
    out += Array(opening.utf8)
    JSONEscaping.appendString(path, to: &out)
  }

  mutating func append(_ event: SideFileEvent, to out: inout [UInt8]) {
    switch event {
    case .routeBegin(let file):
      beginSideFile(#"{"kind":"route","path":"#, file.path, to: &out)
      out += Array(#","name":"#.utf8)
      JSONEscaping.appendOptional(file.name, to: &out)
      out += Array(#","metadataTime":"#.utf8)
      JSONEscaping.appendOptional(file.metadataTime, to: &out)
      out += Array(#","join":"#.utf8)
      if let join = file.join {
        out += Array(#"{"workout":"#.utf8)
        JSONEscaping.appendInteger(join.workoutIndex, to: &out)
        out += Array(#","route":"#.utf8)
        JSONEscaping.appendInteger(join.routeIndex, to: &out)
        out += Array(#","activity":"#.utf8)
        if let activity = join.activityIndex {
          JSONEscaping.appendInteger(activity, to: &out)
        } else {
          out += Array("null".utf8)
        }
        out.append(UInt8(ascii: "}"))
      } else {
        out += Array("null".utf8)
      }
      out += Array("}\n".utf8)
    case .routePoints(let points):
      out += Array(#"{"kind":"points","points":["#.utf8)
      for (index, point) in points.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        out.append(UInt8(ascii: "["))
        JSONEscaping.appendString(point.latitude, to: &out)
        out.append(UInt8(ascii: ","))
        JSONEscaping.appendString(point.longitude, to: &out)
        for value in [
          point.elevation, point.time, point.speed, point.course, point.horizontalAccuracy, point.verticalAccuracy,
        ] {
          out.append(UInt8(ascii: ","))
          JSONEscaping.appendOptional(value, to: &out)
        }
        out.append(UInt8(ascii: "]"))
      }
      out += Array("]}\n".utf8)
    case .routeEnd(let points):
      out += Array(#"{"kind":"routeEnd","points":"#.utf8)
      JSONEscaping.appendInteger(points, to: &out)
      out += Array("}\n".utf8)
    case .ecgBegin(let recording):
      beginSideFile(#"{"kind":"ecg","path":"#, recording.path, to: &out)
      out += Array(#","header":"#.utf8)
      CSVMetadataJSON.appendPairs(recording.header.map { ($0.key, $0.value) }, to: &out)
      out += Array(#","headerText":"#.utf8)
      JSONEscaping.appendString(String(decoding: recording.headerBytes, as: UTF8.self), to: &out)
      out += Array(#","decimalSeparator":"#.utf8)
      JSONEscaping.appendString(recording.decimalSeparator == 0x2C ? "," : ".", to: &out)
      out += Array("}\n".utf8)
    case .ecgSamples(let samples):
      out += Array(#"{"kind":"samples","samples":["#.utf8)
      for (index, sample) in samples.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        JSONEscaping.appendString(sample, to: &out)
      }
      out += Array("]}\n".utf8)
    case .ecgEnd(let samples):
      out += Array(#"{"kind":"ecgEnd","samples":"#.utf8)
      JSONEscaping.appendInteger(samples, to: &out)
      out += Array("}\n".utf8)
    }
  }

  mutating func append(_ event: BundleEvent, to out: inout [UInt8]) {
    switch event {
    case .member(let member):
      pendingMember = member
      inMember = true
      sideBegun = false
    case .bytes(let bytes):
      if !inMember {
        line("exportBytes", bytes, to: &out)
      } else if let pending = pendingMember, pending.kind == .route || pending.kind == .ecg {
        return  // its side-file events were dropped
      } else {
        writePendingMember(to: &out)
        line("bytes", bytes, to: &out)
      }
    case .memberEnd:
      defer {
        inMember = false
        pendingMember = nil
      }
      if let pending = pendingMember, pending.kind == .route || pending.kind == .ecg { return }
      writePendingMember(to: &out)
      out += Array(#"{"kind":"memberEnd"}"#.utf8) + [0x0A]
    }
  }

  private mutating func writePendingMember(to out: inout [UInt8]) {
    guard let member = pendingMember else { return }
    pendingMember = nil
    out += Array(#"{"kind":"member","#.utf8)
    var object: [UInt8] = []
    Self.memberObject(member, to: &object)
    out += object.dropFirst()
    out.append(0x0A)
  }

  private func line(_ kind: String, _ bytes: [UInt8], to out: inout [UInt8]) {
    out += Array(#"{"kind":""#.utf8) + Array(kind.utf8) + Array(#"","base64":""#.utf8)
    out += Array(Data(bytes).base64EncodedString().utf8)
    out += Array("\"}\n".utf8)
  }

  /// `{"index":…,"path":…,"type":…,"modified":…}` (`modified` only when known).
  static func memberObject(_ member: BundleMember, to out: inout [UInt8]) {
    out += Array(#"{"index":"#.utf8)
    JSONEscaping.appendInteger(member.index, to: &out)
    out += Array(#","path":"#.utf8)
    JSONEscaping.appendString(member.path, to: &out)
    out += Array(#","type":"#.utf8)
    JSONEscaping.appendString(member.kind.rawValue, to: &out)
    if let modified = member.modified {
      out += Array(#","modified":"#.utf8)
      JSONEscaping.appendInteger(Int(modified), to: &out)
    }
    out.append(UInt8(ascii: "}"))
  }
}
