import Foundation
import TestSupport
import Testing

/// The CSV outputs as the tools people load them into see them (pandas and DuckDB from the
/// pinned `.venv-clients/`), checked against counts and sums that Python's expat computes from the
/// export itself; and the CSV-related input rules (stdin, old layouts, folders).
@Suite("CSV outputs and inputs")
struct CSVOutputTests {
  static let sampleXML = Harness.samples.appendingPathComponent("export.xml")
  static let hasSamples = FileManager.default.fileExists(atPath: sampleXML.path)
  static let fixtures = Harness.repoRoot.appendingPathComponent("Tests/Fixtures")

  /// The Reyrolle workout fragments (workouts with `WorkoutActivity`) wrapped in a root.
  static func reyrolle(in directory: URL) throws -> URL {
    let fragments = Harness.realFixtures.appendingPathComponent("NicolasReyrolle-apple-health-analyzer")
    let names = try FileManager.default.contentsOfDirectory(atPath: fragments.path).filter { $0.hasSuffix(".xml") }
    let body = try names.sorted().map { try String(contentsOf: fragments.appendingPathComponent($0), encoding: .utf8) }
    let url = directory.appendingPathComponent("reyrolle.xml")
    let text =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
      + body.joined(separator: "\n") + "\n</HealthData>\n"
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  /// The export XML of `input` (a zip's member extracted) as a file in `directory`.
  static func exportXML(_ input: URL, in directory: URL) throws -> URL {
    guard input.pathExtension == "zip" else { return input }
    let url = directory.appendingPathComponent("extracted-\(input.deletingLastPathComponent().lastPathComponent).xml")
    try PythonXML.exportBytes(input).write(to: url)
    return url
  }

  // MARK: The single table in pandas and DuckDB

  /// Loads the single table (argv[1]) with DuckDB's `read_csv_auto` and pandas' `read_csv`, as
  /// they are, and checks types, counts and sums against expat's reading of the export (argv[2]).
  static let singleTableScript = """
    import sys, re, warnings, collections, xml.parsers.expat
    import duckdb, pandas as pd
    csv, source = sys.argv[1], sys.argv[2]
    data = open(source, 'rb').read()
    data = data[data.index(b'<HealthData'):].replace(b'\\x0b', b'')
    number = re.compile(r'-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?')
    depth = 0
    rows = numbers = names = 0
    sums = collections.defaultdict(float)
    creation = 0
    def start(name, attrs):
        global depth, rows, numbers, names, creation
        depth += 1
        if depth == 2 and name == 'Record':
            rows += 1
            if 'creationDate' in attrs: creation += 1
            v = attrs.get('value')
            if v is None: return
            if number.fullmatch(v):
                numbers += 1
                sums[attrs['type']] += float(v)
            elif v != '':
                names += 1
    def end(name):
        global depth
        depth -= 1
    p = xml.parsers.expat.ParserCreate()
    p.StartElementHandler = start
    p.EndElementHandler = end
    p.Parse(data, True)

    def check(ok, what):
        if not ok:
            print('FAIL', what); sys.exit(1)

    con = duckdb.connect()
    con.sql(f"create table t as select * from read_csv_auto('{csv}')")
    types = dict(con.sql("select column_name, data_type from information_schema.columns where table_name = 't'").fetchall())
    count = con.sql('select count(*), count(value), count(nullif(valueText, \\'\\')) from t').fetchone()
    check(count == (rows, numbers, names), f'duckdb counts {count} vs expat {(rows, numbers, names)}')
    if rows:
        check(types['value'] == 'DOUBLE', f"value is {types['value']}")
        for column in ['startDate', 'endDate', 'startUTC', 'endUTC'] + (['creationDate', 'creationUTC'] if creation else []):
            check(types[column] == 'TIMESTAMP WITH TIME ZONE', f'{column} is {types[column]}')
        same = con.sql('select count(*) from t where startDate = startUTC and endDate = endUTC').fetchone()[0]
        check(same == rows, f'{same} of {rows} rows have the same instants in both forms')
        got = dict(con.sql('select type, sum(value) from t where value is not null group by type').fetchall())
        check(set(got) == set(sums), f'types with numbers: {sorted(got)} vs {sorted(sums)}')
        for key, want in sums.items():
            check(abs(got[key] - want) <= 1e-9 * max(1.0, abs(want)), f'sum of {key}: {got[key]} vs {want}')

    with warnings.catch_warnings():
        warnings.simplefilter('error')
        frame = pd.read_csv(csv)
    check(len(frame) == rows, f'pandas rows {len(frame)} vs {rows}')
    if rows:
        check(str(frame['value'].dtype) == 'float64', f"pandas value is {frame['value'].dtype}")
        check(int(frame['value'].notna().sum()) == numbers, 'pandas numbers')
        utc = pd.to_datetime(frame['startUTC'], utc=True, format='ISO8601')
        local = pd.to_datetime(frame['startDate'], utc=True, format='ISO8601')
        check(int(utc.notna().sum()) == rows and bool((utc == local).all()), 'pandas start dates')
        check(abs(frame['value'].sum() - sum(sums.values())) <= 1e-6 * max(1.0, abs(sum(sums.values()))), 'pandas sum')
    print('ok', rows, numbers, names)
    """

  static func checkSingleTable(_ input: URL) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let table = directory.appendingPathComponent("records.csv")
    let convert = try Harness.run(["convert", input.path, "--to", "csv", "-o", table.path, "--quiet"])
    try #require(convert.status == 0, "\(convert.stderr)")
    let xml = try exportXML(input, in: directory)
    let result = try TestEnvironment.runClientPython(singleTableScript, [table.path, xml.path])
    #expect(result.status == 0, "\(input.path): \(result.stdout) \(result.stderr)")
  }

  @Test(
    "the single table loads as it is in DuckDB and pandas: types, counts and sums (Samples)", .needsPythonClients,
    .enabled(if: hasSamples, "Samples/ is absent"))
  func singleTableInClientsSamples() throws {
    try Self.checkSingleTable(Self.sampleXML)
  }

  @Test(
    "the single table loads as it is in DuckDB and pandas (real exports)", .needsPythonClients, .needsRealFixtures)
  func singleTableInClientsReal() throws {
    let inputs = Harness.realExports()
    try #require(!inputs.isEmpty)
    for input in inputs { try Self.checkSingleTable(input) }
  }

  @Test("the single table's columns: numbers apart from names, ISO 8601 and UTC dates")
  func singleTableColumns() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("in.xml")
    try """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" creationDate="2016-08-05 10:00:00 +0100" startDate="2016-08-05 09:50:00 +0100" endDate="2016-08-05 10:00:00 +0100" value="812"/>
     <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="P" unit="kg" startDate="2016-01-01 00:30:00 +0530" endDate="2016-01-01 00:30:00 +0530" value="77.1003"/>
     <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="P" startDate="2016-08-05 23:00:00 -0700" endDate="2016-08-06 06:00:00 -0700" value="HKCategoryValueSleepAnalysisAsleep"/>
     <Record type="HKQuantityTypeIdentifierX" sourceName="P" startDate="1969-12-31 23:59:59 +0000" endDate="1969-12-31 23:59:59 +0000" value=""/>
     <Record type="HKQuantityTypeIdentifierX" sourceName="P" startDate="2016-08-05 10:00:00 +0000" endDate="2016-08-05 10:00:00 +0000" value="1,5"/>
     <Record type="HKQuantityTypeIdentifierX" sourceName="P" startDate="2016-08-05 10:00:00 +0000" endDate="2016-08-05 10:00:00 +0000" value="-1.5e-05"/>
     <Record type="HKCategoryTypeIdentifierX" sourceName="P" startDate="2016-08-05 10:00:00 +0000" endDate="2016-08-05 10:00:00 +0000"/>
    </HealthData>
    """.write(to: input, atomically: true, encoding: .utf8)
    let table = directory.appendingPathComponent("t.csv")
    let result = try Harness.run(["convert", input.path, "--to", "csv", "-o", table.path, "--quiet"])
    try #require(result.status == 0, "\(result.stderr)")
    let lines = try String(contentsOf: table, encoding: .utf8).split(separator: "\n").map(String.init)
    #expect(
      lines[0] + "\n"
        == Harness.csvHeader(
          "type,sourceName,sourceVersion,sourceProduct,device,unit,value,valueText,creationDate,startDate,endDate,"
            + "creationUTC,startUTC,endUTC,metadata"))
    // Hand-written: value/valueText, then local ISO dates, then UTC.
    #expect(
      lines[1]
        == "HKQuantityTypeIdentifierStepCount,P,,,,count,812.,,2016-08-05T10:00:00+01:00,2016-08-05T09:50:00+01:00,2016-08-05T10:00:00+01:00,2016-08-05T09:00:00Z,2016-08-05T08:50:00Z,2016-08-05T09:00:00Z,"
    )
    #expect(
      lines[2]
        == "HKQuantityTypeIdentifierBodyMass,P,,,,kg,77.1003,,,2016-01-01T00:30:00+05:30,2016-01-01T00:30:00+05:30,,2015-12-31T19:00:00Z,2015-12-31T19:00:00Z,"
    )
    #expect(
      lines[3]
        == "HKCategoryTypeIdentifierSleepAnalysis,P,,,,,,HKCategoryValueSleepAnalysisAsleep,,2016-08-05T23:00:00-07:00,2016-08-06T06:00:00-07:00,,2016-08-06T06:00:00Z,2016-08-06T13:00:00Z,"
    )
    #expect(lines[4].hasPrefix("HKQuantityTypeIdentifierX,P,,,,,,\"\",,1969-12-31T23:59:59+00:00,"))
    #expect(lines[5].contains(",,,\"1,5\",,"))
    #expect(lines[6].contains(",,-1.5e-05,,,"))
    #expect(lines[7].hasPrefix("HKCategoryTypeIdentifierX,P,,,,,,,,2016-08-05T10:00:00+00:00,"))
    // And back: the same Records as the XML gives (the CSV's header is empty, so compare the
    // Record lines of the JSON Lines).
    func recordLines(_ input: URL) throws -> [Substring] {
      let result = try Harness.run(["convert", input.path, "--to", "jsonl", "--quiet"])
      #expect(result.status == 0, "\(result.stderr)")
      return String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").filter { $0.contains("\"Record\"") }
    }
    let back = try recordLines(table)
    #expect(back.count == 7)
    #expect(back == (try recordLines(input)))
  }

  @Test(
    "a single table written by the previous layout still reads back exactly",
    .enabled(if: hasSamples, "Samples/ is absent"))
  func legacySingleTable() throws {
    // Written from Samples/export.xml by healthport before the value and date columns were split.
    let legacy = Self.fixtures.appendingPathComponent("legacy-single-table.csv")
    #expect(
      try String(contentsOf: legacy, encoding: .utf8).hasPrefix(
        "type,sourceName,sourceVersion,sourceProduct,device,unit,value,creationDate,startDate,endDate,metadata\n"))
    let fromLegacy = try Harness.run(["convert", legacy.path, "--to", "csv", "--quiet"])
    let fromXML = try Harness.run(["convert", Self.sampleXML.path, "--to", "csv", "--quiet"])
    #expect(fromLegacy.status == 0, "\(fromLegacy.stderr)")
    #expect(fromLegacy.stdout == fromXML.stdout)
    let xmlFromLegacy = try Harness.run(["convert", legacy.path, "--to", "jsonl", "--quiet"])
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let table = directory.appendingPathComponent("new.csv")
    try fromXML.stdout.write(to: table)
    let xmlFromNew = try Harness.run(["convert", table.path, "--to", "jsonl", "--quiet"])
    #expect(xmlFromLegacy.stdout == xmlFromNew.stdout)
  }

  // MARK: --split: workout_id

  /// Joins every workout child table (argv[1] is the folder) to `workouts` on `workout_id` with
  /// DuckDB, per workout in id order, and compares with expat's count of each kind inside each
  /// `Workout` of the export (argv[2]), nested in a `WorkoutActivity` or not.
  static let joinScript = """
    import sys, os, xml.parsers.expat
    import duckdb
    folder, source = sys.argv[1], sys.argv[2]
    data = open(source, 'rb').read()
    data = data[data.index(b'<HealthData'):].replace(b'\\x0b', b'')
    kinds = {'WorkoutStatistics': 'workout_statistics', 'WorkoutEvent': 'workout_events',
             'WorkoutActivity': 'workout_activities', 'WorkoutRoute': 'workout_routes', 'MetadataEntry': 'metadata'}
    expected = []
    depth = 0
    inside = False
    def start(name, attrs):
        global depth, inside
        depth += 1
        if depth == 2 and name == 'Workout':
            inside = True
            expected.append({k: 0 for k in kinds.values()})
        elif inside and name in kinds:
            expected[-1][kinds[name]] += 1
    def end(name):
        global depth, inside
        if depth == 2: inside = False
        depth -= 1
    p = xml.parsers.expat.ParserCreate()
    p.StartElementHandler = start
    p.EndElementHandler = end
    p.Parse(data, True)
    con = duckdb.connect()
    if not os.path.exists(f'{folder}/workouts.csv'):
        print('ok', 0, 0, 0) if not expected else print('FAIL no workouts.csv')
        sys.exit(0 if not expected else 1)
    workouts = con.sql(f"select id from read_csv_auto('{folder}/workouts.csv') order by id").fetchall()
    if len(workouts) != len(expected):
        print('FAIL workouts', len(workouts), len(expected)); sys.exit(1)
    total = 0
    for table in kinds.values():
        path = f'{folder}/{table}.csv'
        if not os.path.exists(path):
            got = [0] * len(workouts)
        else:
            rows = con.sql(f"select w.id, count(c.id) from read_csv_auto('{folder}/workouts.csv') w left join read_csv_auto('{path}', types={{'workout_id': 'BIGINT'}}) c on c.workout_id = w.id group by w.id order by w.id").fetchall()
            got = [n for _, n in rows]
        want = [e[table] for e in expected]
        if got != want:
            print('FAIL', table, got, want); sys.exit(1)
        total += sum(want)
    nested = con.sql(f"select count(*) from read_csv_auto('{folder}/workout_statistics.csv') s join read_csv_auto('{folder}/workout_activities.csv') a on s.parent_id = a.id").fetchone()[0] if os.path.exists(f'{folder}/workout_activities.csv') and os.path.exists(f'{folder}/workout_statistics.csv') else 0
    print('ok', len(workouts), total, nested)
    """

  static func checkJoin(_ input: URL) throws -> String {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let folder = directory.appendingPathComponent("split")
    let convert = try Harness.run(["convert", input.path, "--to", "csv", "--split", "-o", folder.path, "--quiet"])
    try #require(convert.status == 0, "\(convert.stderr)")
    let result = try TestEnvironment.runClientPython(
      joinScript, [folder.path, try exportXML(input, in: directory).path])
    #expect(result.status == 0, "\(input.path): \(result.stdout) \(result.stderr)")
    return result.stdout
  }

  @Test(
    "--split: one join on workout_id finds every statistic, event, activity, route and metadata entry of a workout",
    .needsPythonClients, .needsRealFixtures)
  func workoutJoin() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = try Self.checkJoin(try Self.reyrolle(in: directory))
    // The fragments nest statistics in WorkoutActivity elements: the join must reach those too.
    let fields = output.split(separator: " ")
    #expect(fields.count == 4 && (Int(fields[3].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0, "\(output)")
    for input in Harness.realExports() { _ = try Self.checkJoin(input) }
    if Self.hasSamples { _ = try Self.checkJoin(Self.sampleXML) }
  }

  @Test(
    "a --split folder written before workout_id still reads back exactly",
    .enabled(if: hasSamples, "Samples/ is absent"))
  func legacySplitFolder() throws {
    // Written from Samples/export.xml by healthport before workout_id was added.
    let legacy = Self.fixtures.appendingPathComponent("legacy-split")
    let header = try String(contentsOf: legacy.appendingPathComponent("workout_statistics.csv"), encoding: .utf8)
    #expect(header.hasPrefix("id,parent_id,type,"))
    let fromLegacy = try Harness.run(["convert", legacy.path, "--to", "xml", "--quiet"])
    let fromXML = try Harness.run(["convert", Self.sampleXML.path, "--to", "xml", "--quiet"])
    #expect(fromLegacy.status == 0, "\(fromLegacy.stderr)")
    #expect(fromLegacy.stdout == fromXML.stdout)
    // A new folder has the column and reads back the same.
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let folder = directory.appendingPathComponent("split")
    _ = try Harness.run(["convert", Self.sampleXML.path, "--to", "csv", "--split", "-o", folder.path, "--quiet"])
    let newHeader = try String(contentsOf: folder.appendingPathComponent("metadata.csv"), encoding: .utf8)
    #expect(newHeader.hasPrefix(Harness.csvHeader("id,parent_id,workout_id,key,value")))
    let fromNew = try Harness.run(["convert", folder.path, "--to", "xml", "--quiet"])
    #expect(fromNew.stdout == fromXML.stdout)
  }

  // MARK: Inputs

  @Test(
    "stdin: CSV, JSON Lines, JSON, XML and zip are recognised as by path",
    .enabled(if: hasSamples, "Samples/ is absent"))
  func stdinKinds() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var inputs = [Self.sampleXML, Harness.samples.appendingPathComponent("export.zip")]
    for format in ["csv", "jsonl", "json"] {
      let file = directory.appendingPathComponent("export.\(format)")
      let result = try Harness.run(["convert", Self.sampleXML.path, "--to", format, "-o", file.path, "--quiet"])
      try #require(result.status == 0)
      inputs.append(file)
    }
    let expected = try #require(
      try Harness.json(try Harness.run(["info", Self.sampleXML.path, "--format", "json"]).stdout) as? [String: Any])
    for input in inputs {
      let byPath = try Harness.run(["steps", input.path, "--format", "csv"])
      let byStdin = try Harness.run(["steps", "-", "--format", "csv"], stdin: input)
      #expect(byStdin.status == 0, "\(input.lastPathComponent): \(byStdin.stderr)")
      #expect(byStdin.stdout == byPath.stdout, "\(input.lastPathComponent)")
      let info = try Harness.run(["info", "--format", "json"], stdin: input)
      let json = try #require(try Harness.json(info.stdout) as? [String: Any], "\(input.lastPathComponent)")
      #expect(json["recordCount"] as? Int == expected["recordCount"] as? Int, "\(input.lastPathComponent)")
    }
    // CSV from another tool on stdin: rows without a source are named `stdin`.
    let foreign = directory.appendingPathComponent("weight.csv")
    try "date,value\n2024-01-02 08:00:00 +0100,70.5\n".write(to: foreign, atomically: true, encoding: .utf8)
    let viaStdin = try Harness.run(
      ["convert", "-", "--type", "HKQuantityTypeIdentifierBodyMass", "--to", "csv", "--quiet"], stdin: foreign)
    #expect(viaStdin.status == 0, "\(viaStdin.stderr)")
    #expect(viaStdin.stdoutText.contains("\nHKQuantityTypeIdentifierBodyMass,stdin,"))
    let viaPath = try Harness.run(
      ["convert", foreign.path, "--type", "HKQuantityTypeIdentifierBodyMass", "--to", "csv", "--quiet"])
    #expect(viaPath.stdoutText.contains("\nHKQuantityTypeIdentifierBodyMass,weight,"))
    // Errors on stdin name it.
    let bad = directory.appendingPathComponent("bad.csv")
    try "type,startDate\nHKQuantityTypeIdentifierX,yesterday\n".write(to: bad, atomically: true, encoding: .utf8)
    let error = try Harness.run(["info", "-"], stdin: bad)
    #expect(error.status == 65)
    #expect(error.stderr.contains("<stdin>:2:2: error: startDate \"yesterday\" is not a date"), "\(error.stderr)")
  }

  @Test("a CSV with a header and no rows says so on stderr, naming the file")
  func headerOnly() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("header-only.csv")
    try "type,startDate,value\n".write(to: file, atomically: true, encoding: .utf8)
    let database = directory.appendingPathComponent("empty.db").path
    let commands = [
      ["info"], ["steps"], ["stats", "--type", "StepCount"], ["workouts"],
      ["convert", "--to", "jsonl", "-o", directory.appendingPathComponent("out.jsonl").path],
      ["load", "--db", database],
    ]
    for arguments in commands {
      let command = arguments[0]
      let result = try Harness.run(arguments + [file.path])
      #expect(result.status == 0, "\(command): \(result.stderr)")
      #expect(
        result.stderr.contains("warning: \(file.path): the CSV has a header row but no rows: an empty export"),
        "\(command): \(result.stderr)")
    }
  }

  @Test("a folder with two exports is refused naming both; a folder with only a zip points to it")
  func folders() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let export = "<?xml version=\"1.0\"?>\n<HealthData locale=\"en_US\"></HealthData>\n"
    let two = directory.appendingPathComponent("two")
    try FileManager.default.createDirectory(at: two, withIntermediateDirectories: true)
    try export.write(to: two.appendingPathComponent("a.xml"), atomically: true, encoding: .utf8)
    try export.write(to: two.appendingPathComponent("b.xml"), atomically: true, encoding: .utf8)
    try "<ClinicalDocument/>".write(to: two.appendingPathComponent("export_cda.xml"), atomically: true, encoding: .utf8)
    let result = try Harness.run(["info", two.path])
    #expect(result.status == 65)
    #expect(result.stderr.contains("two/a.xml") && result.stderr.contains("two/b.xml"), "\(result.stderr)")
    #expect(result.stderr.contains("two Apple Health exports"))

    let one = directory.appendingPathComponent("one")
    try FileManager.default.createDirectory(at: one, withIntermediateDirectories: true)
    try export.write(to: one.appendingPathComponent("export.xml"), atomically: true, encoding: .utf8)
    try "<ClinicalDocument/>".write(to: one.appendingPathComponent("export_cda.xml"), atomically: true, encoding: .utf8)
    #expect(try Harness.run(["info", one.path]).status == 0)

    let zipped = directory.appendingPathComponent("zipped")
    try FileManager.default.createDirectory(at: zipped, withIntermediateDirectories: true)
    try Data([0x50, 0x4B, 0x03, 0x04]).write(to: zipped.appendingPathComponent("export.zip"))
    let zipResult = try Harness.run(["info", zipped.path])
    #expect(zipResult.status == 65)
    #expect(
      zipResult.stderr.contains("holds no Apple Health export") && zipResult.stderr.contains("zipped/export.zip"),
      "\(zipResult.stderr)")
  }
}
