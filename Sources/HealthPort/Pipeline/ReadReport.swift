/// What a read saw besides the elements: sizes and the warnings for known quirks.
public struct ReadReport: Sendable {
  /// The name of the document read (a path, `<stdin>`, `archive.zip:member.xml`).
  public var documentName: String
  package var format: InputFormat
  /// Bytes of the export document (uncompressed).
  public var documentBytes: Int64 = 0
  /// Control characters that XML forbids, removed before parsing (some exports hold `\u{0B}`).
  package var removedControlCharacters = 0
  package var firstControlCharacterOffset: Int?
  /// Elements in places healthport does not know (kept generically).
  package var unknownElements = 0
  /// Elements holding character data (kept, but Apple writes none).
  package var textNodes = 0
  /// True when the prolog's DTD was one that strict parsers reject (iOS 16.0).
  package var hasBrokenDTD = false
  /// Other notes for stderr (e.g. a CSV input with a header but no rows).
  package var notes: [String] = []
  /// With `--skip-invalid`: each damaged element passed over, as `path:line:col: error: …`.
  public var skipped: [String] = []
  /// Workouts whose metadata block is written twice (v13/v14 exports; both copies are kept).
  package var duplicatedWorkoutMetadata = 0
  /// Records without a `value` (not-applicable category samples of 2019–2023 exports).
  package var recordsWithoutValue = 0
  /// Attributes healthport does not know, kept on their elements.
  package var unknownAttributes = 0
  /// The GPX routes and ECG recordings read beside the export (when the sink wanted them).
  package var sideFiles = SideFileReport()

  /// Human-readable warnings, one per kind, with counts.
  public var warnings: [String] { warnings(holding: nil) }

  /// The warnings about what an output holding only the `held` top-level elements holds (nil:
  /// every element): the single records table is not told about workouts, unknown elements or text.
  package func warnings(holding held: Set<String>?) -> [String] {
    var result: [String] = []
    if removedControlCharacters > 0 {
      let at = firstControlCharacterOffset.map { " (first at byte \($0))" } ?? ""
      result.append("removed \(removedControlCharacters) control character(s) that XML does not allow\(at)")
    }
    if hasBrokenDTD { result.append("the DTD is the malformed one of iOS 16.0 exports; it was skipped as always") }
    if unknownElements > 0, held == nil { result.append("\(unknownElements) unknown element(s) kept as they are") }
    if unknownAttributes > 0 { result.append("\(unknownAttributes) unknown attribute(s) on Records kept as they are") }
    if duplicatedWorkoutMetadata > 0, held?.contains("Workout") ?? true {
      result.append(
        "\(duplicatedWorkoutMetadata) workout(s) with their metadata block written twice (an Apple quirk; both copies kept)"
      )
    }
    if recordsWithoutValue > 0 {
      result.append("\(recordsWithoutValue) record(s) without a value (not-applicable categories; kept without one)")
    }
    if textNodes > 0, held == nil {
      result.append("\(textNodes) text node(s) in elements (not written by the Health app)")
    }
    result.append(contentsOf: notes)
    return result
  }
}
