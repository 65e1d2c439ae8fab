/// The type names of another tool's CSV table, read as ``KnownNames/readTypeName(_:known:)``
/// reads them: short names (`StepCount`, as tdda/applehealthdata writes them) expanded to the full
/// identifier, and the names kept as written that are no known type's short name remembered for
/// one warning at the end of the read.
///
/// Each distinct name is looked up once (the first ``cachedNames`` of them; a file of more types
/// than that keeps its memory and looks the others up on every row); a run of rows of the same
/// type (a per-type table) costs a comparison of bytes per row.
final class CSVTypeNames {
  /// The previous row's name as written, and what to write for it (nil: the name as written).
  private var last: [UInt8] = []
  private var lastExpansion: [UInt8]?
  private var expansions: [[UInt8]: [UInt8]?] = [:]
  /// How many distinct names are remembered.
  static let cachedNames = 4096
  /// The names kept as written that deserve a word, in the order first seen, with the known
  /// types they could be (empty: none); names first seen once the cache was full are not listed.
  private(set) var unmatched: [(name: String, candidates: [String])] = []
  /// Whether names were kept as written past the cache, unlisted.
  private var unlisted = false

  /// The full identifier to write for the name `bytes`, or nil to write it as it is.
  func expansion(of bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    if bytes.elementsEqual(last) { return lastExpansion }
    let name = Array(bytes)
    let expansion: [UInt8]?
    if let known = expansions[name] {
      expansion = known
    } else {
      let caching = expansions.count < Self.cachedNames
      expansion = read(String(decoding: name, as: UTF8.self), listing: caching).map { Array($0.utf8) }
      if caching { expansions[name] = expansion }
    }
    last = name
    lastExpansion = expansion
    return expansion
  }

  /// The type to read for a name (the error path's view of ``expansion(of:)``).
  func expanded(_ name: String) -> String {
    var name = name
    return name.withUTF8 { expansion(of: $0) }.map { String(decoding: $0, as: UTF8.self) } ?? name
  }

  private func read(_ name: String, listing: Bool) -> String? {
    switch KnownNames.readTypeName(name) {
    case .asWritten: return nil
    case .expanded(let identifier): return identifier
    case .unmatched(let candidates):
      if listing { unmatched.append((name, candidates)) } else { unlisted = true }
      return nil
    }
  }

  /// How many names a warning lists before it says how many more there are.
  static let listedNames = 10

  /// The one warning about the names kept as written, naming them; nil when there are none.
  func warning(file: String) -> String? {
    guard !unmatched.isEmpty || unlisted else { return nil }
    let listed = unmatched.prefix(Self.listedNames).map { entry -> String in
      let name = "'\(entry.name)'"
      guard !entry.candidates.isEmpty else { return name }
      return "\(name) (the short name of \(entry.candidates.joined(separator: " and ")))"
    }
    var names = listed.joined(separator: ", ")
    let hidden = unmatched.count - listed.count
    if hidden > 0 || unlisted {
      names += (names.isEmpty ? "" : " and ") + (unlisted ? "more" : "\(hidden) more")
    }
    let count =
      unlisted
      ? "more than \(unmatched.count) type names"
      : unmatched.count == 1 ? "1 type name" : "\(unmatched.count) type names"
    return
      "\(file): \(count) kept as written, not the short name of exactly one known type: \(names); "
      + "other commands recognise full identifiers such as HKQuantityTypeIdentifierStepCount"
  }
}
