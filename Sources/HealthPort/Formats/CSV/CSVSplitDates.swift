/// The dates of a `--split` table: each as the export writes it, followed by two derived
/// columns, `<stem>ISO` (ISO 8601 in the written offset) and `<stem>UTC` (the instant in UTC), which
/// the reader ignores (`startDate` → `startISO`, `startUTC`; `date` → `dateISO`, `dateUTC`).
struct CSVSplitDates {
  private var export = ExportDateFormatter()
  private var iso = ExportDateFormatter(style: .iso)
  private var utc = ExportDateFormatter(style: .utc)

  /// The stem of a date column's derived columns: its name without a trailing `Date`.
  static func stem(_ name: String) -> String {
    name.hasSuffix("Date") && name.count > 4 ? String(name.dropLast(4)) : name
  }

  /// `columns` with `<stem>ISO` and `<stem>UTC` after each date in the export's form.
  static func withDerived(_ columns: [TableColumn]) -> [TableColumn] {
    columns.flatMap { column -> [TableColumn] in
      guard column.type == .exportDate else { return [column] }
      let stem = stem(column.name)
      return [
        column,
        TableColumn(stem + "ISO", .isoDate, .derived, "`\(column.name)` in ISO 8601, in the offset the export wrote"),
        TableColumn(stem + "UTC", .instant, .derived, "the same instant in UTC"),
      ]
    }
  }

  /// A parsed date, then its ISO and UTC forms: three cells (empty when there is no date).
  @inline(__always)
  mutating func append(_ date: HealthDate?, to out: inout ByteBuffer) {
    export.append(date, to: &out)
    out.append(CSVEncoding.comma)
    iso.append(date, to: &out)
    out.append(CSVEncoding.comma)
    utc.append(date, to: &out)
  }

  /// A date as written (a generic element's attribute), then its ISO and UTC forms when it is
  /// a date (empty otherwise).
  mutating func append(text: String?, to out: inout ByteBuffer) {
    CSVEncoding.appendField(text, to: &out)
    let date = text.flatMap { HealthDate($0) }
    out.append(CSVEncoding.comma)
    iso.append(date, to: &out)
    out.append(CSVEncoding.comma)
    utc.append(date, to: &out)
  }
}
