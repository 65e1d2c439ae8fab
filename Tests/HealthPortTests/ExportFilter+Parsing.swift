import HealthPort

extension ExportFilter {
  /// A filter from text, parsed as the command-line tool parses its options (the library takes
  /// typed values).
  static func parsing(
    types: [String] = [], sourceProducts: [String] = [], sourceText: String? = nil, activities: [String] = [],
    from: String? = nil, to: String? = nil, tz: String? = nil
  ) throws -> ExportFilter {
    ExportFilter(
      types: types.isEmpty ? nil : Set(try types.map(KnownNames.resolveType)),
      activities: activities.isEmpty ? nil : Set(try activities.map(KnownNames.resolveActivity)),
      sourceProducts: sourceProducts, sourceText: sourceText,
      from: try from.map { try DateBound.parse($0, for: .from) }, to: try to.map { try DateBound.parse($0, for: .to) },
      zone: try tz.map(ZoneRule.parse) ?? .written)
  }
}
