import Foundation
import TestSupport
import Testing

/// What healthport cannot carry from an input into an output is said, not dropped in silence.
@Suite("nothing lost in silence")
struct NothingLostTests {
  /// Runs a Python script with `arguments`, expecting success; returns its output.
  static func python(_ script: String, _ arguments: [String]) throws -> String {
    let result = try Harness.runTool("/usr/bin/python3", ["-c", script] + arguments)
    #expect(result.status == 0, "\(result.output)")
    return result.output
  }

  /// Puts control characters into 5 StepCount types and one source name of a JSON Lines file, and
  /// prints how many XML 1.0 forbids (counted on the decoded strings, as Python reads them).
  static let jsonLinesWithControls = """
    import json, sys
    lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
    out, changed = [], 0
    for line in lines:
        obj = json.loads(line)
        attrs = obj.get("attributes") if obj.get("element") == "Record" else None
        if attrs and attrs.get("type") == "HKQuantityTypeIdentifierStepCount" and changed < 5:
            attrs["type"] = "HKQuantityTypeIdentifier\\u0001ctl\\u001f"
            if changed == 0:
                attrs["sourceName"] = attrs["sourceName"] + "\\u0002"
            changed += 1
        out.append(json.dumps(obj, ensure_ascii=False))
    open(sys.argv[2], "w", encoding="utf-8").write("\\n".join(out) + "\\n")
    def count(value):
        if isinstance(value, str):
            return sum(1 for c in value if ord(c) < 0x20 and c not in "\\t\\n\\r")
        if isinstance(value, dict):
            return sum(count(k) + count(v) for k, v in value.items())
        if isinstance(value, list):
            return sum(count(v) for v in value)
        return 0
    print(sum(count(json.loads(line)) for line in out))
    """

  /// The Records of an export XML whose type is `type`, counted by Python's parser.
  static let recordsOfType = """
    import sys, zipfile, xml.etree.ElementTree as ET
    path = sys.argv[1]
    if path.endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            data = z.read("apple_health_export/export.xml")
    else:
        data = open(path, "rb").read()
    root = ET.fromstring(data)
    print(sum(1 for r in root.iter("Record") if r.get("type") == sys.argv[2]))
    """

  @Test("JSON Lines or CSV to XML: the control characters XML forbids are counted in a warning")
  func controlCharactersToXML() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let sample = Harness.samples.appendingPathComponent("export.xml").path
    let clean = directory.appendingPathComponent("clean.jsonl").path
    #expect(try Harness.run(["convert", sample, "--to", "jsonl", "-o", clean]).status == 0)
    let input = directory.appendingPathComponent("controls.jsonl").path
    let expected = try Self.python(Self.jsonLinesWithControls, [clean, input]).trimmingCharacters(
      in: .whitespacesAndNewlines)
    #expect(expected == "11")

    for (format, name) in [("xml", "out.xml"), ("zip", "out.zip")] {
      let output = directory.appendingPathComponent(name).path
      let result = try Harness.run(["convert", input, "--to", format, "-o", output])
      #expect(result.status == 0, "stderr: \(result.stderr)")
      #expect(
        result.stderr.contains("warning: removed \(expected) control character(s) that XML 1.0 forbids"),
        "--to \(format) stderr: \(result.stderr)")
      // The records are kept, their type without the characters.
      let kept = try Self.python(Self.recordsOfType, [output, "HKQuantityTypeIdentifierctl"])
      #expect(kept.trimmingCharacters(in: .whitespacesAndNewlines) == "5", "--to \(format)")
    }
    // Without control characters, no such warning.
    let plain = try Harness.run(["convert", clean, "--to", "xml", "-o", directory.appendingPathComponent("p.xml").path])
    #expect(plain.status == 0 && !plain.stderr.contains("control character"), "stderr: \(plain.stderr)")

    // CSV input: three rows whose type holds one control character each (a raw byte in the file).
    let csv = directory.appendingPathComponent("records.csv").path
    #expect(try Harness.run(["convert", sample, "--to", "csv", "-o", csv]).status == 0)
    let edit = """
      import sys
      lines = open(sys.argv[1], encoding="utf-8").read().split("\\n")
      for i in range(1, 4):
          lines[i] = lines[i].replace("HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierStep\\u0007Count", 1)
      open(sys.argv[2], "w", encoding="utf-8").write("\\n".join(lines))
      print(sum(line.count("\\u0007") for line in lines))
      """
    let csvInput = directory.appendingPathComponent("controls.csv").path
    let csvCount = try Self.python(edit, [csv, csvInput]).trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(csvCount == "3")
    let fromCSV = try Harness.run([
      "convert", csvInput, "--to", "xml", "-o", directory.appendingPathComponent("csv.xml").path,
    ])
    #expect(fromCSV.status == 0, "stderr: \(fromCSV.stderr)")
    #expect(
      fromCSV.stderr.contains("warning: removed 3 control character(s) that XML 1.0 forbids"),
      "stderr: \(fromCSV.stderr)")
  }

  /// The sample bundle as a folder, with one real ECG and two files that are not ECGs in its
  /// `electrocardiograms/` folder.
  static func bundleWithStrayECGFiles(in directory: URL) throws -> URL {
    let unzip = try Harness.runTool(
      "/usr/bin/unzip", ["-q", Harness.samples.appendingPathComponent("export.zip").path, "-d", directory.path])
    #expect(unzip.status == 0, "\(unzip.output)")
    let folder = directory.appendingPathComponent("apple_health_export")
    let ecgs = folder.appendingPathComponent("electrocardiograms")
    try FileManager.default.createDirectory(at: ecgs, withIntermediateDirectories: true)
    let real =
      "Name,Ann\nDate of Birth,\"Jun 12, 2006\"\nRecorded Date,2023-03-04 20:55:07 -0500\n"
      + "Sample Rate,512 hertz\n\nLead,Lead I\nUnit,µV\n\n-107.825\n-121.163\n3.5\n"
    try Data(real.utf8).write(to: ecgs.appendingPathComponent("ecg_2023-03-04.csv"))
    try Data("bs\n".utf8).write(to: ecgs.appendingPathComponent("ecg_bs.csv"))
    try Data("123\n456\n".utf8).write(to: ecgs.appendingPathComponent("ecg_digits.csv"))
    return folder
  }

  @Test(
    "a file in electrocardiograms/ without an ECG header is left out with a warning",
    arguments: ["1", "2"])
  func ecgHeaderRequired(threads: String) throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let folder = try Self.bundleWithStrayECGFiles(in: directory)
    let environment = ["HEALTHPORT_THREADS": threads]
    for extra in [[], ["--skip-invalid"]] {
      let info = try Harness.run(["info", folder.path, "--format", "json"] + extra, environment: environment)
      #expect(info.status == 0, "stderr: \(info.stderr)")
      let summary = try Harness.json(info.stdout) as? [String: Any]
      #expect(summary?["ecgRecordingCount"] as? Int == 1, "\(extra)")
      #expect(summary?["ecgSampleCount"] as? Int == 3, "\(extra)")
      let warnings = (summary?["warnings"] as? [String]) ?? []
      #expect(
        warnings.contains {
          $0.hasPrefix("2 file(s) in electrocardiograms/ without an ECG header") && $0.contains("left out")
            && $0.contains("ecg_bs.csv") && $0.contains("ecg_digits.csv")
        }, "\(warnings)")
    }
    let jsonl = directory.appendingPathComponent("out.jsonl").path
    let converted = try Harness.run(["convert", folder.path, "--to", "jsonl", "-o", jsonl], environment: environment)
    #expect(converted.status == 0, "stderr: \(converted.stderr)")
    #expect(converted.stderr.contains("without an ECG header"), "stderr: \(converted.stderr)")
    let text = try String(contentsOfFile: jsonl, encoding: .utf8)
    let ecgLines = text.split(separator: "\n").filter { $0.contains(#""kind":"ecg""#) }
    #expect(ecgLines.count == 1 && ecgLines.first?.contains("ecg_2023-03-04.csv") == true, "\(ecgLines)")
  }

  @Test("a bundle written back keeps a file without an ECG header byte for byte")
  func ecgWithoutHeaderCopied() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let folder = try Self.bundleWithStrayECGFiles(in: directory)
    // The same bundle as a zip (read as a stream of members, not as files).
    let zipped = directory.appendingPathComponent("in.zip").path
    let makeZip = """
      import sys, zipfile, os
      folder, path = sys.argv[1], sys.argv[2]
      with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
          for base, _, files in sorted(os.walk(folder)):
              for name in sorted(files):
                  full = os.path.join(base, name)
                  z.write(full, os.path.relpath(full, os.path.dirname(folder)))
      print("made")
      """
    _ = try Self.python(makeZip, [folder.path, zipped])
    let compare = """
      import sys, zipfile, os
      folder, path = sys.argv[1], sys.argv[2]
      with zipfile.ZipFile(path) as z:
          for name in ("ecg_2023-03-04.csv", "ecg_bs.csv", "ecg_digits.csv"):
              data = z.read("apple_health_export/electrocardiograms/" + name)
              assert data == open(os.path.join(folder, "electrocardiograms", name), "rb").read(), name
      print("same")
      """
    for (index, input) in [folder.path, zipped].enumerated() {
      let zip = directory.appendingPathComponent("out\(index).zip").path
      let result = try Harness.run(["convert", input, "--to", "zip", "-o", zip])
      #expect(result.status == 0, "stderr: \(result.stderr)")
      #expect(result.stderr.contains("(copied as they are)"), "\(input) stderr: \(result.stderr)")
      #expect(try Self.python(compare, [folder.path, zip]).contains("same"), "\(input)")
      // As members, in JSON Lines: the two are `other` members, the recording an `ecg`.
      let lines = try Harness.run(["convert", input, "--to", "jsonl"])
      #expect(lines.status == 0, "stderr: \(lines.stderr)")
      let text = lines.stdoutText
      #expect(text.components(separatedBy: #""kind":"ecg""#).count == 2, "\(input)")
      #expect(text.contains(#"ecg_bs.csv","type":"other""#), "\(input)")
    }
  }

  /// The sample export with text put into Records (with and without children), a MetadataEntry,
  /// a Correlation and a Workout; the layout stays the Health app's.
  static let exportWithText = """
    import re, sys
    text = open(sys.argv[1], encoding="utf-8").read()
    steps = [m for m in re.finditer(r'<Record type="HKQuantityTypeIdentifierStepCount"[^>]*/>', text)]
    for n, m in reversed(list(enumerate(steps[:40]))):
        tag = m.group(0)
        text = text[:m.start()] + tag[:-2] + ">step " + str(n) + " &amp; &lt;b&gt;</Record>" + text[m.end():]
    def first(pattern, insert):
        global text
        m = re.search(pattern, text)
        text = text[:m.end()] + insert + text[m.end():]
    first(r'<Record type="HKQuantityTypeIdentifierHeartRate"[^>]*">', "beats")
    first(r'<Correlation [^>]*>', "pressure")
    first(r'<Workout [^>]*>', "a run")
    m = re.search(r'<MetadataEntry [^>]*/>', text)
    text = text[:m.start()] + m.group(0)[:-2] + ">meta</MetadataEntry>" + text[m.end():]
    open(sys.argv[2], "w", encoding="utf-8").write(text)
    """

  /// The text of every Record, Correlation, Workout and MetadataEntry, in document order, as
  /// Python reads it: from an export XML (its text runs that are not blank, joined) or from
  /// healthport's JSON Lines or JSON (`text`). One line each: `Element<TAB>text`, as JSON.
  static let textsOf = """
    import json, sys, zipfile, xml.etree.ElementTree as ET
    kinds = {"Record", "Correlation", "Workout", "MetadataEntry"}
    path = sys.argv[1]
    found = []
    if path.endswith(".xml"):
        def walk(el):
            if el.tag in kinds:
                runs = [el.text or ""] + [c.tail or "" for c in el]
                kept = "".join(r for r in runs if r.strip())
                if kept:
                    found.append((el.tag, kept))
            for c in el:
                walk(c)
        walk(ET.parse(path).getroot())
    else:
        def walk(obj):
            if isinstance(obj, dict):
                if obj.get("element") in kinds and "text" in obj:
                    found.append((obj["element"], obj["text"]))
                for v in obj.values():
                    walk(v)
            elif isinstance(obj, list):
                for v in obj:
                    walk(v)
        if path.endswith(".json"):
            walk(json.load(open(path, encoding="utf-8")))
        else:
            for line in open(path, encoding="utf-8"):
                walk(json.loads(line))
    print(json.dumps(found))
    """

  @Test(
    "text inside Record, Correlation, Workout and MetadataEntry is kept in XML, JSON Lines, JSON, --split and SQLite")
  func textKept() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("text.xml").path
    _ = try Self.python(Self.exportWithText, [Harness.samples.appendingPathComponent("export.xml").path, input])
    let expected = try Self.python(Self.textsOf, [input])
    #expect(expected.contains(#"["Record", "step 0 & <b>"]"#) && expected.contains(#"["Workout", "a run"#))
    #expect(expected.components(separatedBy: "], [").count == 31, "\(expected)")

    // One parser, and two with small ranges (top-level Records then go to the writer as tags).
    let parallel = ["HEALTHPORT_THREADS": "2", "HEALTHPORT_RANGE_BYTES": "4096"]
    for (name, environment) in [("one", ["HEALTHPORT_THREADS": "1"]), ("two", parallel)] {
      for format in ["jsonl", "json", "xml"] {
        let output = directory.appendingPathComponent("\(name).\(format)").path
        let result = try Harness.run(["convert", input, "--to", format, "-o", output], environment: environment)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(try Self.python(Self.textsOf, [output]) == expected, "\(name) --to \(format)")
      }
    }
    // --split: each such element is a row of elements.csv (its attributes in attributes.csv),
    // read back whole.
    let split = directory.appendingPathComponent("split").path
    let splitRun = try Harness.run(["convert", input, "--to", "csv", "--split", "-o", split])
    #expect(splitRun.status == 0, "stderr: \(splitRun.stderr)")
    let elementRows = """
      import csv, json, sys
      kinds = {"Record", "Correlation", "Workout", "MetadataEntry"}
      with open(sys.argv[1], newline="", encoding="utf-8") as f:
          rows = sorted(csv.DictReader(f), key=lambda r: int(r["id"]))
      print(json.dumps([(r["element"], r["text"]) for r in rows if r["element"] in kinds and r["text"]]))
      """
    #expect(try Self.python(elementRows, [split + "/elements.csv"]) == expected)
    let fromSplit = directory.appendingPathComponent("split.jsonl").path
    #expect(try Harness.run(["convert", split, "--to", "jsonl", "-o", fromSplit]).status == 0)
    #expect(try Self.python(Self.textsOf, [fromSplit]) == expected, "--split → jsonl")
    // SQLite: a row of `extras` of kind `text` for each, on its element's row.
    let database = directory.appendingPathComponent("text.db").path
    let loaded = try Harness.run(["convert", input, "--to", "sqlite", "-o", database])
    #expect(loaded.status == 0, "stderr: \(loaded.stderr)")
    let extrasRows = """
      import json, sqlite3, sys
      owners = {"record": "Record", "correlation_record": "Record", "metadata": "MetadataEntry",
                "correlation": "Correlation", "workout": "Workout"}
      rows = sqlite3.connect(sys.argv[1]).execute(
          "SELECT owner_kind, name, value FROM extras WHERE kind = 'text'").fetchall()
      assert all(name == "#text" for _, name, _ in rows), rows
      expected = sorted(tuple(pair) for pair in json.loads(sys.argv[2]))
      print(sorted((owners[owner], value) for owner, _, value in rows) == expected)
      """
    #expect(try Self.python(extrasRows, [database, expected]).contains("True"))
    // Back from JSON Lines and JSON to XML: the same texts.
    for format in ["jsonl", "json"] {
      let back = directory.appendingPathComponent("back-\(format).xml").path
      let from = directory.appendingPathComponent("one.\(format)").path
      #expect(try Harness.run(["convert", from, "--to", "xml", "-o", back]).status == 0)
      #expect(try Self.python(Self.textsOf, [back]) == expected, "\(format) → xml")
    }
  }

  /// The texts of every Record, Correlation, Workout and MetadataEntry of a Parquet dataset, read
  /// by pyarrow (`elements` rows' `text`, and the `text` of the children kept whole in any table's
  /// `extra`) and, for the `elements` rows, by DuckDB; or of a `--split` folder's `elements.csv`.
  /// One list of `[id, element, text]` in id order, as JSON.
  static let textsByID = """
    import csv, json, os, sys
    kinds = {"Record", "Correlation", "Workout", "MetadataEntry"}
    path, found = sys.argv[1], []
    if sys.argv[2] == "split":
        with open(os.path.join(path, "elements.csv"), newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                if r["element"] in kinds and r["text"]:
                    found.append([int(r["id"]), r["element"], r["text"]])
    else:
        import duckdb, pyarrow.dataset as ds
        def walk(child):
            if child.get("element") in kinds and child.get("text"):
                found.append([child["id"], child["element"], child["text"]])
            for c in child.get("children", []):
                walk(c)
        for table in sorted(os.listdir(path)):
            folder = os.path.join(path, table)
            if not os.path.isdir(folder):
                continue
            for row in ds.dataset(folder, format="parquet", partitioning="hive").to_table().to_pylist():
                if table == "elements" and row["element"] in kinds and row["text"]:
                    found.append([row["id"], row["element"], row["text"]])
                if row.get("extra"):
                    for c in json.loads(row["extra"]).get("children", []):
                        walk(c)
        elements = os.path.join(path, "elements")
        rows = duckdb.sql("SELECT id, element, text FROM read_parquet('" + elements.replace("'", "''")
            + "/**/*.parquet') WHERE text IS NOT NULL AND element IN ('Record', 'Correlation', 'Workout', "
            + "'MetadataEntry') ORDER BY id").fetchall() if os.path.isdir(elements) else []
        assert [list(r) for r in rows] == sorted(f for f in found if f[0] in {r[0] for r in rows}), rows
    print(json.dumps(sorted(found)))
    """

  @Test(
    "text inside Record, Correlation, Workout and MetadataEntry is kept in Parquet, where --split keeps it",
    .needsPythonClients)
  func textKeptInParquet() throws {
    let directory = try Harness.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("text.xml").path
    _ = try Self.python(Self.exportWithText, [Harness.samples.appendingPathComponent("export.xml").path, input])
    let expected = try Self.python(Self.textsOf, [input])

    let split = directory.appendingPathComponent("split").path
    let splitRun = try Harness.run(["convert", input, "--to", "csv", "--split", "-o", split])
    #expect(splitRun.status == 0, "stderr: \(splitRun.stderr)")
    let bySplit = try TestEnvironment.runClientPython(Self.textsByID, [split, "split"])
    #expect(bySplit.status == 0, "\(bySplit.stderr)")

    let dataset = directory.appendingPathComponent("dataset").path
    let run = try Harness.run(["convert", input, "--to", "parquet", "-o", dataset])
    #expect(run.status == 0, "stderr: \(run.stderr)")
    let byParquet = try TestEnvironment.runClientPython(Self.textsByID, [dataset, "parquet"])
    #expect(byParquet.status == 0, "\(byParquet.stderr)")
    // The same ids as --split gives them, and the texts Python reads in the XML, in that order.
    #expect(byParquet.stdout == bySplit.stdout, "parquet: \(byParquet.stdout)\nsplit: \(bySplit.stdout)")
    let texts = try #require(try Harness.json(Data(byParquet.stdout.utf8)) as? [[Any]])
    let pairs = try #require(try Harness.json(Data(expected.utf8)) as? [[String]])
    #expect(texts.map { $0.dropFirst().compactMap { $0 as? String } } == pairs, "\(texts)")
    #expect(texts.count == 31)
    // And every other table equals --split's, row by row (the elements' children in `extra`).
    let client = try String(
      contentsOf: Harness.repoRoot.appendingPathComponent("Tests/Clients/parquet_dataset.py"), encoding: .utf8)
    let tables = try TestEnvironment.runClientPython(client, [split, dataset])
    #expect(tables.status == 0, "\(tables.stdout)\n\(tables.stderr)")
  }
}
