/// Rows of text cells rendered as a table for people, as CSV (RFC 4180, LF) or as a JSON array of
/// objects. Each cell knows whether it is a number (right-aligned, unquoted in JSON) or text.
///
/// A number cell carries its value, and the renderer writes it: CSV and JSON exactly
/// (``NumberText/exact(_:)``, `null` in JSON when not finite), tables rounded to the cell's decimals
/// (``NumberText/format(_:decimals:)``), with thousands separators when ``groupsThousands``.
package struct TabularOutput {
  package enum Cell {
    case text(String)
    /// A number; a table shows it with at most `decimals` decimals.
    case number(Double, decimals: Int = 3)
    /// An unknown value: empty in CSV and tables, `null` in JSON.
    case empty

    /// A count: an integer everywhere.
    package static func count(_ value: Int) -> Cell { .number(Double(value), decimals: 0) }

    /// The cell as CSV writes it.
    package var dataText: String {
      switch self {
      case .text(let text): text
      case .number(let value, _): NumberText.exact(value)
      case .empty: ""
      }
    }

    /// The cell as a table shows it.
    package func tableText(grouped groups: Bool) -> String {
      switch self {
      case .text(let text): text
      case .number(let value, let decimals):
        groups
          ? NumberText.grouped(NumberText.format(value, decimals: decimals))
          : NumberText.format(value, decimals: decimals)
      case .empty: ""
      }
    }
  }

  package var columns: [String]
  package var rows: [[Cell]] = []
  /// For tables: the column whose value draws a bar at the end of each row.
  package var barColumn: Int?
  package var barValues: [Double] = []
  /// For tables: a last line under the rows (e.g. totals).
  package var totalRow: [Cell]?
  /// For tables: numbers with thousands separators (`12,345`).
  package var groupsThousands = false

  package init(columns: [String]) { self.columns = columns }

  package func render(_ format: String) -> [UInt8] {
    switch format {
    case "csv": csv()
    case "json": json()
    default: Array(table().utf8)
    }
  }

  package func csv() -> [UInt8] {
    var out: [UInt8] = []
    func line(_ cells: [String]) {
      for (index, cell) in cells.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        CSVEncoding.appendCell(cell, to: &out)
      }
      out.append(0x0A)
    }
    CSVEncoding.appendHeader(columns, to: &out)
    for row in rows { line(row.map(\.dataText)) }
    return out
  }

  package func json() -> [UInt8] {
    var out: [UInt8] = [UInt8(ascii: "[")]
    for (rowIndex, row) in rows.enumerated() {
      out.append(contentsOf: Array((rowIndex > 0 ? ",\n  {" : "\n  {").utf8))
      for (index, cell) in row.enumerated() {
        if index > 0 { out.append(contentsOf: Array(", ".utf8)) }
        JSONEscaping.appendString(columns[index], to: &out)
        out.append(contentsOf: Array(": ".utf8))
        switch cell {
        case .text(let text): JSONEscaping.appendString(text, to: &out)
        case .number(let value, _) where value.isFinite: out.append(contentsOf: Array(NumberText.exact(value).utf8))
        case .number, .empty: out.append(contentsOf: Array("null".utf8))
        }
      }
      out.append(UInt8(ascii: "}"))
    }
    out.append(contentsOf: Array((rows.isEmpty ? "]\n" : "\n]\n").utf8))
    return out
  }

  package func table() -> String {
    if rows.isEmpty { return columns.joined(separator: "  ") + "\n(no data)\n" }
    // Non-breaking spaces shown (text cells only); widths in terminal columns.
    let all: [[String]] = ([columns.map { Cell.text($0) }] + rows + (totalRow.map { [$0] } ?? [])).map { row in
      row.map { (cell: Cell) -> String in
        if case .text(let text) = cell { return text.shownInTable }
        return cell.tableText(grouped: groupsThousands)
      }
    }
    var widths = [Int](repeating: 0, count: columns.count)
    for row in all {
      for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.displayWidth) }
    }
    let numeric = columns.indices.map { index in
      rows.contains { if case .number = $0[index] { true } else { false } }
    }
    func line(_ row: [String]) -> String {
      row.enumerated().map { index, cell in
        numeric[index] ? cell.leftPadded(to: widths[index]) : cell.rightPadded(to: widths[index])
      }.joined(separator: "  ")
    }
    var lines = [line(all[0])]
    let maxBar = barValues.max() ?? 0
    for (index, row) in all.dropFirst().prefix(rows.count).enumerated() {
      var text = line(row)
      if barColumn != nil, maxBar > 0, index < barValues.count {
        let length = Int((barValues[index] / maxBar * 40).rounded())
        text += "  " + String(repeating: "█", count: max(0, length))
      }
      lines.append(text)
    }
    if totalRow != nil, let last = all.last {
      lines.append(String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1)))
      lines.append(line(last))
    }
    return lines.map { $0.trimmingTrailingSpaces() }.joined(separator: "\n") + "\n"
  }
}
