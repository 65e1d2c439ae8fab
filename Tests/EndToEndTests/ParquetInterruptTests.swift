import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `convert --to parquet` interrupted by SIGTERM mid-write leaves nothing behind: no temporary
/// files, no empty folders, and an existing dataset exactly as it was.
@Suite("convert --to parquet interrupted by a signal", .serialized)
struct ParquetInterruptTests {
  /// Every file and folder under `root` (relative paths, folders ending in `/`) with each file's
  /// bytes, so that a dataset can be compared before and after.
  static func tree(_ root: URL) -> [String: Data] {
    var result: [String: Data] = [:]
    guard let walker = FileManager.default.enumerator(atPath: root.path) else { return result }
    for case let relative as String in walker {
      let path = root.appendingPathComponent(relative).path
      var isFolder: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
      result[isFolder.boolValue ? relative + "/" : relative] =
        isFolder.boolValue ? Data() : (FileManager.default.contents(atPath: path) ?? Data())
    }
    return result
  }

  /// Part files written so far anywhere under `root` (hidden temporaries included).
  static func partFiles(_ root: URL) -> Int {
    tree(root).keys.filter { $0.hasSuffix(".parquet") || $0.hasSuffix(".parquet.tmp") }.count
  }

  @Test("into a new folder: SIGTERM removes the temporary folder, its tables and their folders")
  func newFolderTerminated() throws {
    let input = try InterruptTests.bigExport.get()
    let work = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: work) }
    let arguments = ["convert", input.path, "--to", "parquet", "-o", "dataset", "--partition-by", "type,year"]
    let run = try InterruptTests.interrupt(arguments, in: work, with: SIGTERM) {
      // Mid-write: the temporary folder holds part files in partition folders.
      InterruptTests.names(work).contains { InterruptTests.isTemporary($0) } && Self.partFiles(work) >= 20
    }
    #expect(run.interrupted, "the conversion ended before it was interrupted: make the input larger")
    #expect(run.reason == .uncaughtSignal && run.status == SIGTERM, "ended with \(run.reason) \(run.status)")
    #expect(InterruptTests.names(work) == [], "left: \(Self.tree(work).keys.sorted().prefix(10))")
  }

  @Test("into an existing dataset: SIGTERM leaves every file and folder of it as it was")
  func existingDatasetTerminated() throws {
    let input = try InterruptTests.bigExport.get()
    let work = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: work) }
    let dataset = work.appendingPathComponent("cohort")
    let sample = Harness.samples.appendingPathComponent("export.zip").path
    for person in ["Smith, Anna", "Bob"] {
      let seed = try Harness.run([
        "convert", sample, "--to", "parquet", "-o", dataset.path, "--person", person, "--partition-by", "type,year",
        "--quiet",
      ])
      #expect(seed.status == 0, "\(seed.stderr)")
    }
    let before = Self.tree(dataset)
    #expect(before.keys.contains { $0.hasPrefix("records/person=Smith, Anna/") }, "\(before.keys.sorted().prefix(5))")
    let existing = before.keys.filter { $0.hasSuffix(".parquet") }.count

    // The same person again (whose files would be replaced at the end), and a new one.
    for person in ["Smith, Anna", "Carol"] {
      let arguments = [
        "convert", input.path, "--to", "parquet", "-o", "cohort", "--person", person, "--partition-by", "type,year",
      ]
      // Mid-write: the run's temporary folder beside the dataset holds part files.
      let run = try InterruptTests.interrupt(arguments, in: work, with: SIGTERM) {
        Self.partFiles(work) >= existing + 20
      }
      #expect(run.interrupted, "the conversion ended before it was interrupted: make the input larger")
      #expect(run.reason == .uncaughtSignal && run.status == SIGTERM, "ended with \(run.reason) \(run.status)")
      let after = Self.tree(dataset)
      #expect(Set(after.keys) == Set(before.keys), "changed: \(Set(after.keys).symmetricDifference(before.keys))")
      #expect(after == before)
      #expect(InterruptTests.names(work) == ["cohort"])
    }
  }
}
