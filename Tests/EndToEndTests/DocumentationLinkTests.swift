import Foundation
import TestSupport
import Testing

/// Users of the repository have the README, the sources and `--help`; they do not have the
/// developers' format notes. Every pointer in those must lead somewhere a user can follow.
@Suite("documentation links")
struct DocumentationLinkTests {
  /// Names of documents that exist only beside the developers' checkout.
  static let privateDocuments = ["FORMAT.md", "SPEC-NOTES", "STYLE.md"]

  /// Every tracked text file a user reads: the README, sources, tests, scripts, the Makefile.
  static func userVisibleFiles() throws -> [URL] {
    let root = TestEnvironment.repoRoot
    var files = [root.appendingPathComponent("README.md"), root.appendingPathComponent("Makefile")]
    for folder in ["Sources", "Tests", "Benchmarks", "scripts", "Fuzz"] {
      guard
        let walker = FileManager.default.enumerator(
          at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
      else { continue }
      for case let url as URL in walker where ["swift", "py", "sh", "c", "md"].contains(url.pathExtension) {
        files.append(url)
      }
    }
    return files
  }

  @Test("no source file, script or README section cites the developers' private notes")
  func noPrivateDocuments() throws {
    let this = URL(fileURLWithPath: #filePath).standardizedFileURL.path
    for file in try Self.userVisibleFiles() where file.standardizedFileURL.path != this {
      let text = try String(contentsOf: file, encoding: .utf8)
      for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        for name in Self.privateDocuments where line.contains(name) {
          Issue.record("\(file.path):\(number + 1): cites \(name), which users do not have")
        }
      }
    }
  }

  @Test("every docs/… path and every README anchor that help or the README names exists")
  func pathsAndAnchorsExist() throws {
    let root = TestEnvironment.repoRoot
    var texts = try Self.userVisibleFiles().map { ($0.path, try String(contentsOf: $0, encoding: .utf8)) }
    for command in ["info", "convert", "load", "steps", "stats", "workouts", "sleep", "profile"] {
      let help = try Harness.run([command, "--help"])
      #expect(help.status == 0, "\(command) --help: \(help.stderr)")
      texts.append(("healthport \(command) --help", help.stdoutText + help.stderr))
    }
    let docsPath = try Regex(#"\bdocs/[A-Za-z0-9_./-]+"#)
    for (name, text) in texts {
      for match in text.matches(of: docsPath) {
        let path = String(text[match.range]).trimmingCharacters(in: CharacterSet(charactersIn: ".,)"))
        #expect(
          FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path),
          "\(name) points to \(path), which does not exist")
      }
    }
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let anchors = Set(
      readme.split(separator: "\n").filter { $0.hasPrefix("#") }.map { Self.anchor(of: String($0)) })
    for match in readme.matches(of: try Regex(#"\]\(#([^)]+)\)"#)) {
      let anchor = String(readme[match.range]).dropFirst(3).dropLast()
      #expect(anchors.contains(String(anchor)), "README links to #\(anchor), which no heading makes")
    }
  }

  /// GitHub's anchor for a Markdown heading: lowercased, punctuation dropped, spaces as hyphens.
  static func anchor(of heading: String) -> String {
    let title = heading.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
    var result = ""
    for character in title {
      if character == " " {
        result.append("-")
      } else if character.isLetter || character.isNumber || character == "-" || character == "_" {
        result.append(character)
      }
    }
    return result
  }
}
