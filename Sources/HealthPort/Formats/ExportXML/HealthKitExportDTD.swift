/// healthport's own prolog for exports whose source had none (JSON Lines or CSV from other tools).
///
/// The DTD declares every element and attribute that ``XMLExportWriter`` writes for the model,
/// the iOS 16+ ones (`WorkoutActivity`, `WorkoutStatistics`, `VisionPrescription`, iOS 18.1's
/// `SensitivityPoint` attributes) and the legacy ones (`Location`, `appleMoveMinutes`) included.
/// Unlike Apple's DTDs (which declare attributes the data lacks and miss ones it has) it describes the data: content models list every child
/// the Health app writes, in any order and number, and every attribute is `#IMPLIED`, so a
/// validating parser (`xmllint --valid`) accepts any file the writer produces from known
/// elements. Unknown elements or attributes kept in the model are written too, and then the file
/// is well-formed but no longer valid against this DTD.
///
/// It carries no `HealthKit Export Version` comment: such a file was not written by the Health
/// app, and `info` reports its export version as unknown.
package enum HealthKitExportDTD {
  /// The attributes of a Correlation and of an Audiogram, one line each.
  static let sampleAttributes = """
    type          CDATA #IMPLIED
      sourceName    CDATA #IMPLIED
      sourceVersion CDATA #IMPLIED
      device        CDATA #IMPLIED
      creationDate  CDATA #IMPLIED
      startDate     CDATA #IMPLIED
      endDate       CDATA #IMPLIED
    """

  /// The XML declaration, the DOCTYPE with the internal subset, and the line feed after `]>`.
  package static let prolog = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE HealthData [
    <!-- healthport export DTD 1: the elements and attributes of Apple Health exports up to Export Version 14 -->
    <!ELEMENT HealthData (ExportDate|Me|Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*>
    <!ATTLIST HealthData
      locale CDATA #IMPLIED
    >
    <!ELEMENT ExportDate EMPTY>
    <!ATTLIST ExportDate
      value CDATA #IMPLIED
    >
    <!ELEMENT Me EMPTY>
    <!ATTLIST Me
      HKCharacteristicTypeIdentifierDateOfBirth                 CDATA #IMPLIED
      HKCharacteristicTypeIdentifierBiologicalSex               CDATA #IMPLIED
      HKCharacteristicTypeIdentifierBloodType                   CDATA #IMPLIED
      HKCharacteristicTypeIdentifierFitzpatrickSkinType         CDATA #IMPLIED
      HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse CDATA #IMPLIED
    >
    <!ELEMENT Record (MetadataEntry|HeartRateVariabilityMetadataList)*>
    <!ATTLIST Record
      type          CDATA #IMPLIED
      sourceName    CDATA #IMPLIED
      sourceVersion CDATA #IMPLIED
      device        CDATA #IMPLIED
      unit          CDATA #IMPLIED
      creationDate  CDATA #IMPLIED
      startDate     CDATA #IMPLIED
      endDate       CDATA #IMPLIED
      value         CDATA #IMPLIED
    >
    <!ELEMENT MetadataEntry EMPTY>
    <!ATTLIST MetadataEntry
      key   CDATA #IMPLIED
      value CDATA #IMPLIED
    >
    <!ELEMENT HeartRateVariabilityMetadataList (InstantaneousBeatsPerMinute)*>
    <!ELEMENT InstantaneousBeatsPerMinute EMPTY>
    <!ATTLIST InstantaneousBeatsPerMinute
      bpm  CDATA #IMPLIED
      time CDATA #IMPLIED
    >
    <!ELEMENT Correlation (MetadataEntry|Record)*>
    <!ATTLIST Correlation
      \(sampleAttributes)
    >
    <!ELEMENT Workout (MetadataEntry|WorkoutEvent|WorkoutActivity|WorkoutStatistics|WorkoutRoute)*>
    <!ATTLIST Workout
      workoutActivityType   CDATA #IMPLIED
      duration              CDATA #IMPLIED
      durationUnit          CDATA #IMPLIED
      totalDistance         CDATA #IMPLIED
      totalDistanceUnit     CDATA #IMPLIED
      totalEnergyBurned     CDATA #IMPLIED
      totalEnergyBurnedUnit CDATA #IMPLIED
      sourceName            CDATA #IMPLIED
      sourceVersion         CDATA #IMPLIED
      device                CDATA #IMPLIED
      creationDate          CDATA #IMPLIED
      startDate             CDATA #IMPLIED
      endDate               CDATA #IMPLIED
    >
    <!ELEMENT WorkoutActivity (MetadataEntry|WorkoutEvent|WorkoutStatistics)*>
    <!ATTLIST WorkoutActivity
      uuid         CDATA #IMPLIED
      startDate    CDATA #IMPLIED
      endDate      CDATA #IMPLIED
      duration     CDATA #IMPLIED
      durationUnit CDATA #IMPLIED
    >
    <!ELEMENT WorkoutEvent (MetadataEntry)*>
    <!ATTLIST WorkoutEvent
      type         CDATA #IMPLIED
      date         CDATA #IMPLIED
      duration     CDATA #IMPLIED
      durationUnit CDATA #IMPLIED
    >
    <!ELEMENT WorkoutStatistics EMPTY>
    <!ATTLIST WorkoutStatistics
      type      CDATA #IMPLIED
      startDate CDATA #IMPLIED
      endDate   CDATA #IMPLIED
      average   CDATA #IMPLIED
      minimum   CDATA #IMPLIED
      maximum   CDATA #IMPLIED
      sum       CDATA #IMPLIED
      unit      CDATA #IMPLIED
    >
    <!ELEMENT WorkoutRoute (MetadataEntry|FileReference|Location)*>
    <!ATTLIST WorkoutRoute
      sourceName    CDATA #IMPLIED
      sourceVersion CDATA #IMPLIED
      device        CDATA #IMPLIED
      creationDate  CDATA #IMPLIED
      startDate     CDATA #IMPLIED
      endDate       CDATA #IMPLIED
    >
    <!ELEMENT FileReference EMPTY>
    <!ATTLIST FileReference
      path CDATA #IMPLIED
    >
    <!ELEMENT Location EMPTY>
    <!ATTLIST Location
      date               CDATA #IMPLIED
      latitude           CDATA #IMPLIED
      longitude          CDATA #IMPLIED
      altitude           CDATA #IMPLIED
      horizontalAccuracy CDATA #IMPLIED
      verticalAccuracy   CDATA #IMPLIED
      course             CDATA #IMPLIED
      speed              CDATA #IMPLIED
    >
    <!ELEMENT ActivitySummary EMPTY>
    <!ATTLIST ActivitySummary
      dateComponents         CDATA #IMPLIED
      activeEnergyBurned     CDATA #IMPLIED
      activeEnergyBurnedGoal CDATA #IMPLIED
      activeEnergyBurnedUnit CDATA #IMPLIED
      appleMoveTime          CDATA #IMPLIED
      appleMoveTimeGoal      CDATA #IMPLIED
      appleMoveMinutes       CDATA #IMPLIED
      appleMoveMinutesGoal   CDATA #IMPLIED
      appleExerciseTime      CDATA #IMPLIED
      appleExerciseTimeGoal  CDATA #IMPLIED
      appleStandHours        CDATA #IMPLIED
      appleStandHoursGoal    CDATA #IMPLIED
    >
    <!ELEMENT ClinicalRecord EMPTY>
    <!ATTLIST ClinicalRecord
      type             CDATA #IMPLIED
      identifier       CDATA #IMPLIED
      sourceName       CDATA #IMPLIED
      sourceURL        CDATA #IMPLIED
      fhirVersion      CDATA #IMPLIED
      receivedDate     CDATA #IMPLIED
      resourceFilePath CDATA #IMPLIED
    >
    <!ELEMENT Audiogram (MetadataEntry|SensitivityPoint)*>
    <!ATTLIST Audiogram
      \(sampleAttributes)
    >
    <!ELEMENT SensitivityPoint EMPTY>
    <!ATTLIST SensitivityPoint
      frequencyValue                  CDATA #IMPLIED
      frequencyUnit                   CDATA #IMPLIED
      leftEarValue                    CDATA #IMPLIED
      leftEarUnit                     CDATA #IMPLIED
      leftEarMasked                   CDATA #IMPLIED
      leftEarClampingRangeLowerBound  CDATA #IMPLIED
      leftEarClampingRangeUpperBound  CDATA #IMPLIED
      rightEarValue                   CDATA #IMPLIED
      rightEarUnit                    CDATA #IMPLIED
      rightEarMasked                  CDATA #IMPLIED
      rightEarClampingRangeLowerBound CDATA #IMPLIED
      rightEarClampingRangeUpperBound CDATA #IMPLIED
    >
    <!ELEMENT VisionPrescription (RightEye|LeftEye|Attachment|MetadataEntry)*>
    <!ATTLIST VisionPrescription
      type           CDATA #IMPLIED
      dateIssued     CDATA #IMPLIED
      expirationDate CDATA #IMPLIED
      brand          CDATA #IMPLIED
    >
    <!ELEMENT RightEye EMPTY>
    <!ATTLIST RightEye
    \(eyeAttributes)>
    <!ELEMENT LeftEye EMPTY>
    <!ATTLIST LeftEye
    \(eyeAttributes)>
    <!ELEMENT Attachment EMPTY>
    <!ATTLIST Attachment
      identifier CDATA #IMPLIED
    >
    ]>

    """

  private static let eyeAttributes: String = [
    "sphere", "cylinder", "axis", "add", "vertex", "prismAmount", "prismAngle", "farPD", "nearPD", "baseCurve",
    "diameter",
  ].flatMap { [$0, $0 + "Unit"] }.map { "  \($0.padding(16)) CDATA #IMPLIED\n" }.joined()
}

extension String {
  fileprivate func padding(_ width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
