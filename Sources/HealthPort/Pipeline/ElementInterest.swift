#if canImport(Glibc)
  import Glibc
#endif

/// Which top-level elements a sink needs. The reader passes over the others without building
/// them: their XML is still checked for well-formedness, but their values are not read.
///
/// `healthport steps` needs only StepCount Records and `workouts` only Workouts; building the
/// millions of other elements would cost most of their time.
public struct ElementInterest: Sendable {
  /// Record types wanted; nil for every type.
  public var recordTypes: Set<String>?
  /// Whether Records are wanted (of ``recordTypes``).
  public var records = true
  /// Whether Correlations are wanted.
  public var correlations = true
  /// Whether Workouts are wanted.
  public var workouts = true
  /// ActivitySummary, ClinicalRecord, Audiogram, VisionPrescription and unknown elements.
  public var others = true

  /// Every element, as ``everything``.
  public init() {}

  /// Every element (the default).
  public static let everything = ElementInterest()

  /// Only Records of these types.
  package static func records(ofTypes types: Set<String>) -> ElementInterest {
    var interest = ElementInterest.nothing
    interest.records = true
    interest.recordTypes = types
    return interest
  }

  /// Only Workouts.
  package static var workoutsOnly: ElementInterest {
    var interest = ElementInterest.nothing
    interest.workouts = true
    return interest
  }

  /// Nothing but the header, ExportDate and Me (which are always read).
  package static var nothing: ElementInterest {
    var interest = ElementInterest()
    interest.records = false
    interest.correlations = false
    interest.workouts = false
    interest.others = false
    return interest
  }

  /// What both want.
  package func intersection(_ other: ElementInterest) -> ElementInterest {
    var result = ElementInterest()
    result.records = records && other.records
    result.correlations = correlations && other.correlations
    result.workouts = workouts && other.workouts
    result.others = others && other.others
    switch (recordTypes, other.recordTypes) {
    case (nil, nil): result.recordTypes = nil
    case (let a?, nil): result.recordTypes = a
    case (nil, let b?): result.recordTypes = b
    case (let a?, let b?): result.recordTypes = a.intersection(b)
    }
    return result
  }
}

extension ExportSink {
  /// Every element, unless a sink says otherwise.
  public var interest: ElementInterest { .everything }
}

/// Decides from a Record's `type` bytes whether it is wanted, remembering the last answer
/// (Records come grouped by type).
struct RecordTypeMatcher {
  private let wanted: [[UInt8]]?
  private var lastBytes: [UInt8] = []
  private var lastAnswer = false

  init(_ types: Set<String>?) { wanted = types.map { $0.map { Array($0.utf8) } } }

  var wantsAll: Bool { wanted == nil }

  mutating func wants(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let wanted else { return true }
    if bytes.count == lastBytes.count, !lastBytes.isEmpty,
      lastBytes.withUnsafeBytes({ memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 })
    {
      return lastAnswer
    }
    lastAnswer = wanted.contains { $0.elementsEqual(bytes) }
    lastBytes = Array(bytes)
    return lastAnswer
  }
}
