import Testing

@testable import HealthPort

/// Rules that several writers apply, each written once in the library: a type's short name (two
/// rules, side by side in `KnownNames`) and the numbers read from a record's text (`DecimalText`).
@Suite("Each rule once: short type names and decimals")
struct RulesOnceTests {
  @Test(
    "short type names: --split's tables and messages by one rule, Parquet's type= folders by the other",
    arguments: [
      ("HKQuantityTypeIdentifierStepCount", "StepCount", "StepCount"),
      ("HKCategoryTypeIdentifierSleepAnalysis", "SleepAnalysis", "SleepAnalysis"),
      ("HKCorrelationTypeIdentifierBloodPressure", "BloodPressure", "BloodPressure"),
      ("HKDataTypeSleepDurationGoal", "SleepDurationGoal", "SleepDurationGoal"),
      ("HKDataTypeIdentifierAudiogram", "IdentifierAudiogram", "Audiogram"),
      ("HKClinicalTypeIdentifierAllergyRecord", "HKClinicalTypeIdentifierAllergyRecord", "AllergyRecord"),
      ("HKWorkoutTypeIdentifier", "HKWorkoutTypeIdentifier", "HKWorkoutTypeIdentifier"),
      ("HKQuantityTypeIdentifier", "HKQuantityTypeIdentifier", "HKQuantityTypeIdentifier"),
      ("HKDataType", "HKDataType", "HKDataType"),
      ("com.example.TypeIdentifierMood", "com.example.TypeIdentifierMood", "com.example.TypeIdentifierMood"),
    ])
  func typeNames(identifier: String, short: String, folder: String) {
    #expect(KnownNames.shortTypeName(identifier) == short)
    #expect(KnownNames.folderTypeName(identifier) == folder)
    // `--split` names a record table by the first rule.
    #expect(CSVSplitSchema.recordTableName(for: identifier) == FileNames.sanitized(short))
  }

  @Test(
    "decimals: SQLite's and Parquet's numbers, with the value Double(String) gives",
    arguments: [
      "0", "-0", "+0.0", "72", "812.", ".5", "-.5", "+2", "00012.50", "1.5e-05", "1E+6", "0.30000000000000004",
      "123456789012345", "1234567890123456789", "9007199254740993", "2.675", "99999999999999.9",
    ])
  func decimals(text: String) throws {
    let expected = try #require(Double(text))
    #expect(DecimalText.double(text)?.bitPattern == expected.bitPattern)
    #expect(DecimalText.decimal(text)?.bitPattern == expected.bitPattern)
  }

  @Test(
    "other text: SQLite takes what Double(String) takes, Parquet only decimals",
    arguments: ["nan", "inf", "-infinity", "0x1p3", "", "-", ".", "1e", "1e+-5", "+-1", " 1", "1 ", "1.2.3", "12,5"])
  func notDecimals(text: String) {
    #expect(DecimalText.double(text)?.bitPattern == Double(text)?.bitPattern)
    #expect(DecimalText.decimal(text) == nil)
  }
}
