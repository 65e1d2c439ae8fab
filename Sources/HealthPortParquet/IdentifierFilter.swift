import HealthPort

/// `--drop-identifiers`: what names a person, left out for sharing a research dataset. The `Me`
/// date of birth keeps only its year (in `date_of_birth_text`); a source or device name with an
/// owner (`Anna’s Apple Watch`) keeps what follows the owner (`Apple Watch`).
struct IdentifierFilter {
  static let dateOfBirth = "HKCharacteristicTypeIdentifierDateOfBirth"

  /// A `Me` attribute's value.
  func me(_ attribute: Attribute) -> String? {
    guard attribute.name == Self.dateOfBirth else { return attribute.value }
    let year = attribute.value.prefix(4)
    return year.count == 4 && year.allSatisfy(\.isASCIIDigitCharacter) ? String(year) : nil
  }

  /// `Anna’s Apple Watch` → `Apple Watch`; a name without an owner as it is.
  func sourceName(_ name: String) -> String {
    for possessive in ["’s ", "'s ", "’ ", "s' "] {
      if let range = name.firstRange(of: possessive) {
        let rest = name[range.upperBound...]
        return rest.isEmpty ? "" : String(rest)
      }
    }
    return name
  }

  /// A device string with its `name:` field's owner left out the same way.
  func device(_ device: String) -> String {
    guard let start = device.firstRange(of: ", name:") else { return device }
    let valueStart = start.upperBound
    let valueEnd = device[valueStart...].firstRange(of: ", ")?.lowerBound ?? device.endIndex
    let name = String(device[valueStart..<valueEnd])
    let kept = sourceName(name)
    return kept == name ? device : device[..<valueStart] + kept + device[valueEnd...]
  }
}

extension Character {
  fileprivate var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
