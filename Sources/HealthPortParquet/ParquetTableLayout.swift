import HealthPort
import ParquetFile

/// How one catalog column becomes Parquet columns: the typed column(s) and, where a value may not
/// fit its type, a `_text` column that keeps it as written (a value that is not numeric never
/// fails the file).
enum ParquetCellKind: Sendable {
  /// A UTF-8 string.
  case text
  /// `INT64`; `fallback` is the `_text` column's index, if any.
  case integer(fallback: Int?)
  /// `DOUBLE`.
  case number(fallback: Int?)
  /// `X_utc` TIMESTAMP at the column's index, then `X_offset_min` INT32 and, for starts,
  /// `start_local_day` DATE.
  case date(localDay: Bool, fallback: Int?)
  /// `DATE` (a calendar day).
  case day(fallback: Int?)

  /// The `_text` column's index, if any.
  var fallback: Int? {
    switch self {
    case .text: nil
    case .integer(let fallback), .number(let fallback), .date(_, let fallback), .day(let fallback): fallback
    }
  }
}

/// One catalog column's place in a Parquet table: where its first Parquet column is and how its
/// cells are typed.
struct ParquetCellSlot: Sendable {
  let catalogColumn: TableColumn
  let kind: ParquetCellKind
  let firstColumn: Int
}

/// A table of the dataset: its catalog definition, its Parquet schema and the slot of each of
/// its catalog columns, derived once per table and partitioning.
struct ParquetTableLayout: Sendable {
  let definition: TableDefinition
  let schema: ParquetSchema
  let slots: [ParquetCellSlot]
  /// The partition keys that apply to this table, in folder order.
  let partitionKeys: [PartitionKey]
  /// The keys that apply to this table but are not folders: file columns after every catalog
  /// column (`type`, then `year`), so that a query sees the same columns whatever the partitioning.
  let keyColumns: [PartitionKey]
  /// The index of the first of ``keyColumns`` in the schema.
  let firstKeyColumn: Int
  /// The column that keeps the whole type identifier (`type` is its short name, a folder or a
  /// column).
  static let typeIdentifier = "type_identifier"

  /// The dataset folder's name for the table.
  var name: String { definition.name }

  /// The date whose year is the `year=` folder: an element's start, a route point's time, a
  /// recording's date (`hrv_beats`' `time` is a time of day).
  static func hasYearColumn(_ definition: TableDefinition, sideFile: Bool) -> Bool {
    definition.columns.contains { column in
      column.name == "startDate" || sideFile && (column.name == "time" || column.name == "recorded_date")
    }
  }

  init(_ definition: TableDefinition, partitionBy keys: [PartitionKey], generic: Bool, sideFile: Bool = false) throws {
    self.definition = definition
    let applies = PartitionKey.allCases.filter { key in
      switch key {
      case .type: definition.position(of: "type") != nil
      case .year: Self.hasYearColumn(definition, sideFile: sideFile)
      }
    }
    let partitionKeys = keys.filter(applies.contains)
    self.partitionKeys = partitionKeys
    keyColumns = applies.filter { !partitionKeys.contains($0) }
    var columns: [ParquetColumn] = []
    var slots: [ParquetCellSlot] = []
    for column in definition.columns {
      if column.name == "type" {
        // `type` is the short name (a folder or a key column); the file keeps the identifier whole.
        slots.append(ParquetCellSlot(catalogColumn: column, kind: .text, firstColumn: columns.count))
        columns.append(.string(Self.typeIdentifier, optional: !column.isRequired))
        continue
      }
      let optional = !column.isRequired
      let base = Self.parquetName(column)
      // A value of an attribute that may not fit its type keeps a `_text` column right after the
      // typed ones (dates of typed elements always parse; those of generic elements may not).
      // A side file's numbers and times are text as the file writes it.
      let mayNotFit =
        column.type == .numberOrText
        || column.role == .attribute && (column.type != .exportDate && column.type != .localDay || generic)
        || sideFile && column.role == .content && [.number, .exportDate, .instant].contains(column.type)
      let first = columns.count
      let kind: ParquetCellKind
      switch column.type {
      case .integer:
        columns.append(ParquetColumn(base, .int64, optional: optional || mayNotFit))
        kind = .integer(fallback: mayNotFit ? columns.count : nil)
      case .number, .numberOrText:
        columns.append(ParquetColumn(base, .double, optional: true))
        kind = .number(fallback: mayNotFit ? columns.count : nil)
      // A route point's time is an instant too (`X_utc`, `X_offset_min`); elsewhere an
      // instant is a text healthport derived.
      case .exportDate,
        .instant where sideFile:
        let nullable = optional || mayNotFit
        columns.append(.timestamp(base + "_utc", optional: nullable))
        columns.append(ParquetColumn(base + "_offset_min", .int32, optional: nullable))
        let localDay = column.name == "startDate"
        if localDay { columns.append(.date(base + "_local_day", optional: nullable)) }
        kind = .date(localDay: localDay, fallback: mayNotFit ? columns.count : nil)
      case .localDay:
        columns.append(.date(base, optional: true))
        kind = .day(fallback: mayNotFit ? columns.count : nil)
      case .text, .localTime, .json, .isoDate, .instant:
        // A device string holds a memory address that differs on nearly every record.
        columns.append(.string(base, optional: optional, dictionary: column.name != "device"))
        kind = .text
      }
      if kind.fallback != nil { columns.append(.string(base + "_text", optional: true)) }
      slots.append(ParquetCellSlot(catalogColumn: column, kind: kind, firstColumn: first))
    }
    self.slots = slots
    firstKeyColumn = columns.count
    for key in keyColumns {
      switch key {
      case .type: columns.append(.string(PartitionKey.type.rawValue, optional: true))
      case .year: columns.append(ParquetColumn(PartitionKey.year.rawValue, .int64, optional: true))
      }
    }
    schema = try ParquetSchema(columns)
  }

  /// The Parquet name of a catalog column (for a date, the stem before `_utc`): snake_case, with
  /// `Me`'s `HKCharacteristicTypeIdentifier` prefix and a date's `Date` suffix left out
  /// (`startDate` → `start`, `HKCharacteristicTypeIdentifierBloodType` → `blood_type`).
  static func parquetName(_ column: TableColumn) -> String {
    var name = Substring(column.name)
    let characteristic = "HKCharacteristicTypeIdentifier"
    if name.hasPrefix(characteristic) { name = name.dropFirst(characteristic.count) }
    if column.type == .exportDate, name.hasSuffix("Date"), name.count > 4 { name = name.dropLast(4) }
    return TableColumn.snakeCase(String(name))
  }
}

/// What `--partition-by` may name: a folder when partitioned by it, else a column after every
/// other column of the files.
enum PartitionKey: String, Sendable, CaseIterable {
  /// The short name of the `type` column's identifier (records, correlations, statistics…);
  /// the files keep the identifier whole in `type_identifier`.
  case type
  /// The year of `startDate` in the offset the export wrote (`INT64`).
  case year
}
