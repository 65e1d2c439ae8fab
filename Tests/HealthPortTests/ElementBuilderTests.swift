import Testing
import XMLStream

@testable import HealthPort

/// The element builder fed without XML: through ``OwnedAttributes``, as the CSV readers do.
@Suite("ElementBuilder and OwnedAttributes")
struct ElementBuilderTests {
  static func withBytes<T>(_ text: String, _ body: (ByteView) throws -> T) rethrows -> T {
    try Array(text.utf8).withUnsafeBufferPointer { try body(ByteView($0)) }
  }

  static func start(_ builder: ElementBuilder, _ name: String, _ attributes: OwnedAttributes) throws {
    try withBytes(name) { try builder.startElement($0, attributes: attributes) }
  }

  static func end(_ builder: ElementBuilder, _ name: String) throws {
    try withBytes(name) { try builder.endElement($0) }
  }

  @Test("rows fed through one reused OwnedAttributes build the Records their values say")
  func recordsFromOwnedAttributes() throws {
    let builder = ElementBuilder()
    var records: [Record] = []
    var rootName: String?
    builder.onRoot = { name, _ in rootName = name }
    builder.onElement = { if case .record(let record) = $0 { records.append(record) } }
    let attributes = OwnedAttributes(capacity: 16)  // small: the rows below make it grow
    try Self.start(builder, "HealthData", attributes)
    let type = attributes.name("type")
    let start = attributes.name("startDate")
    for (index, steps) in ["812", "1024", "7"].enumerated() {
      attributes.removeAll()
      attributes.append(type, value: "HKQuantityTypeIdentifierStepCount")
      attributes.append(name: "sourceName", value: "Anna’s iPhone")
      attributes.append(name: "unit", value: "count")
      attributes.append(start, value: "2024-03-1\(index) 08:00:00 +0100")
      attributes.append(name: "endDate", value: "2024-03-1\(index) 08:10:00 +0100")
      attributes.append(name: "value", value: steps)
      attributes.append(name: "flavour", value: "unknown attributes are kept")
      try Self.start(builder, "Record", attributes)
      try Self.end(builder, "Record")
    }
    try Self.end(builder, "HealthData")
    #expect(rootName == "HealthData")
    #expect(records.map(\.value) == ["812", "1024", "7"])
    #expect(records.map(\.startDate.description) == (0..<3).map { "2024-03-1\($0) 08:00:00 +0100" })
    #expect(records.allSatisfy { $0.type == "HKQuantityTypeIdentifierStepCount" && $0.sourceName == "Anna’s iPhone" })
    #expect(records.allSatisfy { $0.extraAttributes == [Attribute("flavour", "unknown attributes are kept")] })
    #expect(builder.unknownAttributeCount == 3)
  }

  @Test("a model error names the element and attribute, as from XML")
  func modelErrorsAsFromXML() throws {
    let builder = ElementBuilder()
    let attributes = OwnedAttributes()
    try Self.start(builder, "HealthData", attributes)
    attributes.append(name: "type", value: "HKQuantityTypeIdentifierStepCount")
    attributes.append(name: "sourceName", value: "Watch")
    attributes.append(name: "startDate", value: "01/02/2024")
    do {
      try Self.start(builder, "Record", attributes)
      Issue.record("no error")
    } catch let error as ExportDataError {
      #expect(
        error.message == "Record startDate \"01/02/2024\" is not a date of the form YYYY-MM-DD HH:MM:SS ±HHMM")
    }
  }

  @Test("long source names, borrowed or copied, build Records with the whole name and its product")
  func longSourceNames() throws {
    let builder = ElementBuilder()
    var records: [Record] = []
    builder.onElement = { if case .record(let record) = $0 { records.append(record) } }
    let attributes = OwnedAttributes(capacity: 16)
    try Self.start(builder, "HealthData", attributes)
    let padding = String(repeating: "abcdefghi\n", count: 1_000)
    let names = [padding + "Anna’s IPHONE", padding + "Anna’s IPHONE", "Phone", padding + "wAtCh", padding]
    for (index, name) in names.enumerated() {
      attributes.removeAll()
      attributes.append(name: "type", value: "HKQuantityTypeIdentifierStepCount")
      let source = Array(name.utf8)
      try source.withUnsafeBufferPointer { bytes in
        // Even rows borrow the name (as the CSV reader does for long cells), odd rows copy it.
        if index.isMultiple(of: 2) {
          attributes.appendBorrowed(attributes.name("sourceName"), value: bytes)
        } else {
          attributes.append(attributes.name("sourceName"), value: bytes)
        }
        attributes.append(name: "unit", value: "count")
        attributes.append(name: "startDate", value: "2024-03-1\(index) 08:00:00 +0100")
        attributes.append(name: "endDate", value: "2024-03-1\(index) 08:10:00 +0100")
        attributes.append(name: "value", value: "\(index)")
        try Self.start(builder, "Record", attributes)
        try Self.end(builder, "Record")
      }
    }
    try Self.end(builder, "HealthData")
    #expect(records.map(\.sourceName) == names)
    #expect(records.map(\.value) == ["0", "1", "2", "3", "4"])
    #expect(records.map(\.sourceProduct) == ["iPhone", "iPhone", nil, "Watch", nil])
    // The long name's product is found as a short name's is.
    #expect(SourceProduct.appleProduct(inName: padding + "Anna’s IPHONE") == "iPhone")
    #expect(SourceProduct.appleProduct(inName: padding + "slobo's watch") == "Watch")
    #expect(SourceProduct.appleProduct(inName: padding + "iPa d") == nil)
  }

  @Test("names keep one identity for the instance's life; values survive growth")
  func identitiesAndGrowth() {
    let attributes = OwnedAttributes(capacity: 16)
    let long = String(repeating: "x", count: 100)
    attributes.append(name: "a", value: "first")
    attributes.append(name: "b", value: long)
    let identity = attributes.nameIdentity(at: 0)
    attributes.removeAll()
    attributes.append(name: "b", value: "")
    attributes.append(name: "a", value: long + long)
    #expect(attributes.count == 2)
    #expect(attributes.nameIdentity(at: 1) == identity)
    #expect(attributes.nameIdentity(at: 0) != identity)
    #expect(attributes.name(at: 1).string == "a")
    #expect(attributes.value(at: 0).string == "")
    #expect(attributes.value(at: 1).string == long + long)
  }
}

/// The one JSON string decoder, strict (JSON Lines) and lenient (JSON in CSV cells).
@Suite("JSON string codec")
struct JSONStringCodecTests {
  static func decode(_ literal: String, lenient: Bool) -> Result<String, JSONStringError> {
    let bytes = Array(literal.utf8)
    return bytes.withUnsafeBufferPointer { b -> Result<String, JSONStringError> in
      var out: [UInt8] = []
      do throws(JSONStringError) {
        let end = try JSONEscaping.decodeString(b, at: 0, into: &out, lenient: lenient)
        return end == b.count ? .success(String(decoding: out, as: UTF8.self)) : .success("<ended early>")
      } catch {
        return .failure(error)
      }
    }
  }

  @Test(
    "valid strings decode the same either way",
    arguments: [
      (#""plain""#, "plain"), (#""a\"b\\c\/d""#, "a\"b\\c/d"), (#""\b\f\n\r\t""#, "\u{8}\u{C}\n\r\t"),
      (#""\u00e9\u20AC""#, "é€"), (#""\uD83D\uDE00""#, "😀"), (#""""#, ""),
    ])
  func valid(literal: String, expected: String) throws {
    #expect(try Self.decode(literal, lenient: false).get() == expected)
    #expect(try Self.decode(literal, lenient: true).get() == expected)
  }

  @Test(
    "what strict JSON refuses, the lenient reading takes as the CSV reader always did",
    arguments: [
      (#""\x""#, JSONStringError.Problem.invalidEscape, "x"),
      ("\"a\u{1}b\"", .controlCharacter, "a\u{1}b"),
      (#""\uD800""#, .loneHighSurrogate, "\u{FFFD}"),
      (#""\uDC00""#, .notAScalar, "\u{FFFD}"),
      (#""\uD800\u0041""#, .invalidLowSurrogate, "\u{FFFD}A"),
    ])
  func lenient(literal: String, strictProblem: JSONStringError.Problem, lenientText: String) throws {
    guard case .failure(let error) = Self.decode(literal, lenient: false) else {
      Issue.record("accepted")
      return
    }
    #expect(error.problem == strictProblem)
    #expect(try Self.decode(literal, lenient: true).get() == lenientText)
  }

  @Test("CSV metadata with an unpaired high surrogate reads instead of trapping")
  func csvMetadataSurrogate() throws {
    let cell = Array(#"{"HKTimeZone":"\uD800\u0041"}"#.utf8)
    let pairs = try cell.withUnsafeBufferPointer { try CSVMetadataJSON.parsePairs($0) }
    #expect(pairs.count == 1)
    #expect(pairs.first?.1 == "\u{FFFD}A")
  }
}
