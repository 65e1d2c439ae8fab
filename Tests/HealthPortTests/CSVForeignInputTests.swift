import Foundation
import Testing

@testable import HealthPort

/// CSV from other tools: header spellings, delimiters, ISO dates, errors with locations.
struct CSVForeignInputTests {
  static func read(_ text: String, name: String = "input.csv", defaultType: String? = nil) throws -> CollectingSink {
    let url = try CSVTestFiles.file(text, name: name)
    var options = ReadOptions()
    options.csvDefaultType = defaultType
    let sink = CollectingSink()
    try ExportReader(path: url.path, options: options).read(into: sink)
    return sink
  }

  static func records(_ sink: CollectingSink) -> [Record] {
    sink.elements.compactMap { if case .record(let r) = $0 { r } else { nil } }
  }

  /// The error message of reading `text`, with the temporary path replaced by `FILE`.
  static func error(_ text: String, defaultType: String? = nil) throws -> String {
    let url = try CSVTestFiles.file(text)
    var options = ReadOptions()
    options.csvDefaultType = defaultType
    do {
      try ExportReader(path: url.path, options: options).read(into: CollectingSink())
    } catch let error as HealthPortError {
      #expect(error.kind == .malformed)
      return error.description.replacingOccurrences(of: url.path, with: "FILE")
    }
    Issue.record("no error for \(text)")
    return ""
  }

  @Test(
    "header spellings and delimiters",
    arguments: [
      "type,sourceName,unit,value,startDate,endDate\nHKQuantityTypeIdentifierStepCount,Pedometer,count,42,2024-01-02 03:04:05 +0100,2024-01-02 03:14:05 +0100\n",
      "Type;Source Name;Unit;Value;Start Date;End Date\nHKQuantityTypeIdentifierStepCount;Pedometer;count;42;2024-01-02T03:04:05+01:00;2024-01-02T03:14:05+01:00\n",
      "TYPE\tsource_name\tunit\tvalue\tstart_date\tend_date\r\nHKQuantityTypeIdentifierStepCount\tPedometer\tcount\t42\t2024-01-02T02:04:05Z\t2024-01-02T02:14:05Z\r\n",
      "\u{FEFF}\"type\",\"source\",\"unit\",\"value\",\"start\",\"end\"\n\"HKQuantityTypeIdentifierStepCount\",\"Pedometer\",\"count\",\"42\",\"2024-01-02T03:04+01:00\",\"2024-01-02T03:14+01:00\"\n",
    ])
  func spellings(text: String) throws {
    let records = Self.records(try Self.read(text))
    #expect(records.count == 1)
    let record = try #require(records.first)
    #expect(record.type == "HKQuantityTypeIdentifierStepCount")
    #expect(record.sourceName == "Pedometer")
    #expect(record.unit == "count")
    #expect(record.value == "42")
    // 03:04:05 +0100 is 02:04:05 UTC whatever the spelling.
    #expect(record.startDate.secondsSince1970 == 1_704_161_045 - (text.contains("03:04+01:00") ? 5 : 0))
    #expect(record.endDate.secondsSince1970 - record.startDate.secondsSince1970 == 600)
  }

  @Test("a file without a type column takes --type; endDate defaults to startDate, sourceName to the file name")
  func defaultType() throws {
    let sink = try Self.read(
      "date,value\n2024-03-01,71.5\n2024-03-02,71.2\n", name: "weight.csv",
      defaultType: "HKQuantityTypeIdentifierBodyMass")
    let records = Self.records(sink)
    #expect(records.map(\.value) == ["71.5", "71.2"])
    #expect(records.allSatisfy { $0.type == "HKQuantityTypeIdentifierBodyMass" && $0.sourceName == "weight" })
    #expect(records.first?.startDate.description == "2024-03-01 00:00:00 +0000")
    #expect(records.first?.endDate == records.first?.startDate)
    #expect(sink.header?.prolog == [])
  }

  @Test("device strings with commas, quotes and newlines survive, and sourceProduct is derived")
  func deviceStrings() throws {
    let device = "<<HKDevice: 0x1>, name:Apple \"Watch\", manufacturer:Apple Inc., model:Watch, hardware:Watch6,2>"
    let quoted = "\"" + device.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    let json = #"{"k,1":"v\""}"#
    let metadata = "\"" + json.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    let text =
      "type,sourceName,device,value,startDate,metadata\n"
      + "HKQuantityTypeIdentifierHeartRate,\"My\nWatch\",\(quoted),61,2024-01-02T03:04:05Z,\(metadata)\n"
    let record = try #require(Self.records(try Self.read(text)).first)
    #expect(record.device == device)
    #expect(record.sourceName == "My\nWatch")
    #expect(record.sourceProduct == "Watch")
    #expect(record.metadata == [MetadataEntry(key: "k,1", value: "v\"")])
  }

  @Test("a header-only file is an empty export, with a note")
  func headerOnly() throws {
    let sink = try Self.read("type,startDate\n")
    #expect(sink.elements.isEmpty)
    #expect(sink.report?.warnings.contains { $0.contains("no rows") } == true)
  }

  @Test(
    "errors name the file, the row's line and the field",
    arguments: [
      ("", "FILE: error: the CSV file is empty"),
      ("\u{FEFF}\n\n", "FILE: error: the CSV file is empty"),
      ("value,unit\n1,count\n", "FILE:1:1: error: the header has no start date column"),
      ("startDate,value\n2024-01-01,1\n", "FILE:1:1: error: the header has no type column"),
      (
        "type,startDate,value\nHKQuantityTypeIdentifierStepCount,2024-01-01,1,9\n",
        "FILE:2:4: error: the row has 4 fields"
      ),
      ("type,startDate,value\nHKQuantityTypeIdentifierStepCount,2024-01-01\n", "FILE:2:3: error: the row has 2 fields"),
      ("type,startDate,value\nHKQuantityTypeIdentifierStepCount,\"2024-01-01,1\n", "FILE:2:2: error: a quoted field"),
      (
        "type,startDate,value\nX,2024-01-01,1\nHKQuantityTypeIdentifierStepCount,01/02/2024,1\n",
        "FILE:3:2: error: startDate \"01/02/2024\" is not a date"
      ),
      (
        "type,startDate,value\nHKQuantityTypeIdentifierStepCount,2024-01-01,lots\n",
        "FILE:2:3: error: the value \"lots\" of HKQuantityTypeIdentifierStepCount is not a number"
      ),
      (
        "type,startDate,value\nHKQuantityTypeIdentifierStepCount,2024-01-01,\n",
        "FILE:2:3: error: HKQuantityTypeIdentifierStepCount needs a value"
      ),
      (
        "type,startDate,value\n\"a\nb\",2024-01-01,1\nHKQuantityTypeIdentifierStepCount,2024-13-01,1\n",
        "FILE:4:2: error: startDate"
      ),
      ("type,startDate,metadata\nX,2024-01-01,{oops}\n", "FILE:2:3: error: metadata:"),
    ])
  func errors(text: String, expected: String) throws {
    let message = try Self.error(text)
    #expect(message.hasPrefix(expected), "\(message)")
  }

  @Test("category values need not be numbers; values may be missing")
  func categories() throws {
    let records = Self.records(
      try Self.read(
        "type,startDate,endDate,value\nHKCategoryTypeIdentifierSleepAnalysis,2024-01-01T22:00Z,2024-01-02T06:00Z,HKCategoryValueSleepAnalysisAsleepCore\nHKCategoryTypeIdentifierMindfulSession,2024-01-02T08:00Z,2024-01-02T08:10Z,\n"
      ))
    #expect(records.map(\.value) == ["HKCategoryValueSleepAnalysisAsleepCore", nil])
  }

  @Test(
    "detection by content",
    arguments: [
      ("type,startDate\n", "a.txt", CSVInputKind?.some(.table)),
      ("Start Date;Value\n", "a.txt", .some(.table)),
      ("name,age\n", "a.txt", nil),
      ("name,age\n", "a.csv", .some(.table)),
      ("<?xml version=\"1.0\"?>\n<HealthData/>\n", "export.xml", nil),
      ("<HealthData locale=\"en_US\"/>\n", "export.csv", nil),
      ("{\"header\":{}}\n", "export.jsonl", nil),
    ])
  func detection(text: String, name: String, expected: CSVInputKind?) throws {
    let url = try CSVTestFiles.file(text, name: name)
    #expect(CSVInput.detect(path: url.path) == expected)
  }

  @Test("a folder is a split folder only with healthport's export.csv")
  func folderDetection() throws {
    let folder = try CSVTestFiles.temporaryDirectory()
    #expect(CSVInput.detect(path: folder.path) == nil)
    try Data("id,element\n".utf8).write(to: folder.appendingPathComponent("export.csv"))
    #expect(CSVInput.detect(path: folder.path) == nil)
    try Data("id,element,value,locale,exportVersion,attributes,prolog\n".utf8).write(
      to: folder.appendingPathComponent("export.csv"))
    #expect(CSVInput.detect(path: folder.path) == .splitFolder)
  }
}
