import HealthPort
import SQLiteStore

/// Activity summaries, `Me`, other elements, and the rows any element may have: metadata and extras.
extension SQLiteLoader {
  static let summaryColumns = [
    "dateComponents", "activeEnergyBurned", "activeEnergyBurnedGoal", "activeEnergyBurnedUnit", "appleMoveTime",
    "appleMoveTimeGoal", "appleExerciseTime", "appleExerciseTimeGoal", "appleStandHours", "appleStandHoursGoal",
    "appleMoveMinutes", "appleMoveMinutesGoal",
  ]
  static let summaryColumnSet = Set(summaryColumns)

  func insert(_ summary: ActivitySummary) throws {
    let hash = ContentHash.of(summary.node)
    var b = Binder(s.insertSummary, text)
    try b.add(person)
    for name in Self.summaryColumns { try b.add(summary[attribute: name]) }
    try b.add(hash)
    try b.add(result.exportID)
    guard try b.run() == 1 else { return try countSeen(s.seenSummary, key: summary.dateComponents, hash: hash) }
    try insertUnknown(
      of: summary.node, besides: Self.summaryColumnSet, owner: "activity_summary", rowAdded(to: .activitySummaries))
  }

  static let meColumns = [
    "HKCharacteristicTypeIdentifierDateOfBirth", "HKCharacteristicTypeIdentifierBiologicalSex",
    "HKCharacteristicTypeIdentifierBloodType", "HKCharacteristicTypeIdentifierFitzpatrickSkinType",
    "HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse",
  ]

  func insert(_ me: Me) throws {
    try checkPerson(me)
    var b = Binder(s.insertMe, text)
    try b.add(person)
    for name in Self.meColumns { try b.add(me[attribute: name]) }
    try b.add(ContentHash.of(me.node))
    try b.add(result.exportID)
    guard try b.run() == 1 else { return }
    try insertUnknown(of: me.node, besides: Set(Self.meColumns), owner: "me", rowAdded(to: .me))
  }

  /// Warns when the database holds this person's characteristics with another date of birth or
  /// sex than this export's: most likely someone else's export loaded without `--person`.
  func checkPerson(_ me: Me) throws {
    let birth = me[attribute: Self.meColumns[0]].flatMap { $0.isEmpty ? nil : $0 }
    let sex = me[attribute: Self.meColumns[1]].flatMap {
      $0.isEmpty || $0 == "HKBiologicalSexNotSet" ? nil : $0
    }
    guard birth != nil || sex != nil else { return }
    let query = try db.prepare("SELECT date_of_birth, biological_sex FROM me WHERE person = ?")
    try query.bind(1, person)
    var differs = false
    while try query.step() {
      let oldBirth = query.text(0) ?? ""
      let oldSex = query.text(1) ?? ""
      if let birth, !oldBirth.isEmpty, oldBirth != birth { differs = true }
      if let sex, !oldSex.isEmpty, oldSex != "HKBiologicalSexNotSet", oldSex != sex { differs = true }
    }
    guard differs else { return }
    warnedAboutPerson = true
    result.warnings.append(.anotherPersonsMe(path: result.path, person: person))
  }

  func insertOther(_ node: ElementNode) throws {
    result.otherElementsRead += 1
    let hash = ContentHash.of(node)
    var b = Binder(s.insertOther, text)
    try b.add(person)
    try b.add(node.name)
    let xml = XMLFragment.string(node)
    try b.add(xml)
    try b.add(hash)
    try b.add(result.exportID)
    guard try b.run() == 1 else { return try countSeen(s.seenOther, key: node.name, hash: hash, set: xml) }
    count(.otherElements)
  }

  // MARK: Children

  func insertMetadata(_ entry: MetadataEntry, owner: String, _ ownerID: Int64, _ position: Int) throws {
    var b = Binder(s.insertMetadata, text)
    try b.add(person)
    try b.add(owner)
    try b.add(ownerID)
    try b.add(position)
    try b.add(entry.key)
    try b.add(entry.value)
    try b.run()
    count(.metadata)
    if !entry.extraAttributes.isEmpty || !entry.extraChildren.isEmpty || entry.text != nil {
      try insertExtras(
        entry.extraAttributes, text: entry.text, children: entry.extraChildren, owner: "metadata", db.lastInsertRowID)
    }
  }

  /// Counts the row an insert just added to `table` and returns its id.
  func rowAdded(to table: Table) -> Int64 {
    count(table)
    return db.lastInsertRowID
  }

  /// Runs an insert that always adds one row to `table`; returns the row's id.
  func insertRow(_ binder: inout Binder, into table: Table) throws -> Int64 {
    try binder.run()
    return rowAdded(to: table)
  }

  /// What an element holds beyond its table's columns, in this order: unknown attributes, its
  /// text, unknown child elements.
  func insertExtras(
    _ attributes: [Attribute], text: String? = nil, children: [ElementNode] = [], owner: String, _ ownerID: Int64
  ) throws {
    for (position, attribute) in attributes.enumerated() {
      try insertExtraRow(owner: owner, ownerID, position, kind: "attribute", attribute.name, attribute.value)
    }
    try insertText(text, owner: owner, ownerID)
    for (n, node) in children.enumerated() { try insertExtra(node, owner: owner, ownerID, n) }
  }

  /// A generic element's attributes other than `known` (its table's columns), and its children.
  func insertUnknown(of node: ElementNode, besides known: Set<String>, owner: String, _ ownerID: Int64) throws {
    try insertExtras(
      node.attributes.filter { !known.contains($0.name) }, children: node.children, owner: owner, ownerID)
  }

  /// The character data of an element that has some (never in Apple exports): a row of kind
  /// `text`, named `#text`.
  func insertText(_ text: String?, owner: String, _ ownerID: Int64) throws {
    guard let text else { return }
    try insertExtraRow(owner: owner, ownerID, 0, kind: "text", "#text", text)
  }

  /// An unknown child element, kept as XML.
  func insertExtra(_ node: ElementNode, owner: String, _ ownerID: Int64, _ position: Int) throws {
    try insertExtraRow(owner: owner, ownerID, position, kind: "element", node.name, XMLFragment.string(node))
  }

  func insertExtraRow(
    owner: String, _ ownerID: Int64, _ position: Int, kind: String, _ name: String, _ value: String
  ) throws {
    var b = Binder(s.insertExtra, text)
    try b.add(person)
    try b.add(owner)
    try b.add(ownerID)
    try b.add(position)
    try b.add(kind)
    try b.add(name)
    try b.add(value)
    try b.run()
    count(.extras)
  }

  /// Counts one more copy of an element that is already in the database (see the type's notes):
  /// the binder of its `seen` statement with the natural key (and `hash`) and this load's three
  /// dates bound (the start's local day too with `localDay`), for the caller to run.
  func seen(
    _ statement: SQLiteStatement, _ sample: some SourcedSample, type: String, sourceID: Int64, hash: Int64?,
    localDay: Bool = false
  ) throws -> Binder {
    var b = Binder(statement, text)
    try b.add(result.exportID)
    try addKey(to: &b, sample, type: type, sourceID: sourceID)
    if let hash { try b.add(hash) }
    try b.add(date: sample.creationDate)
    try b.add(date: sample.startDate, localDay: localDay)
    try b.add(date: sample.endDate)
    pending += 1
    return b
  }

  /// Counts one more copy of a generic element that is already in the database (an activity
  /// summary, another element): runs its `seen` statement with the natural key (person, `key`,
  /// `hash`) and the value it sets (`set`, the latest export's).
  func countSeen(_ statement: SQLiteStatement, key: String?, hash: Int64, set: String? = nil) throws {
    var b = Binder(statement, text)
    try b.add(result.exportID)
    try b.add(person)
    try b.add(key)
    try b.add(hash)
    if let set { try b.add(set) }
    try b.run()
    pending += 1
  }

  /// Binds a correlation's or workout's source and dates, as their tables order them: source id,
  /// creation date, creation key, start and end.
  func addSourceAndDates(to b: inout Binder, _ sample: some SourcedSample, sourceID: Int64) throws {
    try b.add(sourceID)
    try b.add(date: sample.creationDate)
    try b.add(Self.creationKey(sample.creationDate))
    try b.add(date: sample.startDate)
    try b.add(date: sample.endDate)
  }

  /// Binds a sourced element's natural key, as its unique index orders it: person, type, start
  /// and end (Unix seconds), source id, creation key.
  func addKey(to b: inout Binder, _ sample: some SourcedSample, type: String, sourceID: Int64) throws {
    try b.add(person)
    try b.add(type)
    try b.add(sample.startDate.secondsSince1970)
    try b.add(sample.endDate.secondsSince1970)
    try b.add(sourceID)
    try b.add(Self.creationKey(sample.creationDate))
  }
}
