/// The type names of another tool's CSV table, read as ``KnownNames/readTypeName(_:known:)``
/// reads them: short names (`StepCount`, as tdda/applehealthdata writes them) expanded to the full
/// identifier, and the names kept as written that are no known type's short name remembered for
/// one warning at the end of the read.
///
/// Each distinct name is looked up once; a run of rows of the same type (a per-type table) costs a
/// comparison of bytes per row.
final class CSVTypeNames {
  /// The previous row's name as written, and what to write for it (nil: the name as written).
  private var last: [UInt8] = []
  private var lastExpansion: [UInt8]?
  private var expansions: [[UInt8]: [UInt8]?] = [:]
  /// The names kept as written that deserve a word, in the order first seen, with the known
  /// types they could be (empty: none).
  private(set) var unmatched: [(name: String, candidates: [String])] = []

  /// The full identifier to write for the name `bytes`, or nil to write it as it is.
  func expansion(of bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    if bytes.elementsEqual(last) { return lastExpansion }
    let name = Array(bytes)
    let expansion: [UInt8]?
    if let known = expansions[name] {
      expansion = known
    } else {
      expansion = read(String(decoding: name, as: UTF8.self)).map { Array($0.utf8) }
      expansions[name] = expansion
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

  private func read(_ name: String) -> String? {
    switch KnownNames.readTypeName(name) {
    case .asWritten: return nil
    case .expanded(let identifier): return identifier
    case .unmatched(let candidates):
      unmatched.append((name, candidates))
      return nil
    }
  }

  /// How many names a warning lists before it says how many more there are.
  static let listedNames = 10

  /// The one warning about the names kept as written, naming them; nil when there are none.
  func warning(file: String) -> String? {
    guard !unmatched.isEmpty else { return nil }
    let listed = unmatched.prefix(Self.listedNames).map { entry -> String in
      let name = "'\(entry.name)'"
      guard !entry.candidates.isEmpty else { return name }
      return "\(name) (the short name of \(entry.candidates.joined(separator: " and ")))"
    }
    let more = unmatched.count > Self.listedNames ? " and \(unmatched.count - Self.listedNames) more" : ""
    let count = unmatched.count == 1 ? "1 type name" : "\(unmatched.count) type names"
    return
      "\(file): \(count) kept as written, not the short name of exactly one known type: "
      + "\(listed.joined(separator: ", "))\(more); other commands recognise full identifiers such as "
      + "HKQuantityTypeIdentifierStepCount"
  }
}
