import Foundation
import TestSupport
import Testing

/// Device addresses written with leading zeros (`0x0282e3a260`; about one record in 16 of the
/// second generator's exports) are stored as an address and a count of zeros: every writer gives
/// back the string exactly as written, on one thread and on the parsing threads.
@Suite("Device addresses")
struct DeviceAddressTests {
  static let devices = [
    "<<HKDevice: 0x0282e3a260>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2>",
    "<<HKDevice: 0x282e3a261>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2>",
    "<<HKDevice: 0x00>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2>",
    "<<HKDevice: 0x0000000000000001>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2>",
    "<<HKDevice: 0x000000000000000ff>, name:seventeen digits, kept whole>",
  ]

  static func xmlEscaped(_ text: String) -> String {
    text.replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
  }

  static func export() -> String {
    var records = ""
    for (index, device) in devices.enumerated() {
      let minute = String(format: "%02d", index)
      records +=
        #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Anna’s Apple Watch" "#
        + #"sourceVersion="7.0" device="\#(xmlEscaped(device))" unit="count" "#
        + #"creationDate="2024-03-01 10:\#(minute):00 +0100" startDate="2024-03-01 10:\#(minute):00 +0100" "#
        + #"endDate="2024-03-01 10:\#(minute):30 +0100" value="\#(index + 10)"/>"# + "\n"
    }
    records +=
      #" <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" "#
      + #"sourceName="Anna’s Apple Watch" device="\#(xmlEscaped(devices[0]))" "#
      + #"creationDate="2024-03-01 12:00:00 +0100" startDate="2024-03-01 11:30:00 +0100" "#
      + #"endDate="2024-03-01 12:00:00 +0100"/>"# + "\n"
    return """
      <?xml version="1.0" encoding="UTF-8"?>
      <HealthData locale="en_US">
       <ExportDate value="2024-03-02 10:00:00 +0100"/>

      """ + records + "</HealthData>\n"
  }

  @Test("every writer gives back each address with its leading zeros")
  func roundTrip() throws {
    let work = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: work) }
    let file = work.appendingPathComponent("devices.xml")
    try Self.export().write(to: file, atomically: true, encoding: .utf8)
    for format in ["csv", "jsonl", "json", "xml"] {
      for rangeBytes in [200, 5000] {
        let result = try ParallelReadTests.same(
          ["convert", file.path, "--to", format, "--quiet"], rangeBytes: rangeBytes)
        #expect(result.status == 0, "\(format): \(result.stderr)")
        for device in Self.devices {
          let written = format == "xml" ? Self.xmlEscaped(device) : device
          #expect(result.stdoutText.contains(written), "\(format): \(device)")
        }
      }
    }
    // xml → xml gives back the input's bytes for every element.
    let xml = try Harness.run(["convert", file.path, "--to", "xml", "--quiet"])
    for line in Self.export().split(separator: "\n") where line.contains("device=") {
      #expect(xml.stdoutText.contains(line), "\(line)")
    }
    // The database keeps the full string of the first record of its source.
    let database = work.appendingPathComponent("devices.db")
    let loaded = try Harness.run(["load", file.path, "--db", database.path, "--quiet"])
    #expect(loaded.status == 0, "\(loaded.stderr)")
    let devices = try Harness.toolOutput("/usr/bin/env", ["sqlite3", database.path, "SELECT device FROM sources"])
    #expect(devices.split(separator: "\n").contains(Substring(Self.devices[0])), "\(devices)")
  }
}
