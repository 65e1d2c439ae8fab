/// The type identifiers and workout activity types healthport knows by name (HealthKit's identifiers),
/// used to expand short names (`StepCount`, `running`) and to suggest the closest valid name.
package enum KnownNames {
  /// Prefixes of `Record`/`Correlation` type identifiers, longest first.
  package static let typePrefixes = [
    "HKCorrelationTypeIdentifier", "HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKDataType",
  ]
  package static let activityPrefix = "HKWorkoutActivityType"

  /// Cumulative quantity types (HealthKit aggregates them by sum): their natural aggregate is a sum.
  package static let cumulativeQuantityTypes: [String] =
    [
      "ActiveEnergyBurned", "AppleExerciseTime", "AppleMoveTime", "AppleStandTime", "BasalEnergyBurned",
      "DistanceCrossCountrySkiing", "DistanceCycling", "DistanceDownhillSnowSports", "DistancePaddleSports",
      "DistanceRowing", "DistanceSkatingSports", "DistanceSwimming", "DistanceWalkingRunning", "DistanceWheelchair",
      "FlightsClimbed", "NikeFuel", "PushCount", "StepCount", "SwimmingStrokeCount", "InsulinDelivery",
      "NumberOfAlcoholicBeverages", "NumberOfTimesFallen", "TimeInDaylight", "InhalerUsage",
    ] + dietaryTypes

  static let dietaryTypes: [String] = [
    "Biotin", "Caffeine", "Calcium", "Carbohydrates", "Chloride", "Cholesterol", "Chromium", "Copper",
    "EnergyConsumed", "FatMonounsaturated", "FatPolyunsaturated", "FatSaturated", "FatTotal", "Fiber", "Folate",
    "Iodine", "Iron", "Magnesium", "Manganese", "Molybdenum", "Niacin", "PantothenicAcid", "Phosphorus",
    "Potassium", "Protein", "Riboflavin", "Selenium", "Sodium", "Sugar", "Thiamin", "VitaminA", "VitaminB12",
    "VitaminB6", "VitaminC", "VitaminD", "VitaminE", "VitaminK", "Water", "Zinc",
  ].map { "Dietary" + $0 }

  /// Discrete quantity types (HealthKit aggregates them as discrete values: min, max, average).
  package static let discreteQuantityTypes: [String] = [
    "AppleSleepingWristTemperature", "BodyFatPercentage", "BodyMass", "BodyMassIndex", "ElectrodermalActivity",
    "Height", "LeanBodyMass", "WaistCircumference", "CrossCountrySkiingSpeed", "CyclingCadence",
    "CyclingFunctionalThresholdPower", "CyclingPower", "CyclingSpeed", "EstimatedWorkoutEffortScore",
    "PaddleSportsSpeed", "PhysicalEffort", "RowingSpeed", "RunningPower", "RunningSpeed", "UnderwaterDepth",
    "WorkoutEffortScore", "EnvironmentalAudioExposure", "EnvironmentalSoundReduction", "HeadphoneAudioExposure",
    "AtrialFibrillationBurden", "HeartRate", "HeartRateRecoveryOneMinute", "HeartRateVariabilitySDNN",
    "PeripheralPerfusionIndex", "RestingHeartRate", "VO2Max", "WalkingHeartRateAverage", "AppleWalkingSteadiness",
    "RunningGroundContactTime", "RunningStrideLength", "RunningVerticalOscillation", "SixMinuteWalkTestDistance",
    "StairAscentSpeed", "StairDescentSpeed", "WalkingAsymmetryPercentage", "WalkingDoubleSupportPercentage",
    "WalkingSpeed", "WalkingStepLength", "BloodAlcoholContent", "BloodPressureDiastolic", "BloodPressureSystolic",
    "UVExposure", "WaterTemperature", "BasalBodyTemperature", "AppleSleepingBreathingDisturbances",
    "ForcedExpiratoryVolume1", "ForcedVitalCapacity", "OxygenSaturation", "PeakExpiratoryFlowRate",
    "RespiratoryRate", "BloodGlucose", "BodyTemperature",
  ]

  /// Category types (`HKCategoryTypeIdentifier…`).
  package static let categoryTypes: [String] = [
    "AppleStandHour", "EnvironmentalAudioExposureEvent", "HeadphoneAudioExposureEvent", "HighHeartRateEvent",
    "IrregularHeartRhythmEvent", "LowCardioFitnessEvent", "LowHeartRateEvent", "MindfulSession",
    "AppleWalkingSteadinessEvent", "HandwashingEvent", "ToothbrushingEvent", "BleedingAfterPregnancy",
    "BleedingDuringPregnancy", "CervicalMucusQuality", "Contraceptive", "InfrequentMenstrualCycles",
    "IntermenstrualBleeding", "IrregularMenstrualCycles", "Lactation", "MenstrualFlow", "OvulationTestResult",
    "PersistentIntermenstrualBleeding", "Pregnancy", "PregnancyTestResult", "ProgesteroneTestResult",
    "ProlongedMenstrualPeriods", "SexualActivity", "SleepApneaEvent", "SleepAnalysis", "AbdominalCramps", "Acne",
    "AppetiteChanges", "BladderIncontinence", "Bloating", "BreastPain", "ChestTightnessOrPain", "Chills",
    "Constipation", "Coughing", "Diarrhea", "Dizziness", "DrySkin", "Fainting", "Fatigue", "Fever",
    "GeneralizedBodyAche", "HairLoss", "Headache", "Heartburn", "HotFlashes", "LossOfSmell", "LossOfTaste",
    "LowerBackPain", "MemoryLapse", "MoodChanges", "Nausea", "NightSweats", "PelvicPain",
    "RapidPoundingOrFlutteringHeartbeat", "RunnyNose", "ShortnessOfBreath", "SinusCongestion", "SkippedHeartbeat",
    "SleepChanges", "SoreThroat", "VaginalDryness", "Vomiting", "Wheezing", "AudioExposureEvent",
  ]

  /// Every known `Record`/`Correlation` type identifier, in full.
  package static let typeIdentifiers: [String] =
    (cumulativeQuantityTypes + discreteQuantityTypes).map { "HKQuantityTypeIdentifier" + $0 }
    + categoryTypes.map { "HKCategoryTypeIdentifier" + $0 }
    + ["HKCorrelationTypeIdentifierBloodPressure", "HKCorrelationTypeIdentifierFood", "HKDataTypeSleepDurationGoal"]

  /// Every known `HKWorkoutActivityType…` value, in full.
  package static let activityTypes: [String] = [
    "AmericanFootball", "Archery", "AustralianFootball", "Badminton", "Baseball", "Basketball", "Bowling", "Boxing",
    "Climbing", "Cricket", "CrossTraining", "Curling", "Cycling", "Dance", "DanceInspiredTraining", "Elliptical",
    "EquestrianSports", "Fencing", "Fishing", "FunctionalStrengthTraining", "Golf", "Gymnastics", "Handball",
    "Hiking", "Hockey", "Hunting", "Lacrosse", "MartialArts", "MindAndBody", "MixedMetabolicCardioTraining",
    "PaddleSports", "Play", "PreparationAndRecovery", "Racquetball", "Rowing", "Rugby", "Running", "Sailing",
    "SkatingSports", "SnowSports", "Soccer", "Softball", "Squash", "StairClimbing", "SurfingSports", "Swimming",
    "TableTennis", "Tennis", "TrackAndField", "TraditionalStrengthTraining", "Volleyball", "Walking", "WaterFitness",
    "WaterPolo", "WaterSports", "Wrestling", "Yoga", "Barre", "CoreTraining", "CrossCountrySkiing", "DownhillSkiing",
    "Flexibility", "HighIntensityIntervalTraining", "JumpRope", "Kickboxing", "Pilates", "Snowboarding", "Stairs",
    "StepTraining", "WheelchairWalkPace", "WheelchairRunPace", "TaiChi", "MixedCardio", "HandCycling", "DiscSports",
    "FitnessGaming", "CardioDance", "SocialDance", "Pickleball", "Cooldown", "SwimBikeRun", "Transition",
    "UnderwaterDiving", "Other",
  ].map { activityPrefix + $0 }

  // A type's short name follows one of two rules, both here. They differ on identifiers such as
  // `HKDataTypeIdentifierAudiogram` (`IdentifierAudiogram` by the first, `Audiogram` by the
  // second) and `HKClinicalTypeIdentifier…`, and each names something users already hold: the
  // first the tables of `--split` (docs/csv.md#tables), the words of messages
  // and tables, and what `--type` accepts; the second a Parquet dataset's `type=` folders, which
  // queries name (docs/parquet.md#layout). One rule for both would rename files or folders.

  /// A type identifier without its `HK…TypeIdentifier`/`HKDataType` prefix (``typePrefixes``):
  /// `StepCount`; any other name, or a prefix alone, whole.
  package static func shortTypeName(_ identifier: String) -> String {
    for prefix in typePrefixes where identifier.hasPrefix(prefix) && identifier.count > prefix.count {
      return String(identifier.dropFirst(prefix.count))
    }
    return identifier
  }

  /// A Parquet dataset's `type=` folder name: an identifier that starts with `HK` without
  /// everything up to and including its first `TypeIdentifier` (`HKDataTypeIdentifierAudiogram` →
  /// `Audiogram`), else without its `HKDataType` prefix (`HKDataTypeSleepDurationGoal` →
  /// `SleepDurationGoal`); any other name, or a prefix alone, whole.
  package static func folderTypeName(_ identifier: String) -> String {
    guard identifier.hasPrefix("HK") else { return identifier }
    if let marker = identifier.firstRange(of: "TypeIdentifier"), marker.upperBound < identifier.endIndex {
      return String(identifier[marker.upperBound...])
    }
    if identifier.hasPrefix("HKDataType"), identifier.utf8.count > "HKDataType".utf8.count {
      return String(identifier.dropFirst("HKDataType".count))
    }
    return identifier
  }

  /// How a type name read from another tool's file is taken (``readTypeName(_:known:)``)..
  package enum TypeNameReading: Sendable, Equatable {
    /// Kept as written, without a word: a full identifier (`HK…`), known or newer than this list.
    case asWritten
    /// The short name of exactly one known type, whose full identifier this is.
    case expanded(String)
    /// Kept as written, to be named in a warning: it is the short name of no known type, or of
    /// several (listed).
    case unmatched(candidates: [String])
  }

  /// A type name from another tool's CSV (`StepCount`), read by the short-name rule: a short
  /// name, the identifier without its ``typePrefixes`` prefix (``shortTypeName(_:)``), expands to
  /// the full identifier when exactly one type of `known` has it (ignoring case); a name starting
  /// with `HK` is a full identifier and stays; anything else stays as written, for a warning.
  /// `known` defaults to ``typeIdentifiers``.
  package static func readTypeName(_ name: String, known: [String]? = nil) -> TypeNameReading {
    if name.hasPrefix("HK") { return .asWritten }
    let lowered = name.lowercased()
    let matches =
      known.map { list in list.filter { shortTypeName($0).lowercased() == lowered } }
      ?? knownByShortName[lowered] ?? []
    return matches.count == 1 ? .expanded(matches[0]) : .unmatched(candidates: matches)
  }

  /// ``typeIdentifiers`` by their short names, lowercased.
  private static let knownByShortName: [String: [String]] = Dictionary(
    grouping: typeIdentifiers, by: { shortTypeName($0).lowercased() })

  /// An activity type without its `HKWorkoutActivityType` prefix (`Running`).
  package static func shortActivityName(_ identifier: String) -> String {
    identifier.hasPrefix(activityPrefix) && identifier.count > activityPrefix.count
      ? String(identifier.dropFirst(activityPrefix.count)) : identifier
  }

  /// Whether a type's values add up over time (sum) rather than being measurements (average).
  package static func isCumulative(_ identifier: String) -> Bool {
    identifier.hasPrefix("HKQuantityTypeIdentifier") && cumulativeSet.contains(shortTypeName(identifier))
  }
  private static let cumulativeSet = Set(cumulativeQuantityTypes)

  /// Resolves a record type: a full identifier (any `HK…` string is taken verbatim, so that
  /// types newer than this list still work) or a short name, case-insensitively.
  package static func resolveType(_ text: String) throws -> String {
    try resolve(text, in: typeIdentifiers, short: shortTypeName, setting: .types)
  }

  /// Resolves a workout activity (`running`, `Running`, `HKWorkoutActivityTypeRunning`).
  package static func resolveActivity(_ text: String) throws -> String {
    try resolve(text, in: activityTypes, short: shortActivityName, setting: .activities)
  }

  private static func resolve(
    _ text: String, in known: [String], short: (String) -> String, setting: HealthPortError.Setting
  ) throws -> String {
    let lowered = text.lowercased()
    if let match = known.first(where: { $0.lowercased() == lowered || short($0).lowercased() == lowered }) {
      return match
    }
    if text.hasPrefix("HK"), text.count > 2 { return text }
    let shortNames = known.map(short)
    var hints: [String] = []
    var pool = shortNames
    while hints.count < 3, let best = NameSuggestion.closest(to: text, in: pool) {
      hints.append(best)
      pool.removeAll { $0 == best }
    }
    throw HealthPortError(.unknownName(setting, value: text, suggestions: hints, example: shortNames[0]))
  }
}
