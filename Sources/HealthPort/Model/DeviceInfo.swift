/// The fields of a `device` attribute, which is `-[HKDevice description]`:
/// `<<HKDevice: 0x282e3a260>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone10,4, software:12.3>`.
///
/// The `0x…` value is a per-object memory address, different on nearly every record, so it is
/// dropped. Field values may themselves contain `, `, so the string is split only before the
/// known keys.
package struct DeviceInfo: Hashable, Sendable {
  package var name: String?
  package var manufacturer: String?
  package var model: String?
  package var hardware: String?
  package var firmware: String?
  package var software: String?
  package var localIdentifier: String?
  package var udiDeviceIdentifier: String?
  /// `creation date:` (iOS 18+ exports), as written.
  package var creationDate: String?

  package init(
    name: String? = nil, manufacturer: String? = nil, model: String? = nil, hardware: String? = nil,
    firmware: String? = nil, software: String? = nil, localIdentifier: String? = nil,
    udiDeviceIdentifier: String? = nil, creationDate: String? = nil
  ) {
    self.name = name
    self.manufacturer = manufacturer
    self.model = model
    self.hardware = hardware
    self.firmware = firmware
    self.software = software
    self.localIdentifier = localIdentifier
    self.udiDeviceIdentifier = udiDeviceIdentifier
    self.creationDate = creationDate
  }

  nonisolated(unsafe) static let keys: [(key: [UInt8], field: WritableKeyPath<DeviceInfo, String?>)] = [
    (Array("name:".utf8), \.name),
    (Array("manufacturer:".utf8), \.manufacturer),
    (Array("model:".utf8), \.model),
    (Array("hardware:".utf8), \.hardware),
    (Array("firmware:".utf8), \.firmware),
    (Array("software:".utf8), \.software),
    (Array("localIdentifier:".utf8), \.localIdentifier),
    (Array("UDIDeviceIdentifier:".utf8), \.udiDeviceIdentifier),
    (Array("creation date:".utf8), \.creationDate),
  ]

  /// Parses a device string; nil when it has none of the known fields.
  package init?(parsing text: String) {
    var bytes = Array(text.utf8)
    // Strip the outer `<` … `>` and the `<HKDevice: 0x…>` head.
    if bytes.first == UInt8(ascii: "<"), bytes.last == UInt8(ascii: ">") {
      bytes.removeFirst()
      bytes.removeLast()
    }
    if bytes.first == UInt8(ascii: "<"), let close = bytes.firstIndex(of: UInt8(ascii: ">")) {
      bytes.removeSubrange(0...close)
    }
    // Find each ", key:" (or "key:" at the very start) boundary.
    var starts: [(position: Int, valueStart: Int, field: WritableKeyPath<DeviceInfo, String?>)] = []
    var index = 0
    while index < bytes.count {
      let atBoundary =
        index == 0 || (index >= 2 && bytes[index - 2] == UInt8(ascii: ",") && bytes[index - 1] == 0x20)
      if atBoundary {
        for (key, field) in Self.keys where bytes.count - index >= key.count {
          if bytes[index..<(index + key.count)].elementsEqual(key) {
            starts.append((index, index + key.count, field))
            index += key.count - 1
            break
          }
        }
      }
      index += 1
    }
    guard !starts.isEmpty else { return nil }
    self.init()
    for (number, start) in starts.enumerated() {
      let end = number + 1 < starts.count ? starts[number + 1].position - 2 : bytes.count
      guard end >= start.valueStart else { continue }
      self[keyPath: start.field] = String(decoding: bytes[start.valueStart..<end], as: UTF8.self)
    }
  }
}

/// Derives the product that recorded a sample ("Watch", "iPhone", "iPad", "iPod", …).
///
/// Rule: one of the four Apple products when the device's `model` or `hardware` starts with it;
/// else when the source name contains it (case-insensitively); else the device's `model`; else nil.
package enum SourceProduct {
  package static let appleProducts = ["Watch", "iPhone", "iPad", "iPod"]

  package static func derive(device: DeviceInfo?, sourceName: String) -> String? {
    appleProduct(of: device) ?? appleProduct(inName: sourceName) ?? device?.model.flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The Apple product whose name starts the device's `model` or `hardware`.
  package static func appleProduct(of device: DeviceInfo?) -> String? {
    guard let device else { return nil }
    for product in appleProducts
    where device.model?.hasPrefix(product) == true || device.hardware?.hasPrefix(product) == true {
      return product
    }
    return nil
  }

  /// The Apple product named in a source name ("Ryan’s iPhone", "slobo's watch"), case-insensitively.
  package static func appleProduct(inName sourceName: String) -> String? {
    if sourceName.utf8.count > longestLoweredName { return appleProduct(inLongName: sourceName) }
    let lowered = sourceName.lowercased()
    return appleProducts.first { lowered.contains($0.lowercased()) }
  }

  /// The longest name lowered whole; a longer one (a CSV cell of megabytes) is searched in its
  /// bytes, ASCII letters compared case-insensitively, so that no lowered copy is made.
  static let longestLoweredName = 4 << 10

  private static func appleProduct(inLongName sourceName: String) -> String? {
    var name = sourceName
    return name.withUTF8 { bytes in
      appleProducts.first { product in
        let needle = Array(product.lowercased().utf8)
        guard bytes.count >= needle.count else { return false }
        var start = 0
        while start <= bytes.count - needle.count {
          var index = 0
          while index < needle.count, bytes[start + index] | 0x20 == needle[index] { index += 1 }
          if index == needle.count { return true }
          start += 1
        }
        return false
      }
    }
  }
}
