import Foundation
import Testing

/// `info` with several parsers tallies the top-level Records on the parsing threads instead of
/// building them (issue 16): the same summary, warnings and first error as one thread, which
/// builds every Record, on inputs made to find where the two could differ.
@Suite("info: Records tallied per range, the same summary as built ones")
struct RecordTallyTests {
  static let head = """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">

    """

  static func record(
    _ type: String, start: String, end: String? = nil, value: String? = "1", unit: String? = "count",
    source: String = "Anna’s Apple Watch", extra: String = "", children: String = ""
  ) -> String {
    let device =
      "&lt;&lt;HKDevice: 0x2807d8aa0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:9.1&gt;"
    var text =
      " <Record type=\"\(type)\" sourceName=\"\(source)\" sourceVersion=\"9.1\" device=\"\(device)\""
    if let unit { text += " unit=\"\(unit)\"" }
    text += " creationDate=\"\(end ?? start)\" startDate=\"\(start)\" endDate=\"\(end ?? start)\""
    if let value { text += " value=\"\(value)\"" }
    text += extra
    return text + (children.isEmpty ? "/>\n" : ">\n\(children) </Record>\n")
  }

  /// An export whose Records have every kind of child the builder tells apart, unknown
  /// attributes, no value, dates after the export's own date on both sides of a late
  /// `ExportDate` (and of a second one), ties for the earliest start in other time zones, and
  /// other elements between them.
  static func oddExport(damage: String = "") -> String {
    var text = head
    let steps = "HKQuantityTypeIdentifierStepCount"
    for day in 10...29 {
      let date = "2024-03-\(day) 08:00:00 +0100"
      text += record(steps, start: date, value: "\(day * 7)")
      text += record(steps, start: "2024-03-\(day) 08:00:00 +0000", source: "iPhone", extra: " note=\"x&amp;y\"")
      text += record(
        "HKQuantityTypeIdentifierHeartRate", start: date, value: "61", unit: "count/min",
        children: """
            <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>
            <MetadataEntry key="HKWeird" value="2"><Nested a="1"><Deeper/></Nested></MetadataEntry>
            <Unknown kind="x">text <Inner/> more</Unknown>
            <Record type="inner" sourceName="s" startDate="\(date)" endDate="\(date)"/>

          """)
      text += record("HKCategoryTypeIdentifierMindfulSession", start: date, value: nil, unit: nil)
      text += record(
        "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", start: date, value: "40", unit: "ms",
        children: """
            <HeartRateVariabilityMetadataList>
             <InstantaneousBeatsPerMinute bpm="62" time="8:00:01.00 AM"/>
             <InstantaneousBeatsPerMinute bpm="63" time="8:00:02.00 AM" extra="1"><Odd/></InstantaneousBeatsPerMinute>
             <MetadataEntry key="k" value="v"/>
            </HeartRateVariabilityMetadataList>

          """)
      text += record(
        "HKQuantityTypeIdentifierHeartRate", start: "2031-01-0\(day % 9 + 1) 10:00:00 +0000",
        value: "70", unit: "count/min")
      if day == 15 { text += " <ExportDate value=\"2030-06-01 10:00:00 +0000\"/>\n" }
      if day == 25 { text += " <ExportDate value=\"2031-01-05 00:00:00 +0000\"/>\n" }
      if day == 20 {
        text += damage
        text += """
           <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" startDate="\(date)" endDate="\(date)">
            <MetadataEntry key="HKIndoorWorkout" value="0"/>
           </Workout>
           <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="iPhone" startDate="\(date)" endDate="\(date)">
            \(record("HKQuantityTypeIdentifierBloodPressureSystolic", start: date, value: "120", unit: "mmHg"))  </Correlation>
           <ActivitySummary dateComponents="2024-03-20" activeEnergyBurned="500"/>

          """
      }
    }
    return text + "</HealthData>\n"
  }

  static func check(_ xml: String, status: Int32) throws {
    let work = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: work) }
    let file = work.appendingPathComponent("odd.xml")
    try Data(xml.utf8).write(to: file)
    for rangeBytes in [300, 2000, 9000] {
      for format in ["json", "table"] {
        let result = try ParallelReadTests.same(["info", file.path, "--format", format], rangeBytes: rangeBytes)
        #expect(result.status == status, "\(rangeBytes): \(result.stderr)")
      }
    }
  }

  @Test("odd children, unknown attributes, late export dates: the same summary")
  func oddRecords() throws {
    let xml = Self.oddExport()
    try Self.check(xml, status: 0)
    // Counted from the text: top-level Records (one space of indentation), and the samples after
    // the export date: days 16–25 against the first ExportDate, day 26 (2031-01-09) against the
    // second; days 10–15 come before either.
    let work = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: work) }
    let file = work.appendingPathComponent("odd.xml")
    try Data(xml.utf8).write(to: file)
    let result = try ParallelReadTests.same(["info", file.path, "--format", "json"], rangeBytes: 700)
    let json = try #require(try Harness.json(result.stdout) as? [String: Any])
    #expect(json["recordCount"] as? Int == xml.components(separatedBy: "\n <Record ").count - 1)
    let warnings = json["warnings"] as? [String] ?? []
    #expect(warnings.contains { $0.hasPrefix("11 sample(s) dated more than a day after") }, "\(warnings)")
    let elements = try #require(json["elementCounts"] as? [String: Int])
    #expect(elements["InstantaneousBeatsPerMinute"] == 40)
    #expect(elements["Record"] == 20 * 7 + 1)
    #expect(elements["Deeper"] == 20 && elements["Odd"] == 20 && elements["Unknown"] == 20)
  }

  @Test("a Record's child missing a required attribute: the same first error")
  func damagedChildren() throws {
    let date = "2024-03-20 08:00:00 +0100"
    let damages = [
      Self.record("HKQuantityTypeIdentifierHeartRate", start: date, children: "  <MetadataEntry key=\"k\"/>\n"),
      Self.record(
        "HKQuantityTypeIdentifierHeartRate", start: date,
        children: """
            <HeartRateVariabilityMetadataList><InstantaneousBeatsPerMinute time="8:00:01.00 AM"/></HeartRateVariabilityMetadataList>

          """),
      Self.record("HKQuantityTypeIdentifierHeartRate", start: date, value: "fast", unit: "count/min"),
      Self.record("HKQuantityTypeIdentifierHeartRate", start: "2024-13-20 08:00:00 +0100"),
      " <Record type=\"t\" startDate=\"\(date)\" endDate=\"\(date)\"/>\n",
    ]
    for damage in damages { try Self.check(Self.oddExport(damage: damage), status: 65) }
  }
}
