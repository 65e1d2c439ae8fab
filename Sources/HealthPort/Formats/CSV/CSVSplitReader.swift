#if canImport(Glibc)
  import Glibc
#endif

/// Reads a `convert --split` folder back into the exact model: a streaming k-way merge by `id`
/// over every table (each table is in id order) that hands each row to the ``ElementBuilder``
/// as a start tag (its cells as attributes, named by ``ColumnCatalog``), so that a folder gives
/// the same elements, checked the same way, as the XML it came from. An element is ended when
/// a row that is not inside it appears. Memory holds one row per table and the element being
/// rebuilt.
final class CSVSplitReader {
  let directory: String
  let options: ReadOptions

  init(directory: String, options: ReadOptions) {
    self.directory = directory
    self.options = options
  }

  private var cursors: [TableCursor] = []
  private var heap: [Int] = []
  /// The ids of the elements open in the builder, outermost first.
  private var open: [Int] = []
  /// `attributes.csv`: not merged, but drained by the row of the element its rows belong to.
  private var attributeRows: TableCursor?
  private let attributes = OwnedAttributes()
  private let builder = ElementBuilder()
  private var report = ReadReport(documentName: "", format: .csvSplit)

  func read(into sink: ExportSink) throws -> ReadReport {
    report = ReadReport(documentName: directory, format: .csvSplit)
    var names = try CSVSplitFolder.tableFileNames(directory)
    names.sort()
    guard names.contains("export.csv") else {
      throw HealthPortError(.malformed, file: directory, message: "not a split CSV folder (no export.csv)")
    }
    let fixed = Dictionary(uniqueKeysWithValues: CSVSplitSchema.Table.allCases.map { ($0.fileName, $0) })
    var exportCursor: TableCursor?
    for name in names {
      let path = directory + "/" + name
      let reader = try CSVRowReader(path: path, bufferSize: 32 << 10)
      guard try reader.next() else {
        throw HealthPortError(.malformed, file: path, message: "the table is empty (not even a header row)")
      }
      let header = (0..<reader.fieldCount).map { reader.string($0) }
      let kind: TableCursor.Kind
      let columns: [TableColumn]
      if let table = fixed[name] {
        // Folders written before `workout_id`, or before the derived dates, are read too.
        guard let read = table.readColumns(header: header) else {
          throw reader.error(
            column: 1, "unexpected header; \(name) has the columns \(table.columns.joined(separator: ","))")
        }
        kind = .fixed(table)
        columns = read.columns
      } else if let read = CSVSplitSchema.recordReadColumns(header: header) {
        kind = .records
        columns = read
      } else if ColumnCatalog.sideFileTables.contains(where: { $0.name + ".csv" == name }) {
        continue  // Route points and ECGs are not elements of export.xml: not read back.
      } else {
        report.notes.append("\(path): not a table of a split folder; ignored")
        continue
      }
      let cursor = TableCursor(reader: reader, kind: kind, columns: columns, names: attributes)
      switch kind {
      case .fixed(.export): exportCursor = cursor
      case .fixed(.attributes):
        attributeRows = cursor
        cursors.append(cursor)
      default: cursors.append(cursor)
      }
    }
    guard let exportCursor else { throw HealthPortError(.malformed, file: directory, message: "export.csv is missing") }

    // The header row: id 0.
    try exportCursor.advance()
    // Its attributes and prolog are the last two cells (after the derived dates, when written).
    let attributesCell = exportCursor.columnCount - 2
    guard !exportCursor.exhausted, exportCursor.id == 0, attributesCell > 1 else {
      throw exportCursor.reader.error(column: 1, "the first row of export.csv must be the root element (id 0)")
    }
    let row = exportCursor.reader
    let rootAttributes: [Attribute]
    do {
      rootAttributes = try row.withField(attributesCell) { try CSVMetadataJSON.parsePairs($0) }.map {
        Attribute($0.0, $0.1)
      }
    } catch let error as CSVMetadataJSON.ParseError {
      throw row.error(column: attributesCell + 1, "attributes: \(error.message)")
    }
    try sink.begin(
      ExportHeader(prolog: row.fieldBytes(attributesCell + 1), rootAttributes: rootAttributes, rootName: row.string(1)))
    builder.onElement = { try sink.consume($0) }
    attributes.removeAll()
    try row.withField(1) { try builder.startElement(ByteView($0), attributes: attributes) }
    try exportCursor.advance()
    cursors.append(exportCursor)

    for index in cursors.indices {
      if cursors[index] !== exportCursor { try cursors[index].advance() }
      if !cursors[index].exhausted, cursors[index] !== attributeRows { push(index) }
    }
    var rows = 0
    while let top = heap.first {
      let cursor = cursors[top]
      try process(cursor)
      try cursor.advance()
      if cursor.exhausted { popHeap() } else { siftDown(0) }
      rows += 1
      if rows & 0xFFF == 0, let progress = options.progress { progress(bytesRead, nil) }
    }
    try rejectAttributeRows(before: Int.max)
    while !open.isEmpty { try close() }
    report.unknownElements = builder.unknownElementCount
    report.textNodes = builder.ignoredTextCount
    report.documentBytes = bytesRead
    try sink.end(report)
    return report
  }

  private var bytesRead: Int64 { cursors.reduce(0) { $0 + $1.reader.bytesRead } }

  // MARK: Rows

  private func process(_ cursor: TableCursor) throws {
    let row = cursor.reader
    let id = cursor.id
    try rejectAttributeRows(before: id)
    var parent: Int?
    if cursor.hasParent, !row.isEmpty(1) {
      guard let value = row.integer(1) else { throw row.error(column: 2, "parent_id is not a number") }
      parent = value
    }
    if let parent {
      while let last = open.last, last != parent { try close() }
      guard !open.isEmpty else {
        throw row.error(column: 2, "parent_id \(parent) names no element that encloses this row")
      }
    } else {
      while !open.isEmpty { try close() }
    }
    try start(cursor)
    open.append(id)
  }

  /// Starts the row's element in the builder: its name, the attributes in its cells (present
  /// ones, in column order), then those `attributes.csv` holds for its id, and its text.
  private func start(_ cursor: TableCursor) throws {
    let row = cursor.reader
    if cursor.kind == .fixed(.export), row.string(1) != "ExportDate" {
      throw row.error(column: 2, "only the first row of export.csv is the root; later rows are ExportDate")
    }
    if let nameCell = cursor.nameCell, row.isAbsent(nameCell) {
      throw row.error(column: nameCell + 1, "element is missing")
    }
    attributes.removeAll()
    for (cell, name) in cursor.cells where !row.isAbsent(cell) {
      row.withField(cell) { attributes.append(name, value: $0) }
    }
    if cursor.kind == .fixed(.export), attributes.count == 0 { throw row.error(column: 3, "value is missing") }
    if let extras = attributeRows, !extras.exhausted, extras.id == cursor.id {
      repeat {
        let name = extras.reader.withField(1) { attributes.name($0) }
        extras.reader.withField(2) { attributes.append(name, value: $0) }
        try extras.advance()
      } while !extras.exhausted && extras.id == cursor.id
    }
    do {
      if let nameCell = cursor.nameCell {
        try row.withField(nameCell) { try builder.startElement(ByteView($0), attributes: attributes) }
      } else {
        try cursor.elementName.withUnsafeBufferPointer {
          try builder.startElement(ByteView($0), attributes: attributes)
        }
      }
    } catch let error as ExportDataError {
      throw locate(error, in: cursor)
    } catch let error as ExportLimitError {
      throw row.error(column: 1, error.message)
    }
    if let textCell = cursor.textCell, !row.isAbsent(textCell) {
      try row.withField(textCell) { try builder.text(ByteView($0)) }
    }
  }

  private func close() throws {
    open.removeLast()
    try builder.endElement(ByteView(UnsafeBufferPointer(start: nil, count: 0)))
  }

  /// Rows of `attributes.csv` whose element did not come before them are errors.
  private func rejectAttributeRows(before id: Int) throws {
    guard let extras = attributeRows, !extras.exhausted, extras.id < id else { return }
    throw extras.reader.error(column: 1, "element_id \(extras.id) names no element that precedes it")
  }

  /// Where the builder's complaint about the current row is: the first cell, in column order,
  /// that is a required attribute left empty or a date of another form (found on the error
  /// path only, from the catalog's columns).
  private func locate(_ error: ExportDataError, in cursor: TableCursor) -> HealthPortError {
    let row = cursor.reader
    for (cell, column) in cursor.checks {
      if row.isAbsent(cell) {
        if column.isRequired { return row.error(column: cell + 1, "\(column.name) is missing") }
      } else if column.type == .exportDate,
        row.withField(cell, { HealthDate(utf8: UnsafeRawBufferPointer($0)) }) == nil
      {
        return row.error(
          column: cell + 1,
          "\(column.name) \"\(row.string(cell))\" is not a date of the form YYYY-MM-DD HH:MM:SS ±HHMM")
      }
    }
    return row.error(column: 1, error.message)
  }

  // MARK: Heap of cursors by (id, rank)

  private func less(_ a: Int, _ b: Int) -> Bool {
    let x = cursors[a]
    let y = cursors[b]
    return x.id != y.id ? x.id < y.id : x.rank < y.rank
  }

  private func push(_ index: Int) {
    heap.append(index)
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard less(heap[child], heap[parent]) else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private func popHeap() {
    heap.swapAt(0, heap.count - 1)
    heap.removeLast()
    if !heap.isEmpty { siftDown(0) }
  }

  private func siftDown(_ start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      guard left < heap.count else { return }
      var smallest = left
      if left + 1 < heap.count, less(heap[left + 1], heap[left]) { smallest = left + 1 }
      guard less(heap[smallest], heap[parent]) else { return }
      heap.swapAt(smallest, parent)
      parent = smallest
    }
  }
}

/// One table being merged: its reader, the key of its current row, and where its cells go in
/// the element it starts.
final class TableCursor {
  enum Kind: Equatable {
    case fixed(CSVSplitSchema.Table)
    case records
  }

  let reader: CSVRowReader
  let kind: Kind
  let hasParent: Bool
  let columnCount: Int
  /// Element rows sort before the attribute rows of the same id.
  let rank: Int
  /// The name of the rows' element, when the table has one name (else ``nameCell`` has it).
  let elementName: [UInt8]
  /// The cell that names the element instead (`element`), and the one with its text.
  let nameCell: Int?
  let textCell: Int?
  /// The cells that hold attributes of the element, with the attribute's name.
  let cells: [(cell: Int, name: OwnedAttributes.Name)]
  /// The same cells with their columns, to locate an error.
  let checks: [(cell: Int, column: TableColumn)]
  private(set) var id = -1
  private(set) var exhausted = false

  /// `columns` are the header's (the derived ones, such as `startUTC`, ignored); `names`
  /// interns the attribute names (for as long as it lives).
  init(reader: CSVRowReader, kind: Kind, columns: [TableColumn], names: OwnedAttributes) {
    self.reader = reader
    self.kind = kind
    let definition: TableDefinition
    switch kind {
    case .fixed(let table):
      definition = table.definition
      hasParent = table.hasParentColumn
      rank = table == .attributes ? 1 : 0
    case .records:
      definition = ColumnCatalog.recordsOfType
      hasParent = false
      rank = 0
    }
    columnCount = columns.count
    elementName = Array((definition.elementName ?? "").utf8)
    nameCell = columns.firstIndex { $0.role == .structure && $0.name == ColumnCatalog.element.name }
    textCell = kind == .fixed(.elements) ? columns.firstIndex { $0.name == "text" } : nil
    checks = columns.enumerated().filter { $0.element.role == .attribute }.map { ($0.offset, $0.element) }
    cells = checks.map { ($0.cell, names.name($0.column.name)) }
  }

  /// Reads the next row and its id; checks the row's width and the id order.
  func advance() throws {
    guard try reader.next() else {
      exhausted = true
      return
    }
    guard reader.fieldCount == columnCount else {
      throw reader.error(
        column: min(reader.fieldCount, columnCount) + 1,
        "the row has \(reader.fieldCount) fields, the header has \(columnCount)")
    }
    guard let value = reader.integer(0) else { throw reader.error(column: 1, "the id is not a number") }
    guard rank == 1 ? value >= id : value > id else {
      throw reader.error(column: 1, "ids must increase from row to row (\(value) follows \(id))")
    }
    id = value
  }
}
