/// `<MetadataEntry key="…" value="…"/>`: a key/value pair; values are always strings
/// (numbers, `0`/`1`, quantities with units such as `"418 cm"`, dates, UUIDs).
public struct MetadataEntry: Hashable, Sendable {
  /// The key, such as `HKMetadataKeyHeartRateMotionContext`.
  public var key: String
  /// The value, as written.
  public var value: String
  package var extraAttributes: [Attribute] = []
  package var extraChildren: [ElementNode] = []
  /// Character data that is not white space, its runs between children joined (never in Apple
  /// exports; its place among the children is not kept).
  package var text: String? = nil

  package init(key: String, value: String) {
    self.key = key
    self.value = value
  }
}

/// `<InstantaneousBeatsPerMinute bpm="62" time="6:14:48.94 PM"/>` inside an HRV list. `time` is a
/// locale-formatted time of day in the phone's real local zone, kept as written.
package struct InstantaneousBeatsPerMinute: Hashable, Sendable {
  package var bpm: String
  package var time: String
  package var extraAttributes: [Attribute] = []
  package var extraChildren: [ElementNode] = []

  package init(bpm: String, time: String) {
    self.bpm = bpm
    self.time = time
  }
}

/// `<HeartRateVariabilityMetadataList>`: the beats behind an HRV SDNN record.
package struct HeartRateVariabilityList: Hashable, Sendable {
  package enum Child: Hashable, Sendable {
    case beat(InstantaneousBeatsPerMinute)
    case other(ElementNode)
  }
  package var children: [Child] = []
  package var extraAttributes: [Attribute] = []

  package init(children: [Child] = []) { self.children = children }

  package var beats: [InstantaneousBeatsPerMinute] {
    children.compactMap { if case .beat(let beat) = $0 { beat } else { nil } }
  }
}

/// The attributes every sample-like element shares.
package protocol SourcedSample {
  var sourceName: String { get }
  var sourceVersion: String? { get }
  /// The device string, stored compactly (see ``DeviceString``).
  var deviceString: DeviceString? { get set }
  var sourceProduct: String? { get }
  var creationDate: HealthDate? { get }
  var startDate: HealthDate { get }
  var endDate: HealthDate { get }
}

extension SourcedSample {
  /// The device string exactly as written (memory address included); see ``deviceInfo``.
  package var device: String? {
    get { deviceString?.description }
    set { deviceString = newValue.map(DeviceString.init) }
  }

  /// The parsed `device` string, with the memory address dropped.
  package var deviceInfo: DeviceInfo? { device.flatMap(DeviceInfo.init(parsing:)) }
}

/// `<Record>`: a quantity sample (with `unit` and a numeric `value`) or a category sample
/// (`value` is an enum name such as `HKCategoryValueSleepAnalysisAsleepCore`, or absent).
public struct Record: Hashable, Sendable, SourcedSample {
  package enum Child: Hashable, Sendable {
    case metadata(MetadataEntry)
    case heartRateVariability(HeartRateVariabilityList)
    case other(ElementNode)
  }

  /// The sample type, such as `HKQuantityTypeIdentifierStepCount`.
  public var type: String
  /// The app or device that wrote the sample (`Alice’s Apple Watch`).
  public var sourceName: String
  package var sourceVersion: String?
  /// The device string exactly as written (memory address included); see `deviceInfo`.
  public var device: String? {
    get { deviceString?.description }
    set { deviceString = newValue.map(DeviceString.init) }
  }
  /// The device string, stored compactly (see ``DeviceString``).
  package var deviceString: DeviceString? = nil
  /// The unit of a quantity sample (`count`, `count/min`, `kg`); nil for a category sample.
  public var unit: String?
  /// When the sample was saved to Health; nil when not written.
  public var creationDate: HealthDate?
  /// When the sample starts.
  public var startDate: HealthDate
  /// When the sample ends (equal to ``startDate`` for an instant).
  public var endDate: HealthDate
  /// The value exactly as written.
  public var value: String?
  package var extraAttributes: [Attribute] = []
  /// Children in document order (a long run of metadata entries packed, ``RecordChildren``).
  package var children: RecordChildren = []
  /// "Watch", "iPhone", … derived from the device and source name (`SourceProduct`).
  public var sourceProduct: String?
  /// Character data that is not white space, its runs between children joined (never in Apple
  /// exports; its place among the children is not kept).
  package var text: String? = nil

  package init(
    type: String, sourceName: String, sourceVersion: String? = nil, device: String? = nil,
    unit: String? = nil, creationDate: HealthDate? = nil, startDate: HealthDate, endDate: HealthDate,
    value: String? = nil
  ) {
    self.type = type
    self.sourceName = sourceName
    self.sourceVersion = sourceVersion
    self.deviceString = device.map(DeviceString.init)
    self.unit = unit
    self.creationDate = creationDate
    self.startDate = startDate
    self.endDate = endDate
    self.value = value
  }

  /// The value as a number, when it is one (quantity samples, and category values of iOS 8 exports).
  public var numericValue: Double? { value.flatMap { Double($0) } }

  /// The `MetadataEntry` children, in document order.
  public var metadata: [MetadataEntry] {
    children.compactMap { if case .metadata(let entry) = $0 { entry } else { nil } }
  }

  package var heartRateVariability: HeartRateVariabilityList? {
    for child in children { if case .heartRateVariability(let list) = child { return list } }
    return nil
  }
}

/// `<Correlation>`: a blood-pressure or food correlation. Its child Records also appear as
/// top-level Records in the export; they are kept here and never counted twice.
public struct Correlation: Hashable, Sendable, SourcedSample {
  package enum Child: Hashable, Sendable {
    case metadata(MetadataEntry)
    case record(Record)
    case other(ElementNode)
  }

  /// The correlation type, such as `HKCorrelationTypeIdentifierBloodPressure`.
  public var type: String
  /// The app or device that wrote the correlation.
  public var sourceName: String
  package var sourceVersion: String?
  package var deviceString: DeviceString? = nil
  package var creationDate: HealthDate?
  /// When the correlation starts.
  public var startDate: HealthDate
  /// When the correlation ends.
  public var endDate: HealthDate
  package var extraAttributes: [Attribute] = []
  package var children: [Child] = []
  package var sourceProduct: String?
  /// Character data that is not white space, its runs between children joined (never in Apple
  /// exports; its place among the children is not kept).
  package var text: String? = nil

  package init(
    type: String, sourceName: String, sourceVersion: String? = nil, device: String? = nil,
    creationDate: HealthDate? = nil, startDate: HealthDate, endDate: HealthDate
  ) {
    self.type = type
    self.sourceName = sourceName
    self.sourceVersion = sourceVersion
    self.deviceString = device.map(DeviceString.init)
    self.creationDate = creationDate
    self.startDate = startDate
    self.endDate = endDate
  }

  /// The Records it correlates (each also a top-level Record of the export).
  public var records: [Record] { children.compactMap { if case .record(let r) = $0 { r } else { nil } } }
  /// The `MetadataEntry` children, in document order.
  public var metadata: [MetadataEntry] {
    children.compactMap { if case .metadata(let entry) = $0 { entry } else { nil } }
  }
}

/// `<WorkoutEvent>`: pause, resume, lap, marker, segment… (`MetadataEntry` children since v13).
package struct WorkoutEvent: Hashable, Sendable {
  package var type: String
  package var date: HealthDate
  package var duration: String?
  package var durationUnit: String?
  package var extraAttributes: [Attribute] = []
  /// `MetadataEntry` (and unknown) children in order.
  package var children: [WorkoutChildNode] = []

  package init(type: String, date: HealthDate, duration: String? = nil, durationUnit: String? = nil) {
    self.type = type
    self.date = date
    self.duration = duration
    self.durationUnit = durationUnit
  }
}

/// A child that is either a metadata entry or an element healthport keeps generically.
package enum WorkoutChildNode: Hashable, Sendable {
  case metadata(MetadataEntry)
  case other(ElementNode)
}

/// `<WorkoutStatistics>`: per-workout totals (iOS 16+): `sum` for cumulative types,
/// `average`/`minimum`/`maximum` for discrete ones. Numbers are kept as written.
package struct WorkoutStatistics: Hashable, Sendable {
  package var type: String
  package var startDate: HealthDate
  package var endDate: HealthDate
  package var average: String?
  package var minimum: String?
  package var maximum: String?
  package var sum: String?
  package var unit: String?
  package var extraAttributes: [Attribute] = []
  package var extraChildren: [ElementNode] = []

  package init(
    type: String, startDate: HealthDate, endDate: HealthDate, average: String? = nil,
    minimum: String? = nil, maximum: String? = nil, sum: String? = nil, unit: String? = nil
  ) {
    self.type = type
    self.startDate = startDate
    self.endDate = endDate
    self.average = average
    self.minimum = minimum
    self.maximum = maximum
    self.sum = sum
    self.unit = unit
  }
}

/// `<WorkoutActivity>`: one part of a multisport or interval workout (iOS 16+).
package struct WorkoutActivity: Hashable, Sendable {
  package enum Child: Hashable, Sendable {
    case metadata(MetadataEntry)
    case event(WorkoutEvent)
    case statistics(WorkoutStatistics)
    case other(ElementNode)
  }
  package var uuid: String
  package var startDate: HealthDate
  package var endDate: HealthDate?
  package var duration: String?
  package var durationUnit: String?
  package var extraAttributes: [Attribute] = []
  package var children: [Child] = []

  package init(
    uuid: String, startDate: HealthDate, endDate: HealthDate? = nil, duration: String? = nil,
    durationUnit: String? = nil
  ) {
    self.uuid = uuid
    self.startDate = startDate
    self.endDate = endDate
    self.duration = duration
    self.durationUnit = durationUnit
  }
}

/// `<FileReference path="/workout-routes/route_….gpx"/>`: a GPX file beside export.xml.
package struct FileReference: Hashable, Sendable {
  package var path: String
  package var extraAttributes: [Attribute] = []
  package var extraChildren: [ElementNode] = []
  package init(path: String) { self.path = path }
}

/// `<WorkoutRoute>`: a route, as a GPX file reference (iOS 13+) or inline legacy `Location` points.
package struct WorkoutRoute: Hashable, Sendable, SourcedSample {
  package enum Child: Hashable, Sendable {
    case metadata(MetadataEntry)
    case fileReference(FileReference)
    /// A legacy `<Location>` point (iOS 12 and older), kept with its attributes in order.
    case location(ElementNode)
    case other(ElementNode)
  }
  package var sourceName: String
  package var sourceVersion: String?
  package var deviceString: DeviceString? = nil
  package var creationDate: HealthDate?
  package var startDate: HealthDate
  package var endDate: HealthDate
  package var extraAttributes: [Attribute] = []
  package var children: [Child] = []
  package var sourceProduct: String?

  package init(
    sourceName: String, sourceVersion: String? = nil, device: String? = nil,
    creationDate: HealthDate? = nil, startDate: HealthDate, endDate: HealthDate
  ) {
    self.sourceName = sourceName
    self.sourceVersion = sourceVersion
    self.deviceString = device.map(DeviceString.init)
    self.creationDate = creationDate
    self.startDate = startDate
    self.endDate = endDate
  }
}

/// `<Workout>`. Children keep their document order, including the metadata block that v13/v14
/// exports write twice (first and again after the routes).
public struct Workout: Hashable, Sendable, SourcedSample {
  package enum Child: Hashable, Sendable {
    case metadata(MetadataEntry)
    case event(WorkoutEvent)
    case activity(WorkoutActivity)
    case statistics(WorkoutStatistics)
    case route(WorkoutRoute)
    case other(ElementNode)
  }

  /// The activity, such as `HKWorkoutActivityTypeRunning`.
  public var workoutActivityType: String
  /// The duration as written, in ``durationUnit``.
  public var duration: String?
  /// The unit of ``duration`` (`min`).
  public var durationUnit: String?
  /// The distance as written, in ``totalDistanceUnit``; nil when not written.
  public var totalDistance: String?
  /// The unit of ``totalDistance`` (`km`, `mi`).
  public var totalDistanceUnit: String?
  /// The active energy as written, in ``totalEnergyBurnedUnit``; nil when not written.
  public var totalEnergyBurned: String?
  /// The unit of ``totalEnergyBurned`` (`kcal`, `kJ`).
  public var totalEnergyBurnedUnit: String?
  /// The app or device that recorded the workout.
  public var sourceName: String
  package var sourceVersion: String?
  package var deviceString: DeviceString? = nil
  package var creationDate: HealthDate?
  /// When the workout starts.
  public var startDate: HealthDate
  /// When the workout ends.
  public var endDate: HealthDate
  package var extraAttributes: [Attribute] = []
  package var children: [Child] = []
  /// "Watch", "iPhone", … derived from the device and source name.
  public var sourceProduct: String?
  /// Character data that is not white space, its runs between children joined (never in Apple
  /// exports; its place among the children is not kept).
  package var text: String? = nil

  package init(
    workoutActivityType: String, duration: String? = nil, durationUnit: String? = nil,
    totalDistance: String? = nil, totalDistanceUnit: String? = nil, totalEnergyBurned: String? = nil,
    totalEnergyBurnedUnit: String? = nil, sourceName: String, sourceVersion: String? = nil,
    device: String? = nil, creationDate: HealthDate? = nil, startDate: HealthDate, endDate: HealthDate
  ) {
    self.workoutActivityType = workoutActivityType
    self.duration = duration
    self.durationUnit = durationUnit
    self.totalDistance = totalDistance
    self.totalDistanceUnit = totalDistanceUnit
    self.totalEnergyBurned = totalEnergyBurned
    self.totalEnergyBurnedUnit = totalEnergyBurnedUnit
    self.sourceName = sourceName
    self.sourceVersion = sourceVersion
    self.deviceString = device.map(DeviceString.init)
    self.creationDate = creationDate
    self.startDate = startDate
    self.endDate = endDate
  }

  /// The `MetadataEntry` children, in document order.
  public var metadata: [MetadataEntry] {
    children.compactMap { if case .metadata(let entry) = $0 { entry } else { nil } }
  }
  package var events: [WorkoutEvent] { children.compactMap { if case .event(let e) = $0 { e } else { nil } } }
  package var activities: [WorkoutActivity] {
    children.compactMap { if case .activity(let a) = $0 { a } else { nil } }
  }
  /// The workout's own statistics (not those inside its activities).
  package var statistics: [WorkoutStatistics] {
    children.compactMap { if case .statistics(let s) = $0 { s } else { nil } }
  }
  package var routes: [WorkoutRoute] { children.compactMap { if case .route(let r) = $0 { r } else { nil } } }
}

/// Elements whose attributes vary across export versions are kept as ordered attribute lists,
/// with typed accessors for what healthport uses.
package protocol GenericBackedElement {
  var node: ElementNode { get set }
}

extension GenericBackedElement {
  package subscript(attribute name: String) -> String? { node[attribute: name] }
}

/// `<Me>`: the user's characteristics (date of birth, biological sex, blood type, …).
public struct Me: Hashable, Sendable, GenericBackedElement {
  /// The element as read: the characteristics are its attributes.
  public var node: ElementNode
  package init(node: ElementNode) { self.node = node }
  package var dateOfBirth: String? { self[attribute: "HKCharacteristicTypeIdentifierDateOfBirth"] }
  package var biologicalSex: String? { self[attribute: "HKCharacteristicTypeIdentifierBiologicalSex"] }
  package var bloodType: String? { self[attribute: "HKCharacteristicTypeIdentifierBloodType"] }
  package var fitzpatrickSkinType: String? { self[attribute: "HKCharacteristicTypeIdentifierFitzpatrickSkinType"] }
  package var cardioFitnessMedicationsUse: String? {
    self[attribute: "HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse"]
  }
}

/// `<ExportDate value="…"/>`: when the export was made; its offset is the one every date uses.
public struct ExportDate: Hashable, Sendable, GenericBackedElement {
  /// The element as read: the date is its `value` attribute.
  public var node: ElementNode
  package init(node: ElementNode) { self.node = node }
  package var value: String? { self[attribute: "value"] }
  package var date: HealthDate? { value.flatMap(HealthDate.init) }
}

/// `<ActivitySummary>`: one day of activity rings. `dateComponents` is a calendar day.
public struct ActivitySummary: Hashable, Sendable, GenericBackedElement {
  /// The element as read: the day and the rings' values are its attributes.
  public var node: ElementNode
  package init(node: ElementNode) { self.node = node }
  package var dateComponents: String? { self[attribute: "dateComponents"] }
}

/// `<ClinicalRecord>`: a Health Records (FHIR) entry; the resource is a JSON file beside export.xml.
public struct ClinicalRecord: Hashable, Sendable, GenericBackedElement {
  /// The element as read.
  public var node: ElementNode
  package init(node: ElementNode) { self.node = node }
  package var type: String? { self[attribute: "type"] }
  package var sourceName: String? { self[attribute: "sourceName"] }
}

/// `<Audiogram>` with its `SensitivityPoint` and `MetadataEntry` children.
public struct Audiogram: Hashable, Sendable, GenericBackedElement {
  /// The element as read, with its `SensitivityPoint` children.
  public var node: ElementNode
  package init(node: ElementNode) { self.node = node }
  package var type: String? { self[attribute: "type"] }
  package var sourceName: String? { self[attribute: "sourceName"] }
  package var sensitivityPoints: [ElementNode] { node.children.filter { $0.name == "SensitivityPoint" } }
}

/// `<VisionPrescription>` with `RightEye`, `LeftEye`, `Attachment` and `MetadataEntry` children.
public struct VisionPrescription: Hashable, Sendable, GenericBackedElement {
  /// The element as read, with its eye and attachment children.
  public var node: ElementNode
  package init(node: ElementNode) { self.node = node }
  package var type: String? { self[attribute: "type"] }
  package var dateIssued: String? { self[attribute: "dateIssued"] }
}

/// One child of `<HealthData>`, handed on as soon as its end tag is read.
public enum ExportElement: Hashable, Sendable {
  /// `<ExportDate>`: when the export was made.
  case exportDate(ExportDate)
  /// `<Me>`: the user's characteristics.
  case me(Me)
  /// `<Record>`: one sample, the export's bulk.
  case record(Record)
  /// `<Correlation>`: blood pressure or food, with its Records.
  indirect case correlation(Correlation)
  /// `<Workout>`, with its events, activities, statistics and routes.
  indirect case workout(Workout)
  /// `<ActivitySummary>`: one day of activity rings.
  case activitySummary(ActivitySummary)
  /// `<ClinicalRecord>`: a Health Records entry.
  case clinicalRecord(ClinicalRecord)
  /// `<Audiogram>`: a hearing test.
  case audiogram(Audiogram)
  /// `<VisionPrescription>`: glasses or contact lenses.
  case visionPrescription(VisionPrescription)
  /// An element healthport does not know, kept whole.
  case other(ElementNode)

  /// The element name as in the export.
  public var elementName: String {
    switch self {
    case .exportDate: "ExportDate"
    case .me: "Me"
    case .record: "Record"
    case .correlation: "Correlation"
    case .workout: "Workout"
    case .activitySummary: "ActivitySummary"
    case .clinicalRecord: "ClinicalRecord"
    case .audiogram: "Audiogram"
    case .visionPrescription: "VisionPrescription"
    case .other(let node): node.name
    }
  }
}

/// What precedes the elements: the prolog and the root's attributes.
public struct ExportHeader: Hashable, Sendable {
  /// Bytes before `<HealthData`, verbatim (XML declaration, DOCTYPE and internal subset).
  package var prolog: [UInt8]
  /// Attributes of `<HealthData>` in order (`locale`).
  package var rootAttributes: [Attribute]
  /// The root element's name (always `HealthData` in real exports).
  package var rootName: String

  package init(prolog: [UInt8], rootAttributes: [Attribute], rootName: String = "HealthData") {
    self.prolog = prolog
    self.rootAttributes = rootAttributes
    self.rootName = rootName
  }

  /// The root's `locale` attribute (`en_GB`), when written.
  public var locale: String? { rootAttributes.first { $0.name == "locale" }?.value }

  /// N from `<!-- HealthKit Export Version: N -->`, nil without one.
  public var exportVersion: Int? {
    let marker = Array("HealthKit Export Version:".utf8)
    guard prolog.count >= marker.count else { return nil }
    for start in 0...(prolog.count - marker.count)
    where prolog[start] == marker[0] && prolog[start..<(start + marker.count)].elementsEqual(marker) {
      var index = start + marker.count
      while index < prolog.count, prolog[index] == 0x20 { index += 1 }
      var value = 0
      var digits = 0
      while index < prolog.count, (48...57).contains(prolog[index]), digits < 9 {
        value = value * 10 + Int(prolog[index] - 48)
        digits += 1
        index += 1
      }
      return digits > 0 ? value : nil
    }
    return nil
  }
}
