/// A side file of an export bundle, told by where it sits: a `.gpx` in a
/// `workout-routes/` folder, or a `.csv` in an `electrocardiograms/` folder, at any depth (the
/// top folder may be missing or doubled). macOS resource forks (`__MACOSX/`, `._name`) are not.
struct SideFilePath: Hashable, Sendable {
  enum Kind: Sendable { case route, ecg }

  let kind: Kind
  /// The path as export.xml names it: `/workout-routes/route_….gpx`.
  let reference: String

  init?(_ path: String) {
    let components = path.split(separator: "/", omittingEmptySubsequences: true)
    guard components.count >= 2, let name = components.last, !name.hasPrefix("._"),
      !components.contains(where: { $0 == "__MACOSX" })
    else { return nil }
    let folder = components[components.count - 2]
    let lowercased = name.lowercased()
    if folder == "workout-routes", lowercased.hasSuffix(".gpx") {
      kind = .route
    } else if folder == "electrocardiograms", lowercased.hasSuffix(".csv") {
      kind = .ecg
    } else {
      return nil
    }
    reference = "/\(folder)/\(name)"
  }

  /// The key a `FileReference path` is joined by: its last two components, with a leading
  /// slash, so `/workout-routes/x.gpx` and `workout-routes/x.gpx` join alike.
  static func referenceKey(_ path: String) -> String {
    let components = path.split(separator: "/", omittingEmptySubsequences: true)
    return "/" + components.suffix(2).joined(separator: "/")
  }
}

/// What a read found of the export's side files (``ReadReport/sideFiles``).
package struct SideFileReport: Sendable {
  package var routeFiles = 0
  package var routePoints = 0
  package var ecgRecordings = 0
  package var ecgSamples = 0
  /// GPX files that no workout's `FileReference` names, by path (`/workout-routes/…`).
  package var unreferencedRoutes = FileNameList()
  /// `FileReference`s whose file the export does not hold: the path, and where the workout is.
  package var missingRoutes: [(path: String, workout: String)] = []
  /// The zip ended inside a member after the export: a missing route may be past the cut.
  package var cutShort = false
  /// Files in an `electrocardiograms/` folder without an ECG header, left out, by where they
  /// were read; `notECGsCopied` when they went into a bundle written back as they are.
  package var notECGs: [String] = []
  package var notECGsCopied = false

  package init() {}

  /// The warnings these make, for ``ReadReport/warnings`` and stderr.
  var notes: [String] {
    var notes = missingRoutes.map {
      "\($0.workout) references \($0.path), which the export does not hold "
        + (cutShort ? "before the point where the zip is cut (the route is left out)" : "(the route is left out)")
    }
    if !unreferencedRoutes.isEmpty {
      let list = unreferencedRoutes.shown.joined(separator: ", ")
      let more = unreferencedRoutes.count > FileNameList.shownCount ? ", …" : ""
      notes.append(
        "\(unreferencedRoutes.count) GPX route file(s) that no workout references, read without a workout: \(list)\(more)"
      )
    }
    if !notECGs.isEmpty {
      let list = notECGs.prefix(5).joined(separator: ", ")
      let more = notECGs.count > 5 ? ", …" : ""
      let fate = notECGsCopied ? "not read as recordings (copied as they are)" : "left out"
      notes.append(
        "\(notECGs.count) file(s) in electrocardiograms/ without an ECG header (key,value lines before the samples), "
          + "\(fate): \(list)\(more)")
    }
    return notes
  }
}

/// File names in the order they came, in flat memory however many: the first few in memory for
/// warnings, and all of them in a ``StagedBytes`` (its first 256 KiB in memory, the rest in a
/// temporary file) for `info --format json`. As an array of strings, the unreferenced routes of a
/// zip of 100,000 took 8 MB. Copies share the bytes; a copy lists the names it was made with.
package struct FileNameList: Sequence, @unchecked Sendable {
  /// The names kept as strings, for messages.
  static let shownCount = 5

  package private(set) var count = 0
  /// The first ``shownCount`` names.
  package private(set) var shown: [String] = []
  /// Every name, as its UTF-8 length (4 bytes, little-endian) and bytes.
  private var bytes: StagedBytes?
  /// Bytes of the names counted.
  private var byteCount: Int64 = 0

  package init() {}

  package var isEmpty: Bool { count == 0 }

  mutating func append(_ name: String) throws {
    if shown.count < Self.shownCount { shown.append(name) }
    let staged = bytes ?? StagedBytes()
    bytes = staged
    var record: [UInt8] = []
    let length = UInt32(name.utf8.count)
    record.reserveCapacity(4 + Int(length))
    for shift in stride(from: 0, to: 32, by: 8) { record.append(UInt8(truncatingIfNeeded: length >> UInt32(shift))) }
    record.append(contentsOf: name.utf8)
    try staged.append(record)
    byteCount += Int64(record.count)
    count += 1
  }

  package func makeIterator() -> Iterator { Iterator(bytes: bytes, end: byteCount) }

  /// Reads the names back in order; a name that cannot be read back (the temporary file gone)
  /// ends the sequence.
  package struct Iterator: IteratorProtocol {
    private let bytes: StagedBytes?
    private let end: Int64
    private var offset: Int64 = 0

    fileprivate init(bytes: StagedBytes?, end: Int64) {
      self.bytes = bytes
      self.end = end
    }

    package mutating func next() -> String? {
      guard let bytes, offset + 4 <= end else { return nil }
      var header = [UInt8](repeating: 0, count: 4)
      guard (try? read(bytes, at: offset, into: &header)) == true else { return nil }
      let length = header.reversed().reduce(0) { $0 << 8 | Int($1) }
      var name = [UInt8](repeating: 0, count: length)
      guard (try? read(bytes, at: offset + 4, into: &name)) == true else { return nil }
      offset += 4 + Int64(length)
      return String(decoding: name, as: UTF8.self)
    }

    private func read(_ bytes: StagedBytes, at offset: Int64, into target: inout [UInt8]) throws -> Bool {
      var filled = 0
      while filled < target.count {
        let n = try target.withUnsafeMutableBytes {
          try bytes.read(at: offset + Int64(filled), into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...]))
        }
        if n == 0 { return false }
        filled += n
      }
      return true
    }
  }
}
