import Foundation
import TestSupport
import Testing

/// Users of the repository have the README, the sources and `--help`; they do not have the
/// developers' format notes. Every pointer in those must lead somewhere a user can follow.
@Suite("documentation links")
struct DocumentationLinkTests {
  /// Names of documents that exist only beside the developers' checkout.
  static let privateDocuments = ["FORMAT.md", "SPEC-NOTES", "STYLE.md"]

  /// Every tracked text file a user reads: the README, the manual, sources, tests, scripts, the Makefile.
  static func userVisibleFiles() throws -> [URL] {
    let root = TestEnvironment.repoRoot
    var files = [root.appendingPathComponent("README.md"), root.appendingPathComponent("Makefile")]
    for folder in ["docs", "Sources", "Tests", "Benchmarks", "scripts", "Fuzz"] {
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

  @Test("every docs/… path and every link of the README and the manual leads somewhere")
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
    try Self.expectLinksResolve()
  }

  /// Every relative link of the README and the manual (`docs/*.md`) names a file that exists and,
  /// after a `#`, a heading of that file.
  static func expectLinksResolve() throws {
    let root = TestEnvironment.repoRoot
    let docs = root.appendingPathComponent("docs")
    let pages =
      [root.appendingPathComponent("README.md")]
      + (try FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil))
      .filter { $0.pathExtension == "md" }
    func anchors(_ page: URL) throws -> Set<String> {
      let text = try String(contentsOf: page, encoding: .utf8)
      return Set(text.split(separator: "\n").filter { $0.hasPrefix("#") }.map { anchor(of: String($0)) })
    }
    let link = try Regex(#"\]\(([^)\s]+)\)"#)
    for page in pages {
      let text = try String(contentsOf: page, encoding: .utf8)
      for match in text.matches(of: link) {
        let target = String(text[match.range].dropFirst(2).dropLast())
        if target.contains("://") || target.hasPrefix("mailto:") { continue }
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let file =
          parts[0].isEmpty
          ? page : page.deletingLastPathComponent().appendingPathComponent(String(parts[0])).standardizedFileURL
        let name = page.lastPathComponent
        guard FileManager.default.fileExists(atPath: file.path) else {
          Issue.record("\(name) links to \(target), which does not exist")
          continue
        }
        if parts.count == 2, file.pathExtension == "md" {
          #expect(try anchors(file).contains(String(parts[1])), "\(name) links to \(target), which no heading makes")
        }
      }
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
