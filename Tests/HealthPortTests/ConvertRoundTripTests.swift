import Foundation
import Testing

@testable import HealthPort

@Suite("export XML and JSON Lines writers round-trip the model")
struct ConvertRoundTripTests {
  static func date(_ text: String) -> HealthDate { HealthDate(text)! }

  /// A model with every element kind, unknown attributes and elements, text, and values that
  /// need escaping (`& < > "`, line feed, tab, carriage return, non-ASCII, astral characters).
  static func model() -> (ExportHeader, [ExportElement]) {
    let header = ExportHeader(
      prolog: Array(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE HealthData [\n<!-- HealthKit Export Version: 14 -->\n]>\n"
          .utf8),
      rootAttributes: [Attribute("locale", "en_US")])
    let d1 = date("2024-11-28 07:01:12 +0100")
    let d2 = date("2024-11-28 08:05:33 -0530")
    var record = Record(
      type: "HKQuantityTypeIdentifierHeartRate", sourceName: "Mikian’s Apple Watch 🕛", sourceVersion: "10.1",
      device: "<<HKDevice: 0x3be6521c0>, name:Apple Watch, manufacturer:Apple Inc.>", unit: "count/min",
      creationDate: d1, startDate: d1, endDate: d2, value: "58")
    record.extraAttributes = [Attribute("note", "a \"quoted\" & <odd>\nline\twith\rbreaks")]
    record.children = [
      .metadata(MetadataEntry(key: "Withings Link", value: "withings://x?a=1&b=2")),
      .heartRateVariability(
        HeartRateVariabilityList(children: [
          .beat(InstantaneousBeatsPerMinute(bpm: "62", time: "6:14:48.94\u{202F}PM")),
          .other(ElementNode(name: "Mystery", attributes: [Attribute("x", "1")])),
        ])),
      .other(ElementNode(name: "Note", attributes: [], children: [], text: "free text & <more>\nsecond line")),
    ]
    var category = Record(
      type: "HKCategoryTypeIdentifierMindfulSession", sourceName: "Health", startDate: d1, endDate: d1)
    category.children = []
    var correlation = Correlation(
      type: "HKCorrelationTypeIdentifierBloodPressure", sourceName: "Omron", creationDate: d1, startDate: d1,
      endDate: d1)
    correlation.children = [
      .metadata(MetadataEntry(key: "k", value: "v")),
      .record(
        Record(
          type: "HKQuantityTypeIdentifierBloodPressureSystolic", sourceName: "Omron", unit: "mmHg",
          startDate: d1, endDate: d1, value: "121")),
    ]
    var event = WorkoutEvent(type: "HKWorkoutEventTypeLap", date: d1, duration: "1.5", durationUnit: "min")
    event.children = [.metadata(MetadataEntry(key: "HKSwimmingStrokeStyle", value: "2"))]
    var activity = WorkoutActivity(uuid: "0F3C1E2A-1111-2222-3333-444455556666", startDate: d1, endDate: d2)
    activity.children = [
      .event(WorkoutEvent(type: "HKWorkoutEventTypeSegment", date: d1)),
      .statistics(
        WorkoutStatistics(
          type: "HKQuantityTypeIdentifierHeartRate", startDate: d1, endDate: d2, average: "140", minimum: "90",
          maximum: "171", unit: "count/min")),
      .metadata(MetadataEntry(key: "WOIntervalStepKeyPath", value: "0.0.0")),
    ]
    var route = WorkoutRoute(sourceName: "iPhone", sourceVersion: "17.1", creationDate: d1, startDate: d1, endDate: d2)
    var reference = FileReference(path: "/workout-routes/route_2024-11-28_7.01am.gpx")
    reference.extraAttributes = [Attribute("size", "12")]
    route.children = [
      .metadata(MetadataEntry(key: "HKMetadataKeySyncVersion", value: "2")),
      .fileReference(reference),
      .location(
        ElementNode(
          name: "Location",
          attributes: [
            Attribute("date", "2019-06-11 15:00:00 -0700"), Attribute("latitude", "37.5"),
            Attribute("longitude", "-122.1"),
          ])),
    ]
    var workout = Workout(
      workoutActivityType: "HKWorkoutActivityTypeRunning", duration: "38.347863783439", durationUnit: "min",
      totalDistance: "0", totalDistanceUnit: "km", sourceName: "Watch", device: "dev", creationDate: d1,
      startDate: d1, endDate: d2)
    workout.children = [
      .metadata(MetadataEntry(key: "HKIndoorWorkout", value: "0")), .event(event), .activity(activity),
      .statistics(
        WorkoutStatistics(
          type: "HKQuantityTypeIdentifierDistanceWalkingRunning", startDate: d1, endDate: d2, sum: "5.01", unit: "km")),
      .route(route), .metadata(MetadataEntry(key: "HKIndoorWorkout", value: "0")),
    ]
    let elements: [ExportElement] = [
      .exportDate(
        ExportDate(node: ElementNode(name: "ExportDate", attributes: [Attribute("value", "2024-12-03 20:15:42 +0100")]))
      ),
      .me(
        Me(
          node: ElementNode(
            name: "Me",
            attributes: [
              Attribute("HKCharacteristicTypeIdentifierDateOfBirth", ""),
              Attribute("HKCharacteristicTypeIdentifierBiologicalSex", "HKBiologicalSexFemale"),
            ]))),
      .record(record), .record(category), .correlation(correlation), .workout(workout),
      .activitySummary(
        ActivitySummary(
          node: ElementNode(
            name: "ActivitySummary",
            attributes: [
              Attribute("dateComponents", "2024-11-28"), Attribute("activeEnergyBurned", "512.3"),
              Attribute("activeEnergyBurnedUnit", "kcal"),
            ]))),
      .clinicalRecord(
        ClinicalRecord(
          node: ElementNode(
            name: "ClinicalRecord",
            attributes: [Attribute("type", "Immunization"), Attribute("sourceURL", "https://x/y?a=1&b=2")]))),
      .audiogram(
        Audiogram(
          node: ElementNode(
            name: "Audiogram", attributes: [Attribute("type", "HKDataTypeIdentifierAudiogram")],
            children: [
              ElementNode(
                name: "SensitivityPoint",
                attributes: [Attribute("frequencyValue", "125"), Attribute("frequencyUnit", "Hz")])
            ]))),
      .visionPrescription(
        VisionPrescription(
          node: ElementNode(
            name: "VisionPrescription", attributes: [Attribute("type", "HKVisionPrescriptionTypeGlasses")],
            children: [
              ElementNode(name: "RightEye", attributes: [Attribute("sphere", "-1.25"), Attribute("sphereUnit", "D")]),
              ElementNode(name: "Attachment", attributes: [Attribute("identifier", "A1")]),
            ]))),
      .other(
        ElementNode(
          name: "FutureElement", attributes: [Attribute("b", "2"), Attribute("a", "1")],
          children: [ElementNode(name: "Inner", text: "t")], text: "outer")),
    ]
    return (header, elements)
  }

  /// The model without what the reader derives (`sourceProduct`).
  static func underived(_ element: ExportElement) -> ExportElement {
    func record(_ r: Record) -> Record {
      var r = r
      r.sourceProduct = nil
      return r
    }
    switch element {
    case .record(let r): return .record(record(r))
    case .correlation(var c):
      c.sourceProduct = nil
      c.children = c.children.map { if case .record(let r) = $0 { .record(record(r)) } else { $0 } }
      return .correlation(c)
    case .workout(var w):
      w.sourceProduct = nil
      w.children = w.children.map {
        if case .route(var route) = $0 {
          route.sourceProduct = nil
          return .route(route)
        }
        return $0
      }
      return .workout(w)
    default: return element
    }
  }

  static func write(_ make: (HealthPort.OutputStream) -> ExportSink, header: ExportHeader, elements: [ExportElement])
    throws -> URL
  {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hp-unit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent("out")
    let output = try HealthPort.OutputStream(path: url.path)
    let writer = make(output)
    try writer.begin(header)
    for element in elements { try writer.consume(element) }
    try writer.end(ReadReport(documentName: "model", format: .xml))
    try output.commit()
    return url
  }

  static func read(_ url: URL) throws -> CollectingSink {
    let sink = CollectingSink()
    try ExportReader(path: url.path).read(into: sink)
    return sink
  }

  @Test("model → XML → model keeps every element, attribute, child and text", arguments: ["xml", "jsonl", "json"])
  func modelRoundTrip(format: String) throws {
    let (header, elements) = Self.model()
    let url = try Self.write(
      { output in
        switch format {
        case "xml": XMLExportWriter(output: output)
        case "json": JSONLinesWriter(output: output, style: .document)
        default: JSONLinesWriter(output: output)
        }
      }, header: header, elements: elements)
    let back = try Self.read(url)
    #expect(back.header == header)
    #expect(back.elements.map(Self.underived) == elements)
  }

  @Test("XML output: layout and escaping as the Health app writes them")
  func xmlLayout() throws {
    let (header, elements) = Self.model()
    let url = try Self.write({ XMLExportWriter(output: $0) }, header: header, elements: Array(elements[2...3]))
    let text = try String(contentsOf: url, encoding: .utf8)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines[4] == "<HealthData locale=\"en_US\">")
    #expect(
      lines[5]
        == " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Mikian’s Apple Watch 🕛\" sourceVersion=\"10.1\" device=\"&lt;&lt;HKDevice: 0x3be6521c0&gt;, name:Apple Watch, manufacturer:Apple Inc.&gt;\" unit=\"count/min\" creationDate=\"2024-11-28 07:01:12 +0100\" startDate=\"2024-11-28 07:01:12 +0100\" endDate=\"2024-11-28 08:05:33 -0530\" value=\"58\" note=\"a &quot;quoted&quot; &amp; &lt;odd&gt;&#10;line&#9;with&#13;breaks\">"
    )
    #expect(lines[6] == "  <MetadataEntry key=\"Withings Link\" value=\"withings://x?a=1&amp;b=2\"/>")
    #expect(lines[7] == "  <HeartRateVariabilityMetadataList>")
    #expect(lines[8] == "   <InstantaneousBeatsPerMinute bpm=\"62\" time=\"6:14:48.94\u{202F}PM\"/>")
    #expect(lines[11] == "  <Note>free text &amp; &lt;more&gt;")
    #expect(lines[12] == "second line</Note>")
    #expect(lines[13] == " </Record>")
    #expect(
      lines[14]
        == " <Record type=\"HKCategoryTypeIdentifierMindfulSession\" sourceName=\"Health\" startDate=\"2024-11-28 07:01:12 +0100\" endDate=\"2024-11-28 07:01:12 +0100\"/>"
    )
    #expect(lines[15] == "</HealthData>")
    #expect(lines[16] == "")
  }

  @Test("control characters XML forbids are not written")
  func controlCharacters() throws {
    var out: [UInt8] = []
    XMLEscaping.appendEscaped("a\u{0B}b\u{01}c", to: &out)
    #expect(out == Array("abc".utf8))
  }

  @Test(
    "JSON number grammar",
    arguments: [
      ("67", true), ("0.593572", true), ("-1.5e+06", true), ("1.23457e+06", true), ("0", true), ("007", false),
      (".5", false), ("5.", false), ("+5", false), ("", false), ("1e", false), ("NaN", false), ("12 ", false),
    ])
  func jsonNumbers(text: String, valid: Bool) {
    var text = text
    #expect(text.withUTF8 { JSONNumber.isJSONNumber($0) } == valid)
  }

  @Test("JSON Lines: numbers beside their text, header first")
  func jsonLinesShape() throws {
    let (header, elements) = Self.model()
    let url = try Self.write({ JSONLinesWriter(output: $0) }, header: header, elements: elements)
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { Data($0.utf8) }
    #expect(lines.count == elements.count + 1)
    let firstObject = try JSONSerialization.jsonObject(with: lines[0])
    let first = try #require(firstObject as? [String: Any])
    #expect(first["kind"] as? String == "header")
    #expect(first["exportVersion"] as? Int == 14)
    #expect(first["exportDate"] as? String == "2024-12-03 20:15:42 +0100")
    #expect(first["prolog"] as? String == String(decoding: header.prolog, as: UTF8.self))
    let recordObject = try JSONSerialization.jsonObject(with: lines[3])
    let record = try #require(recordObject as? [String: Any])
    #expect(record["element"] as? String == "Record")
    #expect((record["attributes"] as? [String: String])?["value"] == "58")
    #expect((record["numbers"] as? [String: Double])?["value"] == 58)
    let workoutObject = try JSONSerialization.jsonObject(with: lines[6])
    let workout = try #require(workoutObject as? [String: Any])
    #expect((workout["numbers"] as? [String: Double])?["duration"] == 38.347863783439)
  }
}

@Suite("the XML reader keeps element text exactly")
struct ElementTextTests {
  @Test(
    "text split at references reads back whole, counted once",
    arguments: [
      ("a &amp; b", "a & b"), (" &lt;x&gt; ", " <x> "), ("one&#10;two", "one\ntwo"), ("&amp;&#38;", "&&"),
      ("x\n  y", "x\n  y"),
    ])
  func text(xml: String, expected: String) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hp-text-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("t.xml")
    try "<HealthData>\n <Foo a=\"1&amp;2\">\(xml)</Foo>\n</HealthData>\n".write(
      to: url, atomically: true, encoding: .utf8)
    let sink = CollectingSink()
    let report = try ExportReader(path: url.path).read(into: sink)
    #expect(sink.elements == [.other(ElementNode(name: "Foo", attributes: [Attribute("a", "1&2")], text: expected))])
    #expect(report.textNodes == 1)
  }
}

@Suite("the JSON Lines reader")
struct JSONLinesReaderTests {
  static func read(_ text: String) throws -> (CollectingSink, ReadReport) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hp-jsonl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("in.jsonl")
    try text.write(to: url, atomically: true, encoding: .utf8)
    let sink = CollectingSink()
    let report = try ExportReader(path: url.path).read(into: sink)
    return (sink, report)
  }

  @Test("without a header line: no prolog, no root attributes; numbers and null in attributes")
  func headerless() throws {
    let (sink, report) = try Self.read(
      """
      {"element":"Record","attributes":{"type":"T","sourceName":"s\\u00e9\\ud83d\\ude00","startDate":"2024-12-03 20:15:42 +0100","endDate":"2024-12-03 20:15:42 +0100","value":67.5,"unit":null}}

        {"attributes":{"dateComponents":"2024-12-03","appleStandHours":true},"element":"ActivitySummary"}
      """)
    #expect(report.format == .jsonl)
    #expect(sink.header == ExportHeader(prolog: [], rootAttributes: []))
    #expect(sink.elements.count == 2)
    guard case .record(let record) = sink.elements[0] else {
      Issue.record("expected a Record")
      return
    }
    #expect(record.sourceName == "sé😀")
    #expect(record.value == "67.5")
    #expect(record.unit == nil)
    #expect(
      sink.elements[1]
        == .activitySummary(
          ActivitySummary(
            node: ElementNode(
              name: "ActivitySummary",
              attributes: [Attribute("dateComponents", "2024-12-03"), Attribute("appleStandHours", "true")]))))
  }

  @Test(
    "errors are located",
    arguments: [
      ("{\"element\":\"Record\",\"attributes\":{\"type\":1}", "1:44", "unexpected end of input"),
      ("{\"kind\":\"header\"}\n{\"element\":\"X\",\"attributes\":{\"a\":\"b\\q\"}}", "2:36", "invalid escape"),
      ("{\"kind\":\"header\"}\n{\"element\":\"X\",\"children\":[],\"attributes\":{}}", "2:30", "must come before"),
      ("{\"kind\":\"header\"}\n[1]", "2:1", "expected a JSON object"),
    ])
  func errors(text: String, location: String, message: String) throws {
    do {
      _ = try Self.read(text)
      Issue.record("no error for \(text)")
    } catch let error as HealthPortError {
      #expect(error.kind == .malformed)
      #expect(error.description.contains("in.jsonl:\(location): error: "), "\(error)")
      #expect(error.message.contains(message), "\(error.message)")
    }
  }
}
