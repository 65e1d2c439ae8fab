/// What the Health app's profile screen shows, from the export alone (`healthport profile`): the
/// `Me` characteristics in words, the latest height, body mass, BMI, resting heart rate, VO2 max
/// and walking heart-rate average. Missing values stay nil, never invented.
///
/// "Latest" is the sample with the greatest start date, the later in the document on a tie (as
/// `stats --agg latest`). One sample per type is kept.
package final class Profile: ExportSink {
  package static let heightType = "HKQuantityTypeIdentifierHeight"
  package static let bodyMassType = "HKQuantityTypeIdentifierBodyMass"
  package static let bmiType = "HKQuantityTypeIdentifierBodyMassIndex"
  package static let restingHeartRateType = "HKQuantityTypeIdentifierRestingHeartRate"
  package static let vo2MaxType = "HKQuantityTypeIdentifierVO2Max"
  package static let walkingHeartRateType = "HKQuantityTypeIdentifierWalkingHeartRateAverage"
  package static let types: Set<String> = [
    heightType, bodyMassType, bmiType, restingHeartRateType, vo2MaxType, walkingHeartRateType,
  ]

  /// A sample's value with its unit and start date as written.
  package struct Measurement: Hashable, Sendable {
    package var value: Double
    package var unit: String
    package var date: HealthDate
  }

  package private(set) var me: Me?
  package private(set) var exportDate: HealthDate?
  /// The latest sample of each of ``types``, value and unit as written.
  package private(set) var latest: [String: Measurement] = [:]

  package init() {}

  package var interest: ElementInterest { .records(ofTypes: Self.types) }

  package func begin(_ header: ExportHeader) throws {}

  package func consume(_ element: ExportElement) throws {
    switch element {
    case .me(let me): self.me = me
    case .exportDate(let date): exportDate = date.date
    case .record(let record) where Self.types.contains(record.type):
      guard let value = record.numericValue else {
        throw HealthPortError(
          .malformed,
          message:
            "the \(KnownNames.shortTypeName(record.type)) sample starting \(record.startDate) has a non-numeric value '\(record.value ?? "")'"
        )
      }
      // `>=`: the later in the document wins a tie.
      if let known = latest[record.type], known.date.secondsSince1970 > record.startDate.secondsSince1970 { return }
      latest[record.type] = Measurement(value: value, unit: record.unit ?? "", date: record.startDate)
    default: break
    }
  }

  package func end(_ report: ReadReport) throws {}

  /// The latest sample of `type` converted to `unit`; an error naming the unit when it cannot be.
  package func latest(_ type: String, in unit: String) throws -> Measurement? {
    guard var found = latest[type] else { return nil }
    guard let converted = Units.convert(found.value, from: found.unit, to: unit) else {
      throw HealthPortError(
        .malformed,
        message:
          "the latest \(KnownNames.shortTypeName(type)) sample (\(found.date)) is in '\(found.unit)', which cannot be converted to \(unit)"
      )
    }
    found.value = converted
    found.unit = unit
    return found
  }

  /// Body mass over height squared (kg/m²) from the latest of each; nil without both.
  package func computedBMI() throws -> Double? {
    guard let height = try latest(Self.heightType, in: "m"), let mass = try latest(Self.bodyMassType, in: "kg"),
      height.value > 0
    else { return nil }
    return mass.value / (height.value * height.value)
  }

  /// `Me`'s date of birth (`YYYY-MM-DD`), nil when unset.
  package var dateOfBirth: String? {
    guard let text = me?.dateOfBirth, Self.day(text) != nil else { return nil }
    return text
  }

  /// Whole years from the date of birth to the export date's day (in its written offset).
  package var ageAtExport: Int? {
    guard let birth = dateOfBirth.flatMap(Self.day), let exportDate else { return nil }
    let today = HealthDate.civil(fromDays: exportDate.localDayNumber)
    let years = today.year - birth.year
    return (today.month, today.day) < (birth.month, birth.day) ? years - 1 : years
  }

  static func day(_ text: String) -> (year: Int, month: Int, day: Int)? {
    let parts = text.split(separator: "-")
    guard parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
      (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    return (year, month, day)
  }

  // MARK: Characteristics in words

  package var biologicalSex: String? {
    Self.words(
      me?.biologicalSex, prefix: "HKBiologicalSex", table: ["Female": "female", "Male": "male", "Other": "other"])
  }

  package var bloodType: String? {
    Self.words(
      me?.bloodType, prefix: "HKBloodType",
      table: [
        "APositive": "A+", "ANegative": "A−", "BPositive": "B+", "BNegative": "B−", "ABPositive": "AB+",
        "ABNegative": "AB−", "OPositive": "O+", "ONegative": "O−",
      ])
  }

  package var fitzpatrickSkinType: String? {
    Self.words(
      me?.fitzpatrickSkinType, prefix: "HKFitzpatrickSkinType",
      table: ["I": "type I", "II": "type II", "III": "type III", "IV": "type IV", "V": "type V", "VI": "type VI"])
  }

  /// `None` (every export seen) is "none"; other values, whose spelling is unknown, in lower-case words.
  package var cardioFitnessMedicationsUse: String? {
    guard let text = me?.cardioFitnessMedicationsUse, !text.isEmpty else { return nil }
    var name = Substring(text)
    for prefix in ["HKCardioFitnessMedicationsUse", "Option"] where name.hasPrefix(prefix) {
      name = name.dropFirst(prefix.count)
    }
    if name == "NotSet" || name.isEmpty { return nil }
    var words = ""
    for character in name {
      if character.isUppercase, !words.isEmpty, words.last != " " { words.append(" ") }
      words.append(character == "," ? "," : Character(character.lowercased()))
    }
    return words
  }

  /// The table's word for a value, the value without its prefix when unknown, nil when unset.
  static func words(_ value: String?, prefix: String, table: [String: String]) -> String? {
    guard let value, !value.isEmpty else { return nil }
    let name = value.hasPrefix(prefix) ? String(value.dropFirst(prefix.count)) : value
    if name == "NotSet" { return nil }
    return table[name] ?? name
  }
}
