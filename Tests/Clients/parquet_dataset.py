"""Checks a `convert --to parquet` dataset against the `--split` folder of the same export.

Usage: parquet_dataset.py SPLIT_DIR PARQUET_DIR [PARTITIONS [CODEC [INPUT INFO_JSON]]]
(PARTITIONS: e.g. "type,year" or ""; CODEC: ZSTD, SNAPPY or UNCOMPRESSED, checked on every column chunk.
INPUT, INFO_JSON: the export converted (zip, folder or file) and `healthport info --format json`'s output for
it: the side files' tables, route_points, ecg_recordings and ecg_samples, are counted against both, the
independent count reading the GPX and ECG files itself.)
Every Parquet file is read by pyarrow, DuckDB and Polars (their row counts agree; every column chunk has
statistics); every table's rows equal the split CSV's, column by column (numbers as numbers, dates as
instants and offsets, a value that does not fit its type in the `_text` column, `type_identifier` whole and
`type` its short name); in every layout, DuckDB's hive_partitioning finds every record, of its own type and
year. Prints a JSON summary; exits 1 on any difference.
"""
import csv, datetime, glob, json, math, os, re, sys, zipfile
import duckdb, polars as pl, pyarrow as pa, pyarrow.dataset as ds, pyarrow.parquet as pq

split, dataset = sys.argv[1], sys.argv[2]
partitions = [p for p in (sys.argv[3] if len(sys.argv) > 3 else "").split(",") if p]
codec = (sys.argv[4] or None) if len(sys.argv) > 4 else None
source = sys.argv[5] if len(sys.argv) > 5 else None
info = json.loads(sys.argv[6]) if len(sys.argv) > 6 else None
csv.field_size_limit(1 << 30)
FIXED = {"export", "correlations", "correlation_records", "workouts", "workout_events", "workout_activities",
         "workout_statistics", "workout_routes", "file_references", "locations", "metadata", "hrv_lists",
         "hrv_beats", "me", "activity_summaries", "clinical_records", "audiograms", "sensitivity_points",
         "vision_prescriptions", "vision_eyes", "elements", "attributes", "route_points", "ecg_recordings",
         "ecg_samples"}
problems = []

def fail(message):
    problems.append(message)
    if len(problems) > 50:
        print("\n".join(problems)); sys.exit(1)

def snake(name):
    out = ""
    for c in name:
        if c.isupper():
            if out: out += "_"
            out += c.lower()
        else:
            out += c
    return out

def short_type(name):
    """The `type=` folder's name: Apple's HK...TypeIdentifier or HKDataType prefix left out."""
    m = re.match(r"^HK[A-Za-z]*?TypeIdentifier(.+)$", name)
    if m: return m.group(1)
    if name.startswith("HKDataType") and len(name) > len("HKDataType"): return name[len("HKDataType"):]
    return name

def stem(column):
    name = column[len("HKCharacteristicTypeIdentifier"):] if column.startswith("HKCharacteristicTypeIdentifier") else column
    return snake(name)

DATE = re.compile(r"^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d) ([+-])(\d\d)(\d\d)$")

def export_date(text):
    m = DATE.match(text)
    if not m: return None
    y, mo, d, h, mi, s = (int(m.group(i)) for i in range(1, 7))
    offset = (int(m.group(8)) * 60 + int(m.group(9))) * (-1 if m.group(7) == "-" else 1)
    try: local = datetime.datetime(y, mo, d, h, mi, s, tzinfo=datetime.timezone.utc)
    except ValueError: return None
    utc = int(local.timestamp()) - offset * 60
    return utc * 1_000_000, offset, (local.date() - datetime.date(1970, 1, 1)).days

GPX_TIME = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d{1,6})?(Z|[+-]\d\d:\d\d)$")

def gpx_time(text):
    """A route point's time as --split writes it (GPX's as written, an inline point's in UTC)."""
    m = GPX_TIME.match(text)
    if not m: return None
    try: moment = datetime.datetime.fromisoformat(m.group(1) + (m.group(2) or "") + ("+00:00" if m.group(3) == "Z" else m.group(3)))
    except ValueError: return None
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    delta = moment - epoch
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds, int(moment.utcoffset().total_seconds()) // 60, None

def is_decimal(text):
    return re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text) is not None

def read_csv_rows(paths):
    rows, header = [], None
    for path in paths:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            h = next(reader)
            header = header or h
            assert h == header, (path, h, header)
            rows += [dict(zip(h, r)) for r in reader]
    return header, rows

def read_parquet(table):
    files = sorted(glob.glob(os.path.join(dataset, table, "**", "*.parquet"), recursive=True))
    if not files: return None, [], files
    for path in files:  # three readers agree on every file
        meta = pq.ParquetFile(path).metadata
        count_duck = duckdb.sql(f"select count(*) from read_parquet('{path}')").fetchone()[0]
        count_polars = pl.read_parquet(path).height
        if not (meta.num_rows == count_duck == count_polars):
            fail(f"{path}: rows {meta.num_rows} (pyarrow) {count_duck} (duckdb) {count_polars} (polars)")
        for g in range(meta.num_row_groups):
            for c in range(meta.num_columns):
                chunk = meta.row_group(g).column(c)
                if not chunk.is_stats_set:
                    fail(f"{path}: row group {g} column {c} has no statistics")
                if codec and chunk.compression != codec:
                    fail(f"{path}: column {c} is {chunk.compression}, expected {codec}")
    data = ds.dataset(os.path.join(dataset, table), format="parquet", partitioning="hive")
    t = data.to_table()
    schema = t.schema
    columns = {}
    for name in t.column_names:
        col = t.column(name)
        if pa.types.is_timestamp(col.type): col = col.cast(pa.int64())
        elif pa.types.is_date32(col.type): col = col.cast(pa.int32())
        columns[name] = col.to_pylist()
    rows = [dict(zip(columns, values)) for values in zip(*columns.values())]
    return schema, rows, files

def got_utc(p, base): return p[base + "_utc"]

def int_or(text, default=-1): return int(text) if text else default

def csv_key(table, r):
    if table == "attributes": return (int(r["element_id"]), r["name"], r["value"] or "")
    if table == "route_points":
        time = gpx_time(r["time"]) if r["time"] else None
        latitude = float(r["latitude"]) if is_decimal(r["latitude"]) else math.inf
        return (int_or(r["route_id"]), r["origin"], int(r["position"]), time[0] if time else -1, latitude)
    if table == "ecg_samples": return (int(r["recording_id"]), int(r["position"]))
    return int(r["id"])

def parquet_key(table, p):
    if table == "attributes": return (p["element_id"], p["name"], p["value"] or "")
    if table == "route_points":
        latitude = math.inf if p["latitude"] is None else p["latitude"]
        return (p["route_id"] if p["route_id"] is not None else -1, p["origin"], p["position"],
                p["time_utc"] if p["time_utc"] is not None else -1, latitude)
    if table == "ecg_samples": return (p["recording_id"], p["position"])
    return p["id"]

def compare(table, csv_paths):
    header, csv_rows = read_csv_rows(csv_paths)
    if "id" in header:  # a row inside an element of no table is in that element's JSON, not a row
        csv_rows = [r for r in csv_rows if int(r["id"]) not in embedded]
    schema, pq_rows, files = read_parquet(table)
    if len(csv_rows) != len(pq_rows):
        fail(f"{table}: {len(csv_rows)} rows in the split CSV, {len(pq_rows)} in parquet"); return 0
    if not csv_rows: return 0
    names = set(schema.names)
    csv_rows.sort(key=lambda r: csv_key(table, r)); pq_rows.sort(key=lambda r: parquet_key(table, r))
    for column in header:
        if column.endswith(("ISO", "UTC")):  # a date's derived forms: the same instant (and offset)
            base = stem(column[:-3])
            for c, p in zip(csv_rows, pq_rows):
                text, where = c[column], f"{table} id {c.get('id')} {column}"
                if not text:
                    if p.get(base + "_utc") is not None: fail(f"{where}: empty, the date is {p.get(base + '_utc')}")
                    continue
                parsed = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
                if int(parsed.timestamp()) * 1_000_000 != p.get(base + "_utc"): fail(f"{where}: {text!r} -> {p.get(base + '_utc')}")
                if column.endswith("ISO") and parsed.utcoffset().total_seconds() != 60 * p.get(base + "_offset_min"):
                    fail(f"{where}: {text!r} offset, {p.get(base + '_offset_min')} min")
            continue
        base = stem(column)
        date_base = stem(column[:-4]) if column.endswith("Date") and len(column) > 4 else base
        for c, p in zip(csv_rows, pq_rows):
            text = c[column]
            where = f"{table} id {c.get('id', c.get('element_id'))} {column}"
            if date_base + "_utc" in names:
                expected = (gpx_time(text) if table == "route_points" else export_date(text)) if text else None
                if table == "route_points" and c["origin"] == "inline":  # its offset is the export's, not CSV's UTC
                    if (expected[0] if expected else None) != got_utc(p, date_base): fail(f"{where}: {text!r} -> {p[date_base + '_utc']}")
                    continue
                got = (p[date_base + "_utc"], p[date_base + "_offset_min"], p.get(date_base + "_local_day", None))
                if expected:
                    if got[0] != expected[0] or got[1] != expected[1] or (date_base + "_local_day" in names and got[2] != expected[2]):
                        fail(f"{where}: {text!r} -> {got}")
                elif got[0] is not None or (p.get(date_base + "_text") or "") != text:
                    fail(f"{where}: {text!r} -> {got} text {p.get(date_base + '_text')!r}")
                continue
            if base == "type":  # the whole identifier, and its short name (a folder or a column)
                if p.get("type_identifier") != text: fail(f"{where}: type_identifier {p.get('type_identifier')!r} != {text!r}")
                if p.get("type") != short_type(text): fail(f"{where}: partition {p.get('type')!r} for {text!r}")
                continue
            if base not in names:
                fail(f"{table}: no parquet column for {column} ({base})"); break
            kind = schema.field(base).type
            value = p[base]
            if pa.types.is_floating(kind):
                if text and is_decimal(text):
                    if value is None or float(text) != value: fail(f"{where}: {text!r} -> {value!r}")
                elif value is not None or (p.get(base + "_text") or "") != text:
                    fail(f"{where}: {text!r} -> {value!r} text {p.get(base + '_text')!r}")
            elif pa.types.is_integer(kind) and not pa.types.is_date32(kind):
                if re.fullmatch(r"[+-]?\d+", text or ""):
                    if value != int(text): fail(f"{where}: {text!r} -> {value!r}")
                elif value is not None or (p.get(base + "_text") or "") != text:
                    fail(f"{where}: {text!r} -> {value!r} text {p.get(base + '_text')!r}")
            elif pa.types.is_date32(kind):
                try: day = (datetime.date.fromisoformat(text) - datetime.date(1970, 1, 1)).days if re.fullmatch(r"\d{4}-\d\d-\d\d", text) else None
                except ValueError: day = None
                if day is not None:
                    if value != day: fail(f"{where}: {text!r} -> {value!r}")
                elif value is not None or (p.get(base + "_text") or "") != text:
                    fail(f"{where}: {text!r} -> {value!r} text {p.get(base + '_text')!r}")
            else:
                if (value or "") != text: fail(f"{where}: {text!r} -> {value!r}")
    return len(csv_rows)

csv_files = [f for f in os.listdir(split) if f.endswith(".csv")]
tables = {}
for f in csv_files:
    name = f[:-4]
    tables.setdefault(name if name in FIXED else "records", []).append(os.path.join(split, f))

# What --split writes to `attributes` and `elements` is, in the dataset, on the row it belongs to:
# `extra` = {"attributes": [[name, value], ...], "children": [{"id", "element", "attributes", "text",
# "children"}, ...]}; an element of no table at the top level is a row of `elements` (no parent_id).
extras, nodes = {}, {}  # row id -> extra; JSON node id -> (node, parent id)
def walk(children, parent):
    for node in children:
        if node["id"] in nodes or node["id"] in extras: fail(f"extra: id {node['id']} twice")
        nodes[node["id"]] = (node, parent)
        walk(node.get("children", []), node["id"])
for table in sorted(d for d in os.listdir(dataset) if not d.startswith((".", "_"))):
    files = glob.glob(os.path.join(dataset, table, "**", "*.parquet"), recursive=True)
    if not files or "extra" not in pq.read_schema(files[0]).names: continue
    if str(pq.read_schema(files[0]).field("extra").type) != "string": fail(f"{table}.extra is not a string")
    for row in ds.dataset(os.path.join(dataset, table), format="parquet", partitioning="hive").to_table(columns=["id", "extra"]).to_pylist():
        if row["extra"] is None: continue
        extra = json.loads(row["extra"])
        if not extra or set(extra) - {"attributes", "children"}: fail(f"{table} id {row['id']}: extra {row['extra']!r}")
        extras[row["id"]] = extra
        walk(extra.get("children", []), row["id"])
embedded = set(nodes)
split_attributes = {}
if "attributes" in tables:
    for r in read_csv_rows(tables.pop("attributes"))[1]: split_attributes.setdefault(int(r["element_id"]), []).append([r["name"], r["value"]])
split_elements = read_csv_rows(tables.pop("elements"))[1] if "elements" in tables else []
top_level = {}
if os.path.isdir(os.path.join(dataset, "elements")):
    top_level = {r["id"]: r for r in ds.dataset(os.path.join(dataset, "elements"), format="parquet", partitioning="hive").to_table().to_pylist()}
    if "parent_id" in top_level.get(next(iter(top_level), None), {}): fail("elements has a parent_id column")
for r in split_elements:
    id, text = int(r["id"]), r["text"]
    if not r["parent_id"]:
        got = top_level.get(id)
        if got is None or got["element"] != r["element"] or (got["text"] or "") != text: fail(f"elements id {id}: {got} for {r}")
        continue
    node, parent = nodes.get(id, (None, None))
    if node is None or node["element"] != r["element"] or node.get("text", "") != text or parent != int(r["parent_id"]):
        fail(f"elements id {id}: {r} is not in its parent's extra ({node}, parent {parent})")
for id, pairs in split_attributes.items():
    got = (nodes[id][0] if id in nodes else extras.get(id, {})).get("attributes")
    if got != pairs: fail(f"attributes of id {id}: {pairs} in --split, {got} in parquet")
json_attributes = sum(len(e.get("attributes", [])) for e in extras.values()) + sum(len(n.get("attributes", [])) for n, _ in nodes.values())
for id, (node, _) in nodes.items():  # an element of a known kind inside one of no table: its own attributes
    if id not in split_attributes: json_attributes -= len(node.get("attributes", []))
if json_attributes != sum(map(len, split_attributes.values())): fail(f"extra: {json_attributes} attributes, --split {sum(map(len, split_attributes.values()))}")
if len(top_level) != sum(1 for r in split_elements if not r["parent_id"]): fail(f"elements: {len(top_level)} top-level rows")
counts = {"elements": len(split_elements), "attributes": sum(map(len, split_attributes.values())), "embedded": len(embedded)}
for table, paths in sorted(tables.items()):
    counts[table] = compare(table, sorted(paths))
on_disk = {d for d in os.listdir(dataset) if not d.startswith((".", "_"))}
expected_tables = {t for t in tables if counts[t]} | ({"elements"} if top_level or any(not r["parent_id"] for r in split_elements) else set())
if on_disk != expected_tables: fail(f"tables: parquet {sorted(on_disk)} split {sorted(expected_tables)}")
if "records" in tables:
    hive = duckdb.sql(f"select count(*), count(distinct type) from read_parquet('{dataset}/records/**/*.parquet', hive_partitioning = true)").fetchone()
    if hive[0] != counts["records"]: fail(f"duckdb hive_partitioning: {hive[0]} records, expected {counts['records']}")
    counts["duckdb_hive_types"] = hive[1]
    # Every record's type (a folder or a column) is its own identifier's short name.
    pairs = duckdb.sql(f"select type, type_identifier, count(*) from read_parquet('{dataset}/records/**/*.parquet', hive_partitioning = true) group by all").fetchall()
    for folder, identifier, _ in pairs:
        if folder != short_type(identifier): fail(f"duckdb hive_partitioning: type={folder} holds {identifier}")
    split_types = {}
    for path in tables["records"]:
        with open(path, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f): split_types[r["type"]] = split_types.get(r["type"], 0) + 1
    if {i: n for _, i, n in pairs} != split_types: fail(f"duckdb hive_partitioning: types {pairs} != {split_types}")

# The side files' tables: each reader's types, and their rows counted by healthport's info and apart.
SIDE_TYPES = {  # column: (pyarrow, duckdb, polars)
    "route_points": {"workout_id": ("int64", "BIGINT", "Int64"), "origin": ("string", "VARCHAR", "String"),
                     "position": ("int64", "BIGINT", "Int64"),
                     "time_utc": ("timestamp[us, tz=UTC]", "TIMESTAMP WITH TIME ZONE", "Datetime(time_unit='us', time_zone='UTC')"),
                     "time_offset_min": ("int32", "INTEGER", "Int32"), "time_text": ("string", "VARCHAR", "String"),
                     "latitude": ("double", "DOUBLE", "Float64"), "longitude": ("double", "DOUBLE", "Float64"),
                     "elevation": ("double", "DOUBLE", "Float64"), "vertical_accuracy": ("double", "DOUBLE", "Float64")},
    "ecg_recordings": {"id": ("int64", "BIGINT", "Int64"), "name": ("string", "VARCHAR", "String"),
                       "recorded_date_utc": ("timestamp[us, tz=UTC]", "TIMESTAMP WITH TIME ZONE", "Datetime(time_unit='us', time_zone='UTC')"),
                       "recorded_date_offset_min": ("int32", "INTEGER", "Int32"), "samples": ("int64", "BIGINT", "Int64"),
                       "sample_rate_hz": ("double", "DOUBLE", "Float64")},
    "ecg_samples": {"recording_id": ("int64", "BIGINT", "Int64"), "position": ("int64", "BIGINT", "Int64"),
                    "value": ("double", "DOUBLE", "Float64"), "value_text": ("string", "VARCHAR", "String")},
}

def independent_count(path):
    """GPX trkpts, inline Locations and ECG samples, read by zipfile and regular expressions."""
    members = {}
    if os.path.isdir(path):
        for root, _, names in os.walk(path):
            for n in names: members[os.path.relpath(os.path.join(root, n), path)] = open(os.path.join(root, n), "rb").read()
    elif zipfile.is_zipfile(path):
        z = zipfile.ZipFile(path)
        members = {n: z.read(n) for n in z.namelist() if not n.endswith("/")}
    else:
        # A lone export.xml: healthport reads the side-file folders beside it too.
        members = {os.path.basename(path): open(path, "rb").read()}
        for folder in ("workout-routes", "electrocardiograms"):
            beside = os.path.join(os.path.dirname(path), folder)
            if os.path.isdir(beside):
                for n in os.listdir(beside):
                    if os.path.isfile(os.path.join(beside, n)): members[folder + "/" + n] = open(os.path.join(beside, n), "rb").read()
    members = {n: d for n, d in members.items() if "__MACOSX" not in n and not os.path.basename(n).startswith("._")}
    export = next((d for d in members.values() if b"<HealthData" in d[:1 << 16]), b"")
    gpx = sum(d.count(b"<trkpt ") for n, d in members.items() if n.lower().endswith(".gpx"))
    inline = sum(block.count(b"<Location ") for block in re.findall(rb"<WorkoutRoute[^>]*>((?:(?!</WorkoutRoute>).)*)</WorkoutRoute>", export, re.S))
    ecgs = [d for n, d in members.items() if n.endswith(".csv") and d.startswith(b"Name")]
    number = re.compile(rb'^"?[-+]?\d+([.,]\d+)?"?$')
    samples = sum(sum(1 for line in d.split(b"\n") if number.match(line.strip(b"\r"))) for d in ecgs)
    return {"route_points": gpx + inline, "ecg_recordings": len(ecgs), "ecg_samples": samples}

for table, types in SIDE_TYPES.items():
    files = sorted(glob.glob(os.path.join(dataset, table, "**", "*.parquet"), recursive=True))
    if not files: continue
    arrow = pq.read_schema(files[0])
    duck = {name: kind for name, kind, *_ in duckdb.sql(f"describe select * from read_parquet('{dataset}/{table}/**/*.parquet')").fetchall()}
    polar = pl.read_parquet(files[0]).schema
    for column, (a, d, p) in types.items():
        got = (str(arrow.field(column).type) if column in arrow.names else None, duck.get(column), str(polar.get(column)))
        if got != (a, d, p): fail(f"{table}.{column}: types {got}, expected {(a, d, p)}")
    duck_rows = duckdb.sql(f"select count(*) from read_parquet('{dataset}/{table}/**/*.parquet')").fetchone()[0]
    polars_rows = pl.scan_parquet(f"{dataset}/{table}/**/*.parquet").select(pl.len()).collect().item()
    if not (duck_rows == polars_rows == counts.get(table)): fail(f"{table}: duckdb {duck_rows} polars {polars_rows} pyarrow {counts.get(table)} rows")
    if table != "ecg_samples":  # each row in the year of its own time (a folder or a column)
        column = "time" if table == "route_points" else "recorded_date"
        wrong = duckdb.sql(f"select count(*) from read_parquet('{dataset}/{table}/**/*.parquet', hive_partitioning = true) "
                           f"where coalesce(year::varchar, '__HIVE_DEFAULT_PARTITION__') is distinct from coalesce(year(({column}_utc at time zone 'UTC') + to_minutes({column}_offset_min))::varchar, '__HIVE_DEFAULT_PARTITION__')").fetchone()[0]
        if wrong: fail(f"{table}: {wrong} rows in another year's folder")
if source is not None:
    apart = independent_count(source)
    counts["independent"] = apart
    for table, n in apart.items():
        if counts.get(table, 0) != n: fail(f"{table}: {counts.get(table, 0)} rows in parquet, {n} counted apart")
if info is not None:
    by_info = {"route_points": info.get("routePointCount", 0) + info.get("inlineRoutePointCount", 0),
               "ecg_recordings": info.get("ecgRecordingCount", 0), "ecg_samples": info.get("ecgSampleCount", 0)}
    for table, n in by_info.items():
        if counts.get(table, 0) != n: fail(f"{table}: {counts.get(table, 0)} rows in parquet, {n} by healthport info")
print(json.dumps({"counts": counts, "problems": problems}))
sys.exit(1 if problems else 0)
