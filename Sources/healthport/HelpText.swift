#if canImport(Glibc)
  import Glibc
#endif

/// Help text fitted to the width it is read at: `COLUMNS` when set, else the terminal's, else 80.
enum HelpText {
  /// `COLUMNS` when it holds a positive number, else the width of the terminal on
  /// `fileDescriptor` (`TIOCGWINSZ`), else 80 (a pipe, a file).
  static func width(fileDescriptor: Int32) -> Int {
    if let value = getenv("COLUMNS"), let columns = Int(String(cString: value)), columns > 0 { return columns }
    var size = winsize()
    if isatty(fileDescriptor) == 1, ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
      return Int(size.ws_col)
    }
    return 80
  }

  /// Narrower than this, continuation lines are no longer indented under their column.
  static let minimumWidth = 40

  /// `text` with each line wider than `width` terminal columns broken at spaces. A paragraph of
  /// prose (lines that start in the first column, but headings and `USAGE:`) with such a line is
  /// joined and filled again. A line's continuations are indented to where its text starts: after
  /// the left column of a two-column line (`  --type <type>      Only these…`, the gap being two
  /// spaces or more), after the command of a `USAGE:` line, under the line for its continuations
  /// (`[--from D] …`); else two more than the line (an example), or none for prose. A word wider than the width stays whole.
  static func wrap(_ text: String, width: Int) -> String {
    var lines: [String] = []
    var paragraph: [Substring] = []
    func flush() {
      guard !paragraph.isEmpty else { return }
      if paragraph.contains(where: { String($0).displayWidth > width }) {
        lines.append(wrapLine(Array(paragraph.joined(separator: " ")), width: width))
      } else {
        lines.append(contentsOf: paragraph.map(String.init))
      }
      paragraph.removeAll()
    }
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if isProse(line) {
        paragraph.append(line)
      } else {
        flush()
        lines.append(wrapLine(Array(line), width: width))
      }
    }
    flush()
    return lines.joined(separator: "\n")
  }

  /// A line of a paragraph: text from the first column that is not a heading (`OPTIONS:`) nor
  /// the usage line.
  private static func isProse(_ line: Substring) -> Bool {
    guard let first = line.first, first != " " else { return false }
    if line.hasPrefix("USAGE:") { return false }
    return !(line.hasSuffix(":") && line.dropLast().allSatisfy { $0.isUppercase || $0 == " " })
  }

  private static func wrapLine(_ line: [Character], width: Int) -> String {
    guard columns(line[...]) > width else { return String(line) }
    var line = line
    // A line indented past half the width (a column laid out for a wide terminal) moves left.
    let own = line.prefix { $0 == " " }.count
    if own > width / 2 { line = Array(repeating: " ", count: width / 2) + line.dropFirst(own) }
    var indent = hangingIndent(line)
    let lead = line.prefix { $0 == " " }.count
    if indent > width / 2 || width < minimumWidth { indent = min(indent, lead + 2, width / 2) }
    var lines: [String] = []
    var rest = line[...]
    // Breaks only after the text has started (never inside a left column or the indentation).
    var firstBreak = lead
    while columns(rest) > width {
      guard let cut = breakIndex(rest, after: firstBreak, width: width) else { break }
      lines.append(String(rest[..<cut]))
      let next = rest[cut...].drop { $0 == " " }
      if next.isEmpty { break }
      // A word too wide for the hanging column starts nearer the margin.
      let word = columns(next.prefix { $0 != " " })
      let shift = indent + word <= width ? indent : (lead + 2 + word <= width ? lead + 2 : 0)
      rest = ArraySlice(Array(repeating: " ", count: shift) + next)
      firstBreak = shift
    }
    if !rest.isEmpty { lines.append(String(rest)) }
    return lines.joined(separator: "\n")
  }

  /// Where to break `text` so that what comes before fits `width`: the last such space (after
  /// column `start`); without one, just after the last `,` or `|` inside a word (a list such as
  /// `start,end,activity,…` or `csv|jsonl|…`); without one either, the first space after the width.
  private static func breakIndex(_ text: ArraySlice<Character>, after start: Int, width: Int) -> Int? {
    var used = 0
    var space: Int?
    var mark: Int?
    for index in text.indices {
      let character = text[index]
      let column = index - text.startIndex
      if character == " ", column > start, text[index - 1] != " " {
        if used > width { return space ?? mark ?? index }
        space = index
      }
      used += character.displayWidth
      if used > width, let space { return space }
      if character == "," || character == "|", column > start, used <= width, index + 1 < text.endIndex,
        text[index + 1] != " "
      {
        mark = index + 1
      }
    }
    return space ?? mark
  }

  private static func columns(_ characters: ArraySlice<Character>) -> Int {
    characters.reduce(0) { $0 + $1.displayWidth }
  }

  /// Where the text of a line starts, for its continuation lines.
  private static func hangingIndent(_ line: [Character]) -> Int {
    let lead = line.prefix { $0 == " " }.count
    // Two columns: the first gap of two spaces or more after the line's first word.
    var index = lead
    while index < line.count {
      if line[index] == " ", index + 1 < line.count, line[index + 1] == " " {
        var end = index
        while end < line.count, line[end] == " " { end += 1 }
        if end < line.count { return columns(line[..<end]) }
        break
      }
      index += 1
    }
    // `USAGE: healthport steps [INPUT] …`: under the first argument.
    if line.starts(with: "USAGE: ") {
      var spaces = 0
      for (position, character) in line.enumerated() where character == " " {
        spaces += 1
        if spaces == 3 { return columns(line[...position]) }
      }
    }
    // A continuation of the usage line (`[--from D] …`) stays in its column; an example hangs.
    if lead < line.count, line[lead] == "[" { return lead }
    return lead > 0 ? lead + 2 : 0
  }
}
