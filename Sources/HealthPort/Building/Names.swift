/// Element names healthport knows, matched on bytes.
enum ElementName {
  case healthData, exportDate, me, record, correlation, workout, activitySummary, clinicalRecord
  case audiogram, visionPrescription, metadataEntry, hrvList, beat, workoutEvent, workoutActivity
  case workoutStatistics, workoutRoute, fileReference, location, unknown

  init(_ name: ByteView) {
    let b = name.buffer
    switch b.count {
    case 2: self = name.equals(Self.meBytes) ? .me : .unknown
    case 6: self = name.equals(Self.recordBytes) ? .record : .unknown
    case 7: self = name.equals(Self.workoutBytes) ? .workout : .unknown
    case 8: self = name.equals(Self.locationBytes) ? .location : .unknown
    case 9: self = name.equals(Self.audiogramBytes) ? .audiogram : .unknown
    case 10:
      self =
        name.equals(Self.healthDataBytes) ? .healthData : name.equals(Self.exportDateBytes) ? .exportDate : .unknown
    case 11: self = name.equals(Self.correlationBytes) ? .correlation : .unknown
    case 12:
      self =
        name.equals(Self.workoutEventBytes)
        ? .workoutEvent : name.equals(Self.workoutRouteBytes) ? .workoutRoute : .unknown
    case 13:
      self =
        name.equals(Self.metadataEntryBytes)
        ? .metadataEntry : name.equals(Self.fileReferenceBytes) ? .fileReference : .unknown
    case 14: self = name.equals(Self.clinicalRecordBytes) ? .clinicalRecord : .unknown
    case 15:
      self =
        name.equals(Self.activitySummaryBytes)
        ? .activitySummary : name.equals(Self.workoutActivityBytes) ? .workoutActivity : .unknown
    case 17: self = name.equals(Self.workoutStatisticsBytes) ? .workoutStatistics : .unknown
    case 18: self = name.equals(Self.visionPrescriptionBytes) ? .visionPrescription : .unknown
    case 27: self = name.equals(Self.beatBytes) ? .beat : .unknown
    case 32: self = name.equals(Self.hrvListBytes) ? .hrvList : .unknown
    default: self = .unknown
    }
  }

  static let meBytes = StaticBytes("Me")
  static let recordBytes = StaticBytes("Record")
  static let workoutBytes = StaticBytes("Workout")
  static let locationBytes = StaticBytes("Location")
  static let audiogramBytes = StaticBytes("Audiogram")
  static let healthDataBytes = StaticBytes("HealthData")
  static let exportDateBytes = StaticBytes("ExportDate")
  static let correlationBytes = StaticBytes("Correlation")
  static let workoutEventBytes = StaticBytes("WorkoutEvent")
  static let workoutRouteBytes = StaticBytes("WorkoutRoute")
  static let metadataEntryBytes = StaticBytes("MetadataEntry")
  static let fileReferenceBytes = StaticBytes("FileReference")
  static let clinicalRecordBytes = StaticBytes("ClinicalRecord")
  static let activitySummaryBytes = StaticBytes("ActivitySummary")
  static let workoutActivityBytes = StaticBytes("WorkoutActivity")
  static let workoutStatisticsBytes = StaticBytes("WorkoutStatistics")
  static let visionPrescriptionBytes = StaticBytes("VisionPrescription")
  static let beatBytes = StaticBytes("InstantaneousBeatsPerMinute")
  static let hrvListBytes = StaticBytes("HeartRateVariabilityMetadataList")
}

/// Attribute names of the typed elements, matched on bytes.
enum AttributeName: Int {
  case type, unit, value, sourceName, sourceVersion, device, creationDate, startDate, endDate
  case workoutActivityType, duration, durationUnit, totalDistance, totalDistanceUnit
  case totalEnergyBurned, totalEnergyBurnedUnit, date, uuid, average, minimum, maximum, sum
  case key, bpm, time, path, unknown

  var bit: UInt32 { 1 << UInt32(rawValue) }

  init(_ name: ByteView) {
    let b = name.buffer
    switch b.count {
    case 3:
      self = name.equals(B.sum) ? .sum : name.equals(B.key) ? .key : name.equals(B.bpm) ? .bpm : .unknown
    case 4:
      switch b[0] {
      case UInt8(ascii: "t"): self = name.equals(B.type) ? .type : name.equals(B.time) ? .time : .unknown
      case UInt8(ascii: "u"): self = name.equals(B.unit) ? .unit : name.equals(B.uuid) ? .uuid : .unknown
      case UInt8(ascii: "d"): self = name.equals(B.date) ? .date : .unknown
      case UInt8(ascii: "p"): self = name.equals(B.path) ? .path : .unknown
      default: self = .unknown
      }
    case 5: self = name.equals(B.value) ? .value : .unknown
    case 6: self = name.equals(B.device) ? .device : .unknown
    case 7:
      switch b[1] {
      case UInt8(ascii: "n"): self = name.equals(B.endDate) ? .endDate : .unknown
      case UInt8(ascii: "v"): self = name.equals(B.average) ? .average : .unknown
      case UInt8(ascii: "i"): self = name.equals(B.minimum) ? .minimum : .unknown
      case UInt8(ascii: "a"): self = name.equals(B.maximum) ? .maximum : .unknown
      default: self = .unknown
      }
    case 8: self = name.equals(B.duration) ? .duration : .unknown
    case 9: self = name.equals(B.startDate) ? .startDate : .unknown
    case 10: self = name.equals(B.sourceName) ? .sourceName : .unknown
    case 12:
      self = name.equals(B.creationDate) ? .creationDate : name.equals(B.durationUnit) ? .durationUnit : .unknown
    case 13:
      self = name.equals(B.sourceVersion) ? .sourceVersion : name.equals(B.totalDistance) ? .totalDistance : .unknown
    case 17:
      self =
        name.equals(B.totalDistanceUnit)
        ? .totalDistanceUnit : name.equals(B.totalEnergyBurned) ? .totalEnergyBurned : .unknown
    case 19: self = name.equals(B.workoutActivityType) ? .workoutActivityType : .unknown
    case 21: self = name.equals(B.totalEnergyBurnedUnit) ? .totalEnergyBurnedUnit : .unknown
    default: self = .unknown
    }
  }

  enum B {
    static let type = StaticBytes("type")
    static let unit = StaticBytes("unit")
    static let value = StaticBytes("value")
    static let sourceName = StaticBytes("sourceName")
    static let sourceVersion = StaticBytes("sourceVersion")
    static let device = StaticBytes("device")
    static let creationDate = StaticBytes("creationDate")
    static let startDate = StaticBytes("startDate")
    static let endDate = StaticBytes("endDate")
    static let workoutActivityType = StaticBytes("workoutActivityType")
    static let duration = StaticBytes("duration")
    static let durationUnit = StaticBytes("durationUnit")
    static let totalDistance = StaticBytes("totalDistance")
    static let totalDistanceUnit = StaticBytes("totalDistanceUnit")
    static let totalEnergyBurned = StaticBytes("totalEnergyBurned")
    static let totalEnergyBurnedUnit = StaticBytes("totalEnergyBurnedUnit")
    static let date = StaticBytes("date")
    static let uuid = StaticBytes("uuid")
    static let average = StaticBytes("average")
    static let minimum = StaticBytes("minimum")
    static let maximum = StaticBytes("maximum")
    static let sum = StaticBytes("sum")
    static let key = StaticBytes("key")
    static let bpm = StaticBytes("bpm")
    static let time = StaticBytes("time")
    static let path = StaticBytes("path")
  }
}

/// Remembers which ``AttributeName`` a name identity stands for (names are interned by the
/// readers, see ``ElementAttributes/nameIdentity(at:)``), so the bytes are compared once per name.
struct AttributeNameCache {
  private var keys = [UnsafeRawPointer?](repeating: nil, count: 64)
  private var values = [AttributeName](repeating: .unknown, count: 64)

  @inline(__always)
  mutating func name<Attributes: ElementAttributes>(_ attributes: Attributes, _ index: Int) -> AttributeName {
    let key = attributes.nameIdentity(at: index)
    let slot = Int(bitPattern: UInt(bitPattern: key) >> 3) & 63
    if keys[slot] == key { return values[slot] }
    let name = AttributeName(attributes.name(at: index))
    keys[slot] = key
    values[slot] = name
    return name
  }
}
