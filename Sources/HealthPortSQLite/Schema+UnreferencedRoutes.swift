import HealthPort
import SQLiteStore

/// The key of a GPX file that no workout references (issue 30): (person, its path in the bundle,
/// a digest of its points), in `unreferenced_routes`; its points in `route_points` carry
/// `unreferenced_route_id`. Two files that share their first point are two routes, and a file
/// loaded again is found through the key's index, so a load stays linear in their number.
extension SQLiteSchema {
  /// The table, its key and the index that finds a route's points.
  static let unreferencedRouteTables = """
    CREATE TABLE unreferenced_routes (
      id INTEGER PRIMARY KEY,
      person TEXT NOT NULL,
      file TEXT NOT NULL,
      digest TEXT,
      points INTEGER NOT NULL DEFAULT 0,
      export_id INTEGER
    );
    CREATE UNIQUE INDEX unreferenced_routes_key ON unreferenced_routes (person, file, digest);
    CREATE INDEX route_points_unreferenced ON route_points (unreferenced_route_id, position);
    """

  /// The migration step, for a database whose `route_points` has no `unreferenced_route_id` yet
  /// (schema 4 as it was): adds the column, the table and the indexes, and makes a route of each
  /// run of unreferenced GPX points already loaded (a run starts at position 0), with its digest
  /// and the file `''` (not recorded before): the next load of that file finds it by its digest
  /// and names its file. Does nothing on a database that has the table. Runs inside the
  /// migration's transaction.
  static func addUnreferencedRouteKeys(_ db: SQLiteConnection) throws {
    guard try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'unreferenced_routes'") == 0 else {
      return
    }
    // A database migrated from before version 4 got the column with `route_points` itself.
    let hasColumn =
      try db.scalarInt(
        "SELECT count(*) FROM pragma_table_info('route_points') WHERE name = 'unreferenced_route_id'") == 1
    try db.execute(
      (hasColumn ? "" : "ALTER TABLE route_points ADD COLUMN unreferenced_route_id INTEGER;\n")
        + unreferencedRouteTables)
    let points = try db.prepare(
      "SELECT id, person, position FROM route_points WHERE route_id IS NULL AND workout_id IS NULL "
        + "AND origin = 'gpx' ORDER BY id")
    let insert = try db.prepare("INSERT INTO unreferenced_routes (person, file) VALUES (?, '')")
    let link = try db.prepare("UPDATE route_points SET unreferenced_route_id = ? WHERE id = ?")
    var routes: [Int64] = []
    while try points.step() {
      if routes.isEmpty || points.int64(2) == 0 {
        try insert.bind(1, points.text(1) ?? "")
        try insert.run()
        routes.append(db.lastInsertRowID)
      }
      try link.bind(1, routes[routes.count - 1])
      try link.bind(2, points.int64(0))
      try link.run()
    }
    let keys = try UnreferencedRouteKeys(db)
    for route in routes { _ = try keys.finish(route, person: nil, file: "") }
  }
}

/// Gives a loaded unreferenced route its digest, or finds it already in the database.
struct UnreferencedRouteKeys {
  let db: SQLiteConnection
  let readPoints, personOf, find, setKey, deletePoints, deleteRoute, rename, stale: SQLiteStatement

  init(_ db: SQLiteConnection) throws {
    self.db = db
    readPoints = try db.prepare(
      "SELECT time, latitude, longitude, elevation, speed, course, horizontal_accuracy, vertical_accuracy "
        + "FROM route_points WHERE unreferenced_route_id = ? ORDER BY position")
    personOf = try db.prepare("SELECT person FROM unreferenced_routes WHERE id = ?")
    find = try db.prepare(
      "SELECT id, file FROM unreferenced_routes WHERE person = ? AND file IN (?, '') AND digest = ? "
        + "ORDER BY file = '' LIMIT 1")
    setKey = try db.prepare("UPDATE unreferenced_routes SET digest = ?, points = ? WHERE id = ?")
    deletePoints = try db.prepare("DELETE FROM route_points WHERE unreferenced_route_id = ?")
    deleteRoute = try db.prepare("DELETE FROM unreferenced_routes WHERE id = ?")
    rename = try db.prepare("UPDATE unreferenced_routes SET file = ? WHERE id = ?")
    stale = try db.prepare(
      "SELECT id FROM unreferenced_routes WHERE person = ? AND file = ? AND digest IS NULL")
  }

  /// The digest of a route's points as stored: FNV-1a over each point's columns as SQLite's
  /// text of them (NULL apart), and the number of points.
  func digest(_ route: Int64) throws -> (digest: String, points: Int) {
    var hash = ContentHash()
    var count = 0
    try readPoints.bind(1, route)
    while try readPoints.step() {
      for column in Int32(0)..<8 {
        hash.add(tag: UInt8(column + 1), readPoints.isNull(column) ? nil : readPoints.text(column))
      }
      count += 1
    }
    readPoints.reset()
    hash.add("\(count)")
    let hex = String(hash.value, radix: 16)
    return (String(repeating: "0", count: 16 - hex.count) + hex + "-\(count)", count)
  }

  /// Keys the route just loaded: when the same file (or a route migrated without its file) with
  /// the same points is already there, this load's copy is removed (and the migrated route takes
  /// the file's name). Returns the points removed.
  func finish(_ route: Int64, person: String?, file: String) throws -> Int {
    let (digest, points) = try digest(route)
    var owner = person
    if owner == nil {
      try personOf.bind(1, route)
      owner = try personOf.step() ? personOf.text(0) : nil
      personOf.reset()
    }
    try find.bind(1, owner ?? "")
    try find.bind(2, file)
    try find.bind(3, digest)
    let existing: (Int64, String?)? = try find.step() ? (find.int64(0), find.text(1)) : nil
    find.reset()
    if let (id, storedFile) = existing, id != route {
      try remove(route)
      if storedFile == "", !file.isEmpty {
        try rename.bind(1, file)
        try rename.bind(2, id)
        try rename.run()
      }
      return points
    }
    try setKey.bind(1, digest)
    try setKey.bind(2, Int64(points))
    try setKey.bind(3, route)
    try setKey.run()
    return 0
  }

  /// Removes the routes of `file` that a load began and did not finish (it was interrupted).
  func removeUnfinished(person: String, file: String) throws {
    try stale.bind(1, person)
    try stale.bind(2, file)
    var ids: [Int64] = []
    while try stale.step() { ids.append(stale.int64(0)) }
    stale.reset()
    for id in ids { try remove(id) }
  }

  private func remove(_ route: Int64) throws {
    try deletePoints.bind(1, route)
    try deletePoints.run()
    try deleteRoute.bind(1, route)
    try deleteRoute.run()
  }
}
