import Foundation
import TestSupport
import Testing

/// The line between the library and the command-line tool: the library's errors carry data, and
/// only `Sources/healthport/` names command-line options or throws usage errors (docs/errors.md).
@Suite("the library names no command-line option")
struct LibraryBoundaryTests {
  /// Every Swift file of the library modules: everything under `Sources/` but the tool's folder.
  static func librarySources() -> [URL] {
    let sources = TestEnvironment.repoRoot.appendingPathComponent("Sources")
    guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else { return [] }
    return walker.compactMap { $0 as? URL }
      .filter { $0.pathExtension == "swift" && !$0.path.contains("/Sources/healthport/") }
      .sorted { $0.path < $1.path }
  }

  /// `line` without its `//` comment: the first `//` outside a string literal.
  static func code(_ line: Substring) -> Substring {
    var inString = false
    var escaped = false
    var previous: Character?
    for index in line.indices {
      let character = line[index]
      defer { previous = character }
      if escaped {
        escaped = false
        continue
      }
      if character == "\\" && inString {
        escaped = true
      } else if character == "\"" {
        inString.toggle()
      } else if character == "/" && previous == "/" && !inString {
        return line[..<line.index(before: index)]
      }
    }
    return line
  }

  /// An option (`--tz`, `--to sqlite`) or the output option (`-o PATH`), as a command line spells it.
  static let optionPattern = NSRegularExpression.compiled(#"(?<![A-Za-z0-9_-])(--[a-z][a-z-]*|-o\b)"#)

  /// Lines of the library's code (comments left out) that match `pattern`, as `path:line: text`.
  static func matches(_ pattern: NSRegularExpression, skipping: (String) -> Bool = { _ in false }) throws -> [String] {
    var found: [String] = []
    let root = TestEnvironment.repoRoot.path + "/"
    for file in librarySources() {
      let text = try String(contentsOf: file, encoding: .utf8)
      for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let code = String(Self.code(line))
        guard !skipping(code),
          pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil
        else { continue }
        found.append("\(file.path.replacingOccurrences(of: root, with: "")):\(number + 1): \(line)")
      }
    }
    return found
  }

  @Test("no string literal in the library names a command-line option")
  func noOptionNames() throws {
    let found = try Self.matches(Self.optionPattern)
    #expect(found.isEmpty, "\(found.count) line(s):\n\(found.joined(separator: "\n"))")
  }

  @Test("the library throws no usage error: the command-line tool decides what a usage error is")
  func noUsageErrors() throws {
    let usage = NSRegularExpression.compiled(#"\.usage\b"#)
    // The declaration of the kind itself, which the tool throws.
    let found = try Self.matches(usage) { $0.trimmingCharacters(in: .whitespaces) == "case usage" }
    #expect(found.isEmpty, "\(found.count) line(s):\n\(found.joined(separator: "\n"))")
  }

  @Test("the checks see what they look for: an option in a literal, not in a comment")
  func checksWork() throws {
    #expect(Self.code(#"  throw X("--tz is bad") // see --tz"#) == #"  throw X("--tz is bad") "#)
    #expect(Self.code(#"  let uri = "postgresql://host" // --db"#) == #"  let uri = "postgresql://host" "#)
    #expect(Self.code("  /// `--tz`").trimmingCharacters(in: .whitespaces).isEmpty)
    for (text, matches) in [
      (#""--to sqlite needs -o PATH""#, true), (#""give it with -o DIR""#, true), (#""(--skip-invalid)""#, true),
      (#""iconv -f UTF-16 -t UTF-8""#, false), (#""2024-W01""#, false), (#"let a = b - c"#, false),
    ] {
      let found = Self.optionPattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
      #expect(found == matches, "\(text)")
    }
  }
}

extension NSRegularExpression {
  /// A pattern written in this file, known to compile.
  fileprivate static func compiled(_ pattern: String) -> NSRegularExpression {
    do {
      return try NSRegularExpression(pattern: pattern)
    } catch {
      fatalError("\(pattern): \(error)")
    }
  }
}
