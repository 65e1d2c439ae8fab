import Foundation
import Testing

@testable import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

/// The one owner of outputs in-process: what `-o` names resolve to, and what a command reads.
@Suite("FileOutput, FolderOutput and ReadFiles")
struct OutputDestinationTests {
  static func scratch() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("healthport-output-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  @Test("- and /dev/stdout are standard output; nothing is created, nothing replaced", arguments: ["-", "/dev/stdout"])
  func standardOutput(path: String) throws {
    var before = stat()
    let hadNode = lstat(path, &before) == 0
    let output = try FileOutput(path: path, reads: ReadFiles([]))
    guard case .standardOutput = output.placement else {
      Issue.record("\(path) is \(output.placement)")
      return
    }
    #expect(output.descriptor == 1)
    try output.commit()
    var after = stat()
    if hadNode {
      #expect(lstat(path, &after) == 0 && after.st_ino == before.st_ino && after.st_mode == before.st_mode)
    }
  }

  @Test("a link is followed to its target's folder for the temporary file; a chain of links too")
  func links() throws {
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(
      at: directory.appendingPathComponent("real"), withIntermediateDirectories: true)
    let target = directory.appendingPathComponent("real/out.csv").path
    let first = directory.appendingPathComponent("a.csv").path
    let second = directory.appendingPathComponent("b.csv").path
    try FileManager.default.createSymbolicLink(atPath: second, withDestinationPath: "real/out.csv")
    try FileManager.default.createSymbolicLink(atPath: first, withDestinationPath: "b.csv")
    let output = try FileOutput(path: first, reads: ReadFiles([]))
    #expect(output.target == directory.path + "/real/out.csv")
    guard case .replacing(let temporary) = output.placement else {
      Issue.record("\(output.placement)")
      return
    }
    #expect(temporary.hasPrefix(directory.path + "/real/.out.csv.tmp-"))
    _ = "row\n".withCString { write(output.descriptor, $0, 4) }
    try output.commit()
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "row\n")
    var info = stat()
    #expect(lstat(first, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK)
  }

  @Test("what a command reads: the input, the side folders beside an export.xml, a split folder whole")
  func readRegions() throws {
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    let export = directory.appendingPathComponent("export.xml")
    try Data("<HealthData/>".utf8).write(to: export)
    let routes = directory.appendingPathComponent("workout-routes")
    try FileManager.default.createDirectory(at: routes, withIntermediateDirectories: true)
    let reads = ReadFiles([export.path])
    #expect(reads.conflict(withFile: export.path) != nil)
    #expect(reads.conflict(withFile: directory.path + "/./export.xml") != nil, "compared by real path")
    #expect(reads.conflict(withFile: routes.path + "/new.gpx") != nil, "inside a folder read")
    #expect(reads.conflict(withFile: directory.path + "/records.csv") == nil, "a new path beside it is fine")
    #expect(reads.conflict(withFolder: directory.path) != nil, "a folder holding the input")
    #expect(reads.conflict(withFolder: directory.path + "/tables") == nil)
    #expect(ReadFiles([export.path], wholeFolders: true).conflict(withFile: directory.path + "/x.zip") != nil)
    #expect(ReadFiles([nil, "-"]).regions.isEmpty, "stdin cannot be overwritten")
  }

  @Test("a folder's manifest that cannot be read, or leads outside the folder, is refused")
  func damagedManifest() throws {
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    for text in [
      "not json", #"{"files": [{"path": "../escape", "bytes": 1}]}"#, #"{"files": [{"path": "/etc/x", "bytes": 1}]}"#,
    ] {
      let target = directory.appendingPathComponent("out")
      try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
      try Data(text.utf8).write(to: target.appendingPathComponent(FolderOutput.manifestName))
      #expect(throws: HealthPortError.self) {
        _ = try FolderOutput(path: target.path, reads: ReadFiles([]), writes: .split)
      }
      try FileManager.default.removeItem(at: target)
    }
  }
}
