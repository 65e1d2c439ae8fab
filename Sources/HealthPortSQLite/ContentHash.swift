import HealthPort

/// A 64-bit FNV-1a hash, stable across runs and machines (Swift's `Hasher` is seeded per
/// process, so it cannot be stored). Each field is tagged and terminated so that different
/// splits of the same bytes hash differently.
struct ContentHash {
  private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

  @inline(__always)
  mutating func add(byte: UInt8) {
    value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
  }

  mutating func add(_ text: String) {
    var text = text
    text.withUTF8 { bytes in for byte in bytes { add(byte: byte) } }
    add(byte: 0)
  }

  /// A tag then the text; a distinct tag marks an absent value.
  mutating func add(tag: UInt8, _ text: String?) {
    if let text {
      add(byte: tag)
      add(text)
    } else {
      add(byte: tag | 0x80)
    }
  }

  mutating func add(_ node: ElementNode) {
    add(byte: 0x01)
    add(node.name)
    for attribute in node.attributes {
      add(byte: 0x02)
      add(attribute.name)
      add(value: attribute.value)
    }
    add(tag: 0x03, node.text)
    for child in node.children { add(child) }
    add(byte: 0x04)
  }

  /// An attribute value; a date (`YYYY-MM-DD HH:MM:SS ±HHMM`) counts by its instant, because a
  /// newer export writes the same date in another offset.
  mutating func add(value: String) {
    if value.utf8.count == 25, let date = HealthDate(value) {
      add(byte: 0x07)
      add(String(date.secondsSince1970))
    } else {
      add(value)
    }
  }

  mutating func add(_ attributes: [Attribute]) {
    for attribute in attributes {
      add(byte: 0x05)
      add(attribute.name)
      add(value: attribute.value)
    }
  }

  mutating func add(metadata entry: MetadataEntry) {
    add(byte: 0x06)
    add(entry.key)
    add(entry.value)
    add(entry.extraAttributes)
    for child in entry.extraChildren { add(child) }
    add(text: entry.text)
  }

  /// An element's text (kept as an `extras` row of kind `text`): nothing for none, so that the
  /// hash of an element without text, every stored row's before text was kept, stays the same.
  mutating func add(text: String?) {
    guard let text else { return }
    add(byte: 0x08)
    add(text)
  }

  var signed: Int64 { Int64(bitPattern: value) }

  /// The hash of a Record's content besides type, source and dates: unit, value, text, metadata,
  /// beats, unknown attributes and children. Top-level Records and their copies inside a
  /// Correlation hash alike.
  static func of(_ record: Record) -> Int64 {
    var hash = ContentHash()
    hash.add(tag: 0x10, record.unit)
    hash.add(tag: 0x11, record.value)
    hash.add(record.extraAttributes)
    hash.add(text: record.text)
    for child in record.children {
      switch child {
      case .metadata(let entry): hash.add(metadata: entry)
      case .heartRateVariability(let list):
        hash.add(byte: 0x12)
        hash.add(list.extraAttributes)
        for item in list.children {
          switch item {
          case .beat(let beat):
            hash.add(byte: 0x13)
            hash.add(beat.bpm)
            hash.add(beat.time)
            hash.add(beat.extraAttributes)
            for node in beat.extraChildren { hash.add(node) }
          case .other(let node): hash.add(node)
          }
        }
      case .other(let node): hash.add(node)
      }
    }
    return hash.signed
  }

  static func of(_ correlation: Correlation) -> Int64 {
    var hash = ContentHash()
    hash.add(correlation.extraAttributes)
    hash.add(text: correlation.text)
    for child in correlation.children {
      switch child {
      case .metadata(let entry): hash.add(metadata: entry)
      case .record(let record):
        hash.add(byte: 0x20)
        hash.add(record.type)
        hash.add(record.sourceName)
        hash.add(String(record.startDate.secondsSince1970))
        hash.add(String(record.endDate.secondsSince1970))
        hash.add(String(of(record)))
      case .other(let node): hash.add(node)
      }
    }
    return hash.signed
  }

  static func of(_ node: ElementNode) -> Int64 {
    var hash = ContentHash()
    hash.add(node)
    return hash.signed
  }
}
