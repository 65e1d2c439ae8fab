import Foundation
import Testing

/// An export cut inside a start tag (between two attributes, inside a value, at `/` of `/>`) is a
/// truncated file, and every command says so, whether or not it builds that element. libxml2 hands
/// the cut tag to the element callback before it reports the missing `>`; the element builder must
/// not get it, or it reports the attributes the cut removed instead of the cut.
@Suite("an export cut inside a start tag")
struct TruncatedTagTests {
  /// Offsets in Samples/export.xml that fall inside a start tag after one of its attributes: just
  /// after a closing quote, just after the space that follows it, and on the `/` of `/>`. Found by
  /// scanning the bytes here, independently of the reader.
  static func cutOffsets(_ bytes: [UInt8], count: Int) -> [Int] {
    var offsets: [Int] = []
    var inTag = false
    var inValue = false
    var index = 0
    while index < bytes.count && offsets.count < count {
      let byte = bytes[index]
      if !inTag {
        if byte == UInt8(ascii: "<"), index + 1 < bytes.count, bytes[index + 1] != UInt8(ascii: "/"),
          bytes[index + 1] != UInt8(ascii: "!"), bytes[index + 1] != UInt8(ascii: "?")
        {
          inTag = true
        }
      } else if inValue {
        if byte == UInt8(ascii: "\"") {
          inValue = false
          // Past the first few hundred lines only, so that the cut is deep in the body.
          if index > 20_000 && index % 7 == 0 { offsets += [index + 1, index + 2] }
        }
      } else if byte == UInt8(ascii: "\"") {
        inValue = true
      } else if byte == UInt8(ascii: ">") {
        if index > 20_000, bytes[index - 1] == UInt8(ascii: "/"), offsets.count % 5 == 0 { offsets.append(index) }
        inTag = false
      }
      index += 1
    }
    return offsets
  }

  @Test("info, convert and steps all report the truncation, at many cuts", arguments: ["info", "convert", "steps"])
  func everyCommandSaysTruncated(command: String) throws {
    let sample = try [UInt8](Data(contentsOf: Harness.samples.appendingPathComponent("export.xml")))
    let offsets = Self.cutOffsets(sample, count: 24)
    #expect(offsets.count >= 20)
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    for offset in offsets {
      let cut = directory.appendingPathComponent("cut-\(offset).xml")
      try Data(sample[..<offset]).write(to: cut)
      var arguments = [command, cut.path]
      if command == "convert" { arguments += ["--to", "jsonl", "-o", directory.appendingPathComponent("out").path] }
      let result = try Harness.run(arguments)
      #expect(result.status == 65, "\(command) cut at \(offset): \(result.stderr)")
      #expect(result.stderr.contains("truncated file?"), "\(command) cut at \(offset): \(result.stderr)")
      #expect(
        !result.stderr.contains("missing its required attribute"), "\(command) cut at \(offset): \(result.stderr)")
    }
  }
}
