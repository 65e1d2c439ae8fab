import Foundation
import TestSupport
import Testing

/// The calls `docs/csv.md` shows for loading the single table in pandas, DuckDB and polars, run as
/// written on a table whose first 300,000 rows need no quoting and have no text value (a generated
/// export, converted by the binary), under pandas 2 and pandas 3; and the calls they replace,
/// which fail or warn on that table, so that the table keeps exercising what made them fail.
@Suite("the single table in the calls docs/csv.md shows")
struct CSVClientCallsTests {
  /// Rows that need no quoting and have an empty `valueText` before any that do: more than
  /// DuckDB's sniffer samples (20,480), and than pandas reads in one chunk (its C parser reads
  /// 2^20 / columns rows at a time, rounded down to a power of two: 65,536 for 15 columns).
  static let plainRows = 300_000
  /// Rows after them of each kind: Watch steps (a device with commas, so quoted), sleep (a
  /// category value in `valueText`), heart rate (metadata, JSON in quotes).
  static let tailRows = 500

  /// An export of ``plainRows`` StepCount Records that need no quoting in the single table
  /// (no device, no metadata, numbers, integer-looking source versions), then ``tailRows`` of
  /// each kind that do, with versions that are not numbers.
  static func writeExport(to url: URL) throws {
    var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
    text.reserveCapacity(plainRows * 260 + 1 << 20)
    let device =
      "&lt;&lt;HKDevice: 0x283e5d400&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.1&gt;"
    func date(_ minute: Int, _ offset: String) -> String {
      let day = 1 + minute / 1440
      let hour = minute / 60 % 24
      let minutes = minute % 60
      let month = 1 + (day - 1) / 28
      func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
      return "20\(two(16 + (month - 1) / 12))-\(two(1 + (month - 1) % 12))-\(two(1 + (day - 1) % 28)) "
        + "\(two(hour)):\(two(minutes)):00 \(offset)"
    }
    for row in 0..<plainRows {
      let start = date(row % 400_000, "+0100")
      text +=
        " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Phone\" sourceVersion=\"11\" unit=\"count\" creationDate=\"\(start)\" startDate=\"\(start)\" endDate=\"\(start)\" value=\"\(row % 997)\"/>\n"
    }
    for row in 0..<tailRows {
      let start = date(row, "-0700")
      text +=
        " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Watch\" sourceVersion=\"11.2\" device=\"\(device)\" unit=\"count\" creationDate=\"\(start)\" startDate=\"\(start)\" endDate=\"\(start)\" value=\"\(row)\"/>\n"
      text +=
        " <Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" sourceName=\"Watch\" sourceVersion=\"17.1.2\" device=\"\(device)\" creationDate=\"\(start)\" startDate=\"\(start)\" endDate=\"\(start)\" value=\"HKCategoryValueSleepAnalysisAsleepCore\"/>\n"
      text +=
        " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" sourceVersion=\"17.1.2\" device=\"\(device)\" unit=\"count/min\" creationDate=\"\(start)\" startDate=\"\(start)\" endDate=\"\(start)\" value=\"6\(row % 10).5\">\n"
        + "  <MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"1\"/>\n </Record>\n"
    }
    text += "</HealthData>\n"
    try Data(text.utf8).write(to: url)
  }

  /// argv: docs/csv.md, the number of rows, the numbers, the text values, and `all` (every call)
  /// or `pandas` (the pandas calls only: the pandas 3 environment has nothing else). Runs in the
  /// folder holding `records.csv` and `plain-header.csv` (the same table with its header unquoted,
  /// as healthport wrote it before).
  static let script = #"""
    import sys, re, warnings
    doc, rows, numbers, texts, which = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    text = open(doc, encoding='utf-8').read()
    section = text.split('### Loading it in pandas, DuckDB and polars', 1)[1]
    section = re.split(r'\n#+ ', section, 1)[0]
    blocks = re.findall(r'```(python|sql)\n(.*?)```', section, re.S)

    def fail(what):
        print('FAIL', what); sys.exit(1)

    def check(ok, what):
        if not ok: fail(what)

    ran = []
    for language, block in blocks:
        if language == 'python':
            library = 'polars' if 'import polars' in block else 'pandas'
            if which == 'pandas' and library != 'pandas': continue
            namespace = {}
            with warnings.catch_warnings():
                warnings.simplefilter('error')
                exec(compile(block, doc, 'exec'), namespace)
            records = namespace['records']
            check(len(records) == rows, f'{library}: {len(records)} rows, not {rows}')
            value, value_text = records['value'], records['valueText']
            if library == 'pandas':
                import pandas as pd
                check(str(value.dtype) == 'float64', f'pandas value is {value.dtype}')
                check(isinstance(value_text.dtype, pd.StringDtype), f'pandas valueText is {value_text.dtype}')
                check(int(value_text.notna().sum()) == texts, 'pandas text values')
                check(str(records['sourceVersion'].iloc[-1]) == '17.1.2', 'pandas sourceVersion')
            else:
                import polars as pl
                check(value.dtype == pl.Float64, f'polars value is {value.dtype}')
                check(value_text.dtype == pl.Utf8, f'polars valueText is {value_text.dtype}')
                check(records['sourceVersion'][-1] == '17.1.2', 'polars sourceVersion')
            check(int(value.notna().sum() if library == 'pandas' else value.is_not_null().sum()) == numbers,
                  f'{library} numbers')
            ran.append(library)
        elif which == 'all':
            import duckdb
            con = duckdb.connect()
            result = con.sql(block).fetchall()
            check(sum(r[1] for r in result) == rows, f'duckdb: {result}')
            ran.append('duckdb')
            # The same query on the header healthport wrote before: the sniffer sees no quote in
            # its sample and splits the first quoted device at its commas.
            try:
                con.sql(block.replace("'records.csv'", "'plain-header.csv'")).fetchall()
                fail('duckdb read the unquoted header')
            except duckdb.Error as error:
                check('manufacturer:Apple' in str(error), f'duckdb: {error}')
    want = ['pandas'] if which == 'pandas' else ['pandas', 'duckdb', 'polars']
    check(sorted(set(ran)) == sorted(want), f'ran {ran}, want {want}')

    # The calls these replace: pandas warns about a sparse text column, polars types the versions
    # from their first rows.
    import pandas as pd
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        pd.read_csv('records.csv', parse_dates=['startUTC', 'endUTC'], dtype={'sourceVersion': str})
    check(any('mixed types' in str(w.message) for w in caught), f'pandas {pd.__version__} did not warn')
    if which == 'all':
        import polars as pl
        try:
            pl.read_csv('records.csv', try_parse_dates=True)
            fail('polars read the versions')
        except pl.exceptions.ComputeError as error:
            check('sourceVersion' in str(error), f'polars: {error}')
    print('ok', pd.__version__, ' '.join(ran))
    """#

  @Test(
    "pandas 2 and 3, DuckDB and polars load records.csv cleanly with the calls docs/csv.md shows",
    .needsPythonClients, .needsPandas3Client)
  func documentedCalls() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let export = directory.appendingPathComponent("export.xml")
    try Self.writeExport(to: export)
    let table = directory.appendingPathComponent("records.csv")
    let convert = try Harness.run(["convert", export.path, "--to", "csv", "-o", table.path, "--quiet"])
    try #require(convert.status == 0, "\(convert.stderr)")
    try FileManager.default.removeItem(at: export)
    // The same table with the header as healthport wrote it before.
    var bytes = try Data(contentsOf: table)
    let headerEnd = try #require(bytes.firstIndex(of: 0x0A))
    let header = String(decoding: bytes[..<headerEnd], as: UTF8.self)
    #expect(header.hasPrefix("\"type\",\"sourceName\",\"sourceVersion\","))
    bytes.replaceSubrange(..<headerEnd, with: Data(header.replacingOccurrences(of: "\"", with: "").utf8))
    try bytes.write(to: directory.appendingPathComponent("plain-header.csv"))
    bytes = Data()

    let doc = Harness.repoRoot.appendingPathComponent("docs/csv.md").path
    let rows = Self.plainRows + 3 * Self.tailRows
    let arguments = [doc, "\(rows)", "\(Self.plainRows + 2 * Self.tailRows)", "\(Self.tailRows)"]
    let main = try TestEnvironment.runClientPython(Self.script, arguments + ["all"], in: directory)
    #expect(main.status == 0, "\(main.stdout) \(main.stderr)")
    #expect(main.stdout.hasPrefix("ok 2."), "\(main.stdout)")
    let pandas3 = try TestEnvironment.runClientPython(
      Self.script, arguments + ["pandas"], python: TestEnvironment.pandas3Python, in: directory)
    #expect(pandas3.status == 0, "\(pandas3.stdout) \(pandas3.stderr)")
    #expect(pandas3.stdout.hasPrefix("ok 3."), "\(pandas3.stdout)")
  }
}
