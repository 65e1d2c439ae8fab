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
  package var unreferencedRoutes: [String] = []
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
      let list = unreferencedRoutes.prefix(5).joined(separator: ", ")
      let more = unreferencedRoutes.count > 5 ? ", …" : ""
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
