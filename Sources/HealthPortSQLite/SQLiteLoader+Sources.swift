import HealthPort
import SQLiteStore

/// The `sources` table: one row per (person, name, version, device fields), found for consecutive
/// samples without a lookup.
extension SQLiteLoader {
  struct SourceCacheKey: Hashable {
    var name: String
    var version: String?
    /// The device string after its `<<HKDevice: 0x…>` head (the address changes per sample).
    var device: Substring?
  }

  func sourceID(_ name: String, _ version: String?, _ device: DeviceString?, _ product: String?) throws
    -> Int64
  {
    if lastSourceID >= 0, name == lastSourceName, version == lastSourceVersion, Self.sameTail(device, lastDevice) {
      return lastSourceID
    }
    let id = try lookUpSourceID(name, version, device?.description, product)
    lastSourceID = id
    lastSourceName = name
    lastSourceVersion = version
    lastDevice = device
    return id
  }

  /// True when both devices have the same ``deviceTail(_:)`` (a function of whether the string
  /// has the canonical address and of what follows it), or both are absent.
  static func sameTail(_ a: DeviceString?, _ b: DeviceString?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    return (a.address == nil) == (b.address == nil) && a.rest == b.rest
  }

  func lookUpSourceID(_ name: String, _ version: String?, _ device: String?, _ product: String?) throws
    -> Int64
  {
    let tail = device.map(Self.deviceTail)
    let key = SourceCacheKey(name: name, version: version, device: tail)
    if let id = sourceIDs[key] { return id }
    let info = device.flatMap(DeviceInfo.init(parsing:))
    // The natural key: name, version and the device fields except `creation date` (which newer
    // exporters add to old devices).
    var sourceKey = name + "\u{1F}" + (version ?? "\u{0}") + "\u{1F}"
    if let info {
      let fields = [
        info.name, info.manufacturer, info.model, info.hardware, info.firmware, info.software, info.localIdentifier,
        info.udiDeviceIdentifier,
      ]
      sourceKey += fields.map { $0 ?? "\u{0}" }.joined(separator: "\u{1E}")
    } else {
      sourceKey += tail.map(String.init) ?? "\u{0}"
    }
    var b = Binder(s.insertSource, text)
    try b.add(person)
    try b.add(name)
    try b.add(version)
    try b.add(product ?? SourceProduct.derive(device: info, sourceName: name))
    try b.add(device)
    for field in [
      info?.name, info?.manufacturer, info?.model, info?.hardware, info?.firmware, info?.software,
      info?.localIdentifier, info?.udiDeviceIdentifier, info?.creationDate,
    ] {
      try b.add(field)
    }
    try b.add(sourceKey)
    if try b.run() == 1 {
      count(.sources)
    } else {
      // Known from an earlier load: the device as this export first writes it (its address, and
      // the `creation date` that newer exporters add), as a fresh load of this export keeps it.
      var refresh = Binder(s.refreshSource, text)
      try refresh.add(device)
      try refresh.add(info?.creationDate)
      try refresh.add(person)
      try refresh.add(sourceKey)
      pending += try refresh.run()
    }
    var find = Binder(s.findSource, text)
    try find.add(person)
    try find.add(sourceKey)
    guard try s.findSource.step() else {
      s.findSource.reset()
      throw SQLiteError(code: 1, message: "source row missing after insert", context: sourceKey)
    }
    let id = s.findSource.int64(0)
    s.findSource.reset()
    sourceIDs[key] = id
    return id
  }

  static func deviceTail(_ device: String) -> Substring {
    let utf8 = device.utf8
    if utf8.starts(with: "<<HKDevice:".utf8), let close = utf8.firstIndex(of: UInt8(ascii: ">")) {
      return device[device.index(after: close)...]
    }
    return device[...]
  }
}
