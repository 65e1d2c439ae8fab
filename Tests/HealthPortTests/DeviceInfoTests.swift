import Testing

@testable import HealthPort

@Suite("Device strings and source products")
struct DeviceInfoTests {
  @Test("parses the fields and drops the memory address")
  func parsesFields() throws {
    let text =
      "<<HKDevice: 0x8c5183a80>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch7,2, software:11.6.1, creation date:2025-08-14 23:49:07 +0000>"
    let device = try #require(DeviceInfo(parsing: text))
    #expect(device.name == "Apple Watch")
    #expect(device.manufacturer == "Apple Inc.")
    #expect(device.model == "Watch")
    #expect(device.hardware == "Watch7,2")
    #expect(device.software == "11.6.1")
    #expect(device.creationDate == "2025-08-14 23:49:07 +0000")
    let other = try #require(DeviceInfo(parsing: text.replacingOccurrences(of: "0x8c5183a80", with: "0x1")))
    #expect(device == other)
  }

  @Test("a name containing ', ' stays whole")
  func commaInName() throws {
    let device = try #require(
      DeviceInfo(
        parsing: "<<HKDevice: 0x1>, name:Bob, the scale, manufacturer:Withings, model:WBS06, localIdentifier:ABC>"))
    #expect(device.name == "Bob, the scale")
    #expect(device.manufacturer == "Withings")
    #expect(device.model == "WBS06")
    #expect(device.localIdentifier == "ABC")
  }

  @Test(
    "derives the source product",
    arguments: [
      (
        "<<HKDevice: 0x1>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone10,4, software:12.3>",
        "Ryan Phone", "iPhone"
      ),
      (
        "<<HKDevice: 0x1>, name:Apple Watch, manufacturer:Apple, model:Watch, hardware:Watch4,2, software:5.1.2>",
        "Phone", "Watch"
      ),
      ("<<HKDevice: 0x1>, name:X, manufacturer:Y, hardware:iPad8,1>", "Tablet", "iPad"),
      ("<<HKDevice: 0x1>, name:Scale, manufacturer:Withings, model:WBS06>", "Health Mate", "WBS06"),
      (nil, "slobo's watch", "Watch"),
      (nil, "Pedometer++", nil),
    ] as [(String?, String, String?)])
  func product(device: String?, source: String, expected: String?) {
    #expect(SourceProduct.derive(device: device.flatMap(DeviceInfo.init(parsing:)), sourceName: source) == expected)
  }
}

extension String {
  func replacingOccurrences(of target: String, with replacement: String) -> String {
    split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
  }
}

@Suite("DeviceString")
struct DeviceStringTests {
  @Test(
    "stores the address apart and gives back the identical string",
    arguments: [
      "<<HKDevice: 0x282e3a260>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone10,4, software:12.3>",
      "<<HKDevice: 0x0>, name:X>",
      "<<HKDevice: 0x00ab>, name:leading zeros>",
      "<<HKDevice: 0x00>, name:zero with a leading zero>",
      "<<HKDevice: 0x0000000000000001>, name:fifteen leading zeros>",
      "<<HKDevice: 0x00000000000000001>, name:seventeen digits with leading zeros kept whole>",
      "<<HKDevice: 0xABC>, name:upper case kept whole>",
      "<<HKDevice: 0x1234567890abcdef>, name:sixteen digits>",
      "<<HKDevice: 0x1234567890abcdef1>, name:seventeen digits>",
      "not a device string at all",
      "",
    ])
  func roundTrip(text: String) {
    #expect(DeviceString(text).description == text)
  }

  @Test("records of one device share everything but the address")
  func sharing() {
    let a = DeviceString("<<HKDevice: 0x1a>, name:Apple Watch, model:Watch>")
    let b = DeviceString("<<HKDevice: 0x2b>, name:Apple Watch, model:Watch>")
    #expect(a.address == 0x1a && b.address == 0x2b)
    #expect(a.rest == b.rest)
  }

  @Test("an address written with leading zeros is split too, its zeros counted, its rest shared")
  func leadingZeros() {
    // About one record in 16 of the second generator's exports (a fresh address on every record)
    // has one: kept whole, each was a new key in the reader's caches.
    let plain = DeviceString("<<HKDevice: 0x282e3a260>, name:Apple Watch, model:Watch>")
    let padded = DeviceString("<<HKDevice: 0x0282e3a261>, name:Apple Watch, model:Watch>")
    let zero = DeviceString("<<HKDevice: 0x000>, name:Apple Watch, model:Watch>")
    #expect(padded.address == 0x282e3a261 && padded.addressZeros == 1)
    #expect(zero.address == 0 && zero.addressZeros == 2)
    #expect(plain.addressZeros == 0)
    #expect(padded.rest == plain.rest && zero.rest == plain.rest)
    #expect(padded != DeviceString("<<HKDevice: 0x282e3a261>, name:Apple Watch, model:Watch>"))
    #expect(MemoryLayout<DeviceString>.size == 32)
  }
}
