import HealthPort

/// `--drop-identifiers`: what names a person, left out for sharing a research dataset. The `Me`
/// date of birth keeps only its year (in `date_of_birth_text`); a source or device name that
/// holds its owner's name keeps only the device:
///
/// - the possessive real exports show, `Anna’s Apple Watch` (U+2019) and `DonorTwo's iPhone`
///   (ASCII), also `Chris’ iPad` and `Jess' iPhone` → what follows the owner;
/// - the default names of other languages, an Apple product then the owner
///   (`iPhone de Anna`, `iPhone von Anna`, `iPhone di Anna`, `iPhone van Anna`) or the owner then
///   the product (`Anna の iPhone`, `Anna의 iPhone`) → the product.
///
/// A name chosen by hand without either form (`Ryan Phone`) cannot be told from a device's name
/// and is kept.
struct IdentifierFilter {
  static let dateOfBirth = "HKCharacteristicTypeIdentifierDateOfBirth"

  /// Apple's products, as their default names begin (`Apple Watch Ultra`, `iPad Pro`).
  static let products = ["iPhone", "iPad", "iPod", "Apple Watch", "Watch", "Mac", "MacBook", "iMac", "AirPods"]
  static let possessives = ["’s ", "'s ", "’ ", "' "]
  static let ownerAfter = [" de ", " von ", " di ", " van ", " da ", " do "]
  static let ownerBefore = ["の", "의"]

  /// A `Me` attribute's value.
  func me(_ attribute: Attribute) -> String? {
    guard attribute.name == Self.dateOfBirth else { return attribute.value }
    let year = attribute.value.prefix(4)
    return year.count == 4 && year.allSatisfy(\.isASCIIDigitCharacter) ? String(year) : nil
  }

  /// A generic element's attribute (`Me`, an `Audiogram`, one in a row's `extra`): the date of
  /// birth cut to its year, a source or device name without its owner; nil to leave it out.
  func value(of attribute: Attribute) -> String? {
    switch attribute.name {
    case Self.dateOfBirth: me(attribute)
    case "sourceName": sourceName(attribute.value)
    case "device": device(attribute.value)
    default: attribute.value
    }
  }

  /// An ECG's `Date of Birth` as written (`Jan 8, 2002`, `8 janv. 2002`, `2002-01-08`) → `2002`:
  /// its one run of four digits; nil without exactly one.
  func yearOfBirth(_ text: String) -> String? {
    let runs = text.split { !$0.isASCIIDigitCharacter }.filter { $0.count == 4 }
    return runs.count == 1 ? String(runs[0]) : nil
  }

  /// An ECG file's header lines without the person: the `Name` line (the first) left out and the
  /// date of birth (the line after it, whatever its localized label) cut to its year.
  func ecgHeader(_ pairs: [(String, String)]) -> [(String, String)] {
    var kept: [(String, String)] = []
    for (index, pair) in pairs.enumerated() {
      if index == 0 && pair.0 == "Name" { continue }
      if pair.0 == "Date of Birth" || index == 1 && pairs[0].0 == "Name" {
        if let year = yearOfBirth(pair.1) { kept.append((pair.0, year)) }
        continue
      }
      kept.append(pair)
    }
    return kept
  }

  /// `Anna’s Apple Watch` → `Apple Watch`, `iPhone de Anna` → `iPhone`; a name without an owner
  /// as it is.
  func sourceName(_ name: String) -> String {
    for possessive in Self.possessives {
      if let range = name.firstRange(of: possessive), range.lowerBound > name.startIndex {
        // `Jess' iPhone`, not a quotation that starts the name.
        let owner = name[..<range.lowerBound]
        if possessive == "' " && (owner.last?.isLetter != true || owner.contains("'")) { continue }
        return String(name[range.upperBound...])
      }
    }
    for marker in Self.ownerAfter {
      if let range = name.firstRange(of: marker), Self.isProduct(name[..<range.lowerBound]) {
        return String(name[..<range.lowerBound])
      }
    }
    for marker in Self.ownerBefore {
      if let range = Self.lastRange(of: marker, in: name), range.lowerBound > name.startIndex {
        let product = name[range.upperBound...].drop { $0 == " " }
        if Self.isProduct(product) { return String(product) }
      }
    }
    return name
  }

  static func lastRange(of marker: String, in text: String) -> Range<String.Index>? {
    var found: Range<String.Index>?
    var searchStart = text.startIndex
    while let range = text[searchStart...].firstRange(of: marker) {
      found = range
      searchStart = range.upperBound
    }
    return found
  }

  /// Whether `text` is an Apple product's name (`iPhone`, `Apple Watch Ultra`, `iPad Pro`).
  static func isProduct(_ text: Substring) -> Bool {
    products.contains { text == $0 || text.hasPrefix($0 + " ") }
  }

  /// The fields of a device string after `name:` (HKDevice's properties): a name may itself hold `, `,
  /// so the name ends where the next of these begins.
  static let deviceFields = [
    "manufacturer", "model", "hardware", "firmware", "software", "localIdentifier", "UDIDeviceIdentifier",
    "creation date",
  ].map { ", " + $0 + ":" }

  /// A device string with its `name:` field's owner left out the same way.
  func device(_ device: String) -> String {
    guard let start = device.firstRange(of: ", name:") else { return device }
    let valueStart = start.upperBound
    let rest = device[valueStart...]
    let valueEnd =
      Self.deviceFields.compactMap { rest.firstRange(of: $0)?.lowerBound }.min()
      ?? (device.hasSuffix(">") ? device.index(before: device.endIndex) : device.endIndex)
    let name = String(device[valueStart..<valueEnd])
    let kept = sourceName(name)
    return kept == name ? device : device[..<valueStart] + kept + device[valueEnd...]
  }
}

extension Character {
  fileprivate var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
