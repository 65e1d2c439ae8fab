#if canImport(Glibc)
  import Glibc
#endif

/// Reads a `convert --split` folder back into the exact model: a streaming k-way merge by `id`
/// over every table (each table is in id order), rebuilding each top-level element from its
/// rows and handing it on as soon as the next top-level row appears. Memory holds one row per
/// table and the element being rebuilt.
final class CSVSplitReader {
  let directory: String
  let options: ReadOptions

  init(directory: String, options: ReadOptions) {
    self.directory = directory
    self.options = options
  }

  private struct Open {
    var id: Int
    var frame: Frame
  }

  private var cursors: [TableCursor] = []
  private var heap: [Int] = []
  private var stack: [Open] = []
  private var report = ReadReport(documentName: "", format: .csvSplit)

  func read(into sink: ExportSink) throws -> ReadReport {
    report = ReadReport(documentName: directory, format: .csvSplit)
    var names = try CSVSplitFolder.tableFileNames(directory)
    names.sort()
    guard names.contains("export.csv") else {
      throw HealthPortError(.malformed, "\(directory): error: not a split CSV folder (no export.csv)")
    }
    let fixed = Dictionary(uniqueKeysWithValues: CSVSplitSchema.Table.allCases.map { ($0.fileName, $0) })
    var exportCursor: TableCursor?
    for name in names {
      let path = directory + "/" + name
      let reader = try CSVRowReader(path: path, bufferSize: 32 << 10)
      guard try reader.next() else {
        throw HealthPortError(.malformed, "\(path): error: the table is empty (not even a header row)")
      }
      let header = (0..<reader.fieldCount).map { reader.string($0) }
      let kind: TableCursor.Kind
      var hasWorkoutColumn = false
      if let table = fixed[name] {
        // Folders written before `workout_id` have the same tables without it.
        hasWorkoutColumn = table.hasWorkoutColumn && header == table.columns
        guard hasWorkoutColumn || header == table.legacyColumns else {
          throw reader.error(
            column: 1, "unexpected header; \(name) has the columns \(table.columns.joined(separator: ","))")
        }
        kind = .fixed(table)
      } else if header == CSVSplitSchema.recordTableColumns {
        kind = .records
      } else {
        report.notes.append("\(path): not a table of a split folder; ignored")
        continue
      }
      let cursor = TableCursor(reader: reader, kind: kind, hasWorkoutColumn: hasWorkoutColumn)
      if kind == .fixed(.export) { exportCursor = cursor } else { cursors.append(cursor) }
    }
    guard let exportCursor else { throw HealthPortError(.malformed, "\(directory): error: export.csv is missing") }

    // The header row: id 0.
    try exportCursor.advance()
    guard !exportCursor.exhausted, exportCursor.id == 0, exportCursor.reader.fieldCount == 7 else {
      throw exportCursor.reader.error(column: 1, "the first row of export.csv must be the root element (id 0)")
    }
    let row = exportCursor.reader
    let rootAttributes: [Attribute]
    do {
      rootAttributes = try row.withField(5) { try CSVMetadataJSON.parsePairs($0) }.map { Attribute($0.0, $0.1) }
    } catch let error as CSVMetadataJSON.ParseError {
      throw row.error(column: 6, "attributes: \(error.message)")
    }
    try sink.begin(ExportHeader(prolog: row.fieldBytes(6), rootAttributes: rootAttributes, rootName: row.string(1)))
    try exportCursor.advance()
    cursors.append(exportCursor)

    for index in cursors.indices {
      if cursors[index] !== exportCursor { try cursors[index].advance() }
      if !cursors[index].exhausted { push(index) }
    }
    var rows = 0
    while let top = heap.first {
      let cursor = cursors[top]
      try process(cursor, sink: sink)
      try cursor.advance()
      if cursor.exhausted { popHeap() } else { siftDown(0) }
      rows += 1
      if rows & 0xFFF == 0, let progress = options.progress { progress(bytesRead, nil) }
    }
    while !stack.isEmpty { try close(sink: sink) }
    report.documentBytes = bytesRead
    try sink.end(report)
    return report
  }

  private var bytesRead: Int64 { cursors.reduce(0) { $0 + $1.reader.bytesRead } }

  // MARK: Rows

  private func process(_ cursor: TableCursor, sink: ExportSink) throws {
    let row = cursor.reader
    let id = cursor.id
    if case .fixed(.attributes) = cursor.kind {
      guard let last = stack.last, last.id == id else {
        throw row.error(column: 1, "element_id \(id) names no element that precedes it")
      }
      stack[stack.count - 1].frame.appendAttribute(Attribute(row.string(1), row.string(2)))
      return
    }
    var parent: Int?
    if cursor.hasParent, !row.isEmpty(1) {
      guard let value = row.integer(1) else { throw row.error(column: 2, "parent_id is not a number") }
      parent = value
    }
    if let parent {
      while let last = stack.last, last.id != parent { try close(sink: sink) }
      guard !stack.isEmpty else {
        throw row.error(column: 2, "parent_id \(parent) names no element that encloses this row")
      }
    } else {
      while !stack.isEmpty { try close(sink: sink) }
    }
    let context = stack.last?.frame.context ?? .root
    stack.append(Open(id: id, frame: try decode(cursor, context: context)))
  }

  private func close(sink: ExportSink) throws {
    let open = stack.removeLast()
    if stack.isEmpty {
      try sink.consume(open.frame.topLevelElement())
    } else {
      stack[stack.count - 1].frame.attach(open.frame)
    }
  }

  private func decode(_ cursor: TableCursor, context: Context) throws -> Frame {
    let row = cursor.reader
    let o = cursor.firstAttribute
    func required(_ index: Int, _ name: String) throws -> String {
      guard let value = row.optional(index) else { throw row.error(column: index + 1, "\(name) is missing") }
      return value
    }
    func date(_ index: Int, _ name: String) throws -> HealthDate? {
      if row.isAbsent(index) { return nil }
      guard let date = row.withField(index, { HealthDate(utf8: UnsafeRawBufferPointer($0)) }) else {
        throw row.error(
          column: index + 1, "\(name) \"\(row.string(index))\" is not a date of the form YYYY-MM-DD HH:MM:SS ±HHMM")
      }
      return date
    }
    func requiredDate(_ index: Int, _ name: String) throws -> HealthDate {
      guard let value = try date(index, name) else { throw row.error(column: index + 1, "\(name) is missing") }
      return value
    }
    switch cursor.kind {
    case .records where context == .root, .fixed(.correlationRecords) where context == .correlation:
      var record = Record(
        type: try required(o, "type"), sourceName: try required(o + 1, "sourceName"),
        sourceVersion: row.optional(o + 2), device: row.optional(o + 4), unit: row.optional(o + 5),
        creationDate: try date(o + 7, "creationDate"), startDate: try requiredDate(o + 8, "startDate"),
        endDate: try requiredDate(o + 9, "endDate"), value: row.optional(o + 6))
      record.sourceProduct = row.optional(o + 3)
      return .record(record)
    case .fixed(.correlations) where context == .root:
      var correlation = Correlation(
        type: try required(o, "type"), sourceName: try required(o + 1, "sourceName"),
        sourceVersion: row.optional(o + 2), device: row.optional(o + 4), creationDate: try date(o + 5, "creationDate"),
        startDate: try requiredDate(o + 6, "startDate"), endDate: try requiredDate(o + 7, "endDate"))
      correlation.sourceProduct = row.optional(o + 3)
      return .correlation(correlation)
    case .fixed(.workouts) where context == .root:
      var workout = Workout(
        workoutActivityType: try required(o, "workoutActivityType"), duration: row.optional(o + 1),
        durationUnit: row.optional(o + 2), totalDistance: row.optional(o + 3), totalDistanceUnit: row.optional(o + 4),
        totalEnergyBurned: row.optional(o + 5), totalEnergyBurnedUnit: row.optional(o + 6),
        sourceName: try required(o + 7, "sourceName"), sourceVersion: row.optional(o + 8), device: row.optional(o + 10),
        creationDate: try date(o + 11, "creationDate"), startDate: try requiredDate(o + 12, "startDate"),
        endDate: try requiredDate(o + 13, "endDate"))
      workout.sourceProduct = row.optional(o + 9)
      return .workout(workout)
    case .fixed(.workoutEvents) where context == .workout || context == .workoutActivity:
      return .event(
        WorkoutEvent(
          type: try required(o, "type"), date: try requiredDate(o + 1, "date"), duration: row.optional(o + 2),
          durationUnit: row.optional(o + 3)))
    case .fixed(.workoutActivities) where context == .workout:
      return .activity(
        WorkoutActivity(
          uuid: try required(o, "uuid"), startDate: try requiredDate(o + 1, "startDate"),
          endDate: try date(o + 2, "endDate"), duration: row.optional(o + 3), durationUnit: row.optional(o + 4)))
    case .fixed(.workoutStatistics) where context == .workout || context == .workoutActivity:
      return .statistics(
        WorkoutStatistics(
          type: try required(o, "type"), startDate: try requiredDate(o + 1, "startDate"),
          endDate: try requiredDate(o + 2, "endDate"), average: row.optional(o + 3), minimum: row.optional(o + 4),
          maximum: row.optional(o + 5), sum: row.optional(o + 6), unit: row.optional(o + 7)))
    case .fixed(.workoutRoutes) where context == .workout:
      var route = WorkoutRoute(
        sourceName: try required(o, "sourceName"), sourceVersion: row.optional(o + 1), device: row.optional(o + 3),
        creationDate: try date(o + 4, "creationDate"), startDate: try requiredDate(o + 5, "startDate"),
        endDate: try requiredDate(o + 6, "endDate"))
      route.sourceProduct = row.optional(o + 2)
      return .route(route)
    case .fixed(.fileReferences) where context == .workoutRoute:
      return .fileReference(FileReference(path: try required(o, "path")))
    case .fixed(.metadata)
    where [.record, .correlation, .workout, .workoutActivity, .workoutEvent, .workoutRoute].contains(context):
      return .metadata(MetadataEntry(key: try required(o, "key"), value: try required(o + 1, "value")))
    case .fixed(.hrvLists) where context == .record:
      return .hrvList(HeartRateVariabilityList())
    case .fixed(.hrvBeats) where context == .hrvList:
      return .beat(InstantaneousBeatsPerMinute(bpm: try required(o, "bpm"), time: try required(o + 1, "time")))
    case .fixed(.elements):
      return node(ElementNode(name: try required(o, "element"), text: row.optional(o + 1)), context: context)
    case .fixed(.export):
      guard row.string(1) == "ExportDate" else {
        throw row.error(column: 2, "only the first row of export.csv is the root; later rows are ExportDate")
      }
      return node(
        ElementNode(name: "ExportDate", attributes: [Attribute("value", try required(2, "value"))]), context: context)
    case .fixed(let table):
      // A generic element (or a typed table's row in a place where the reader keeps elements
      // generically): its attributes are the present columns, in order.
      var name = table.elementName ?? ""
      var first = o
      if table == .visionEyes {
        name = try required(o, "element")
        first += 1
      }
      var attributes: [Attribute] = []
      for (index, column) in table.elementAttributes where !row.isAbsent(first + index) {
        attributes.append(Attribute(column, row.string(first + index)))
      }
      return node(ElementNode(name: name, attributes: attributes), context: context)
    case .records:
      var attributes: [Attribute] = []
      for (index, column) in CSVSplitSchema.recordElementAttributes where !row.isAbsent(o + index) {
        attributes.append(Attribute(column, row.string(o + index)))
      }
      return node(ElementNode(name: "Record", attributes: attributes), context: context)
    }
  }

  /// A generic element, with the role the XML reader would give it in this place.
  private func node(_ node: ElementNode, context: Context) -> Frame {
    let role: NodeRole
    switch (context, node.name) {
    case (.root, "ExportDate"): role = .exportDate
    case (.root, "Me"): role = .me
    case (.root, "ActivitySummary"): role = .activitySummary
    case (.root, "ClinicalRecord"): role = .clinicalRecord
    case (.root, "Audiogram"): role = .audiogram
    case (.root, "VisionPrescription"): role = .visionPrescription
    case (.workoutRoute, "Location"): role = .location
    case (.node, _): role = .child
    default:
      role = .unknown
      report.unknownElements += 1
    }
    if node.text != nil { report.textNodes += 1 }
    return .node(node, role)
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

/// One table being merged: its reader and the key of its current row.
final class TableCursor {
  enum Kind: Equatable {
    case fixed(CSVSplitSchema.Table)
    case records
  }

  let reader: CSVRowReader
  let kind: Kind
  let hasParent: Bool
  /// The index of the first attribute column: after `id`, `parent_id` and `workout_id` when
  /// the table has them.
  let firstAttribute: Int
  let columnCount: Int
  /// Element rows sort before the attribute rows of the same id.
  let rank: Int
  private(set) var id = -1
  private(set) var exhausted = false

  init(reader: CSVRowReader, kind: Kind, hasWorkoutColumn: Bool = false) {
    self.reader = reader
    self.kind = kind
    switch kind {
    case .fixed(let table):
      hasParent = table.hasParentColumn
      columnCount = hasWorkoutColumn ? table.columns.count : table.legacyColumns.count
      rank = table == .attributes ? 1 : 0
    case .records:
      hasParent = false
      columnCount = CSVSplitSchema.recordTableColumns.count
      rank = 0
    }
    firstAttribute = 1 + (hasParent ? 1 : 0) + (hasWorkoutColumn ? 1 : 0)
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

extension Frame {
  /// Adds an attribute read from `attributes.csv`: an unknown attribute of a typed element, or
  /// the next attribute of a generic one.
  mutating func appendAttribute(_ attribute: Attribute) {
    switch self {
    case .record(var r):
      self = .placeholder
      r.extraAttributes.append(attribute)
      self = .record(r)
    case .correlation(var c):
      self = .placeholder
      c.extraAttributes.append(attribute)
      self = .correlation(c)
    case .workout(var w):
      self = .placeholder
      w.extraAttributes.append(attribute)
      self = .workout(w)
    case .event(var e):
      e.extraAttributes.append(attribute)
      self = .event(e)
    case .activity(var a):
      a.extraAttributes.append(attribute)
      self = .activity(a)
    case .statistics(var s):
      s.extraAttributes.append(attribute)
      self = .statistics(s)
    case .route(var r):
      r.extraAttributes.append(attribute)
      self = .route(r)
    case .fileReference(var f):
      f.extraAttributes.append(attribute)
      self = .fileReference(f)
    case .metadata(var m):
      m.extraAttributes.append(attribute)
      self = .metadata(m)
    case .hrvList(var l):
      l.extraAttributes.append(attribute)
      self = .hrvList(l)
    case .beat(var b):
      b.extraAttributes.append(attribute)
      self = .beat(b)
    case .node(var n, let role):
      self = .placeholder
      n.attributes.append(attribute)
      self = .node(n, role)
    case .placeholder, .pendingRecord: break
    }
  }
}
