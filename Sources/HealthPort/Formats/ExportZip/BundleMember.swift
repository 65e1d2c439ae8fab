/// A member of an export bundle (a zip's entry, or a file of an unzipped folder), as the bundle
/// round trip (`--to zip`, `--to xml -o DIR/`, lossless JSON Lines) needs it.
public struct BundleMember: Hashable, Sendable {
  /// What a member holds, which decides how it is read.
  public enum Kind: String, Sendable {
    /// export.xml (its content is the element stream).
    case export
    /// A GPX route or an ECG recording (its content is the side-file events, or raw bytes).
    case route, ecg
    /// Anything else (`export_cda.xml`, `clinical-records/*.json`, `__MACOSX/…`): raw bytes.
    case other
    /// A folder entry of a zip: no content.
    case directory
    /// A symbolic link of a zip: its content is the link's target (as `zip --symlinks` stores it).
    case symlink
  }

  /// Position among the input's members (0-based, in the zip's order).
  package var index: Int
  /// The member's path as stored: `apple_health_export/export.xml`, `export.xml` when the zip
  /// has no top folder.
  public var path: String
  /// What the member holds.
  public var kind: Kind
  /// The member's modification time (Unix seconds) when known.
  package var modified: Int64?
  /// A symbolic link's target, as a zip's reader found it (its content for a writer).
  package var linkTarget: String?

  package init(index: Int, path: String, kind: Kind, modified: Int64? = nil, linkTarget: String? = nil) {
    self.index = index
    self.path = path
    self.kind = kind
    self.modified = modified
    self.linkTarget = linkTarget
  }

  /// The export of an input that names none (a lone export.xml, JSON Lines without a bundle).
  package static let defaultExport = BundleMember(index: 0, path: "apple_health_export/export.xml", kind: .export)
}

/// What a bundle reader hands a sink that has ``SinkCapabilities/bundleMembers``, beside the elements and
/// side-file events:
///
/// - `.member` of kind `.export` before ``ExportSink/begin(_:)``: the elements are its content.
/// - for every other member, after the last element and in the order read: `.member`, then its
///   content (side-file events for a route or ECG; `.bytes` for an `.other` member, or after
///   the side-file events of a route or ECG that Apple's layout would not give back byte for
///   byte), then `.memberEnd`.
public enum BundleEvent: Sendable {
  /// A member begins (its content follows, up to `.memberEnd`).
  case member(BundleMember)
  /// Raw content, in chunks of at most ``BundleEvent/chunkSize`` bytes.
  case bytes([UInt8])
  /// The member's content is complete.
  case memberEnd

  /// The largest `.bytes` chunk, in bytes.
  public static let chunkSize = 48 << 10
}
