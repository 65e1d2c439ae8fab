import Testing

@testable import HealthPort

/// A Record's children past ``RecordChildren/packingStart``, packed, read back as appended.
@Suite("RecordChildren")
struct RecordChildrenTests {
  /// 3,000 children: plain entries (keys and values of 0 to 40 bytes, non-ASCII ones), with an
  /// entry with text, one with an extra attribute, an HRV list and an unknown element among them.
  static func children() -> [Record.Child] {
    var children: [Record.Child] = []
    for index in 0..<3000 {
      switch index % 397 {
      case 5:
        var entry = MetadataEntry(key: "t\(index)", value: "v")
        entry.text = "hello"
        children.append(.metadata(entry))
      case 6:
        var entry = MetadataEntry(key: "a\(index)", value: "")
        entry.extraAttributes = [Attribute("unit", "cm")]
        children.append(.metadata(entry))
      case 7: children.append(.heartRateVariability(HeartRateVariabilityList()))
      case 8: children.append(.other(ElementNode(name: "X", attributes: [Attribute("n", "\(index)")])))
      default:
        let key = String(repeating: "é", count: index % 20) + "\(index)"
        children.append(.metadata(MetadataEntry(key: key, value: index % 3 == 0 ? "" : "värde \(index)")))
      }
    }
    return children
  }

  @Test("packed children read back in order, equal and hashed as the array of them")
  func packed() {
    let array = Self.children()
    var children = RecordChildren()
    for child in array { children.append(child) }
    #expect(children.unpacked == nil)
    #expect(children.count == array.count)
    #expect(Array(children) == array)
    #expect(children == RecordChildren(array))
    #expect(children.hashValue == array.hashValue)
    // A copy is a value: appending to it leaves the original as it was.
    var copy = children
    copy.append(.metadata(MetadataEntry(key: "k", value: "v")))
    #expect(children.count == array.count)
    #expect(copy.count == array.count + 1)
    #expect(copy != children)
    #expect(copy.last == .metadata(MetadataEntry(key: "k", value: "v")))
    // Under the packing start: an array.
    let few = RecordChildren(array.prefix(RecordChildren.packingStart))
    #expect(few.unpacked == Array(array.prefix(RecordChildren.packingStart)))
    #expect(few.hashValue == Array(array.prefix(RecordChildren.packingStart)).hashValue)
  }
}
