/// The Python that reads the files back with pyarrow, DuckDB and Polars and compares them with what the
/// test wrote (given as JSON). Expected statistics are computed here from the written values, not by the writer.
enum ClientReaderScripts {
  /// Arguments: the Parquet file, the expected JSON. Prints one `ok READER` line per reader; an assertion
  /// failure exits non-zero with the reason on stderr.
  static let compareAll = #"""
    import json, math, sys
    import duckdb, polars as pl, pyarrow as pa, pyarrow.parquet as pq

    path, expected_path = sys.argv[1], sys.argv[2]
    with open(expected_path) as f:
        expected = json.load(f)
    columns = expected["columns"]

    def decode(kind, v):
        if v is None: return None
        if kind == "double": return float(v)
        if kind == "binary": return bytes.fromhex(v)
        return v

    for c in columns:
        c["decoded"] = [decode(c["kind"], v) for v in c["values"]]
    rows = len(columns[0]["decoded"])

    def same(kind, a, b):
        if a is None or b is None: return a is None and b is None
        if kind == "double":
            if math.isnan(a) or math.isnan(b): return math.isnan(a) and math.isnan(b)
            return a == b and math.copysign(1, a) == math.copysign(1, b)
        return a == b

    def check_values(reader, name, kind, got, want):
        assert len(got) == len(want), f"{reader} {name}: {len(got)} values, want {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert same(kind, g, w), f"{reader} {name}[{i}]: {g!r}, want {w!r}"

    def raw_bounds(kind, values):
        ordered = [v for v in values if v is not None and not (kind == "double" and math.isnan(v))]
        if kind == "string": ordered = [v.encode() for v in ordered]
        if not ordered: return None
        return min(ordered), max(ordered)

    # pyarrow: types, values, and every row group's statistics.
    arrow_types = {"boolean": pa.bool_(), "int32": pa.int32(), "int64": pa.int64(), "double": pa.float64(),
                   "string": pa.string(), "date": pa.date32(), "timestamp": pa.timestamp("us", tz="UTC"),
                   "binary": pa.binary()}
    table = pq.read_table(path)
    assert table.num_rows == rows, f"pyarrow: {table.num_rows} rows, want {rows}"
    for c in columns:
        field = table.schema.field(c["name"])
        assert field.type == arrow_types[c["kind"]], f"pyarrow {c['name']}: type {field.type}"
        assert field.nullable == c["optional"], f"pyarrow {c['name']}: nullable {field.nullable}"
        column = table.column(c["name"])
        if c["kind"] == "date": column = column.cast(pa.int32())
        if c["kind"] == "timestamp": column = column.cast(pa.int64())
        check_values("pyarrow", c["name"], c["kind"], column.to_pylist(), c["decoded"])
    metadata = pq.ParquetFile(path).metadata
    assert metadata.num_row_groups == len(expected["row_groups"]), f"row groups {metadata.num_row_groups}"
    start = 0
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        assert group.num_rows == expected["row_groups"][g], f"row group {g}: {group.num_rows} rows"
        for j, c in enumerate(columns):
            chunk = group.column(j)
            assert chunk.compression == expected["codec"], f"{c['name']}: codec {chunk.compression}"
            stats = chunk.statistics
            assert stats is not None, f"row group {g} {c['name']}: no statistics"
            part = c["decoded"][start:start + group.num_rows]
            nulls = sum(v is None for v in part)
            assert stats.null_count == nulls, f"row group {g} {c['name']}: null_count {stats.null_count}, want {nulls}"
            bounds = raw_bounds(c["kind"], part)
            if bounds is None:
                assert not stats.has_min_max, f"row group {g} {c['name']}: min/max on a chunk without values"
            else:
                assert stats.has_min_max, f"row group {g} {c['name']}: no min/max"
                got = (stats.min_raw, stats.max_raw)
                assert got == bounds, f"row group {g} {c['name']}: bounds {got!r}, want {bounds!r}"
        start += group.num_rows
    print("ok pyarrow")

    # DuckDB: types, values, and parquet_metadata's codec, null counts and bounds.
    duck_types = {"boolean": "BOOLEAN", "int32": "INTEGER", "int64": "BIGINT", "double": "DOUBLE",
                  "string": "VARCHAR", "date": "DATE", "timestamp": "TIMESTAMP WITH TIME ZONE", "binary": "BLOB"}
    con = duckdb.connect()
    described = {r[0]: r[1] for r in con.execute("DESCRIBE SELECT * FROM read_parquet(?)", [path]).fetchall()}
    def select(c):
        q = '"' + c["name"] + '"'
        if c["kind"] == "date": return f"CAST({q} - DATE '1970-01-01' AS INTEGER)"
        if c["kind"] == "timestamp": return f"epoch_us({q})"
        return q
    result = con.execute("SELECT " + ", ".join(select(c) for c in columns) + " FROM read_parquet(?)", [path]).fetchall()
    for j, c in enumerate(columns):
        assert described[c["name"]] == duck_types[c["kind"]], f"duckdb {c['name']}: type {described[c['name']]}"
        got = [bytes(r[j]) if c["kind"] == "binary" and r[j] is not None else r[j] for r in result]
        check_values("duckdb", c["name"], c["kind"], got, c["decoded"])
    meta = con.execute(
        "SELECT row_group_id, path_in_schema, compression, stats_null_count, stats_min_value, stats_max_value, "
        "encodings FROM parquet_metadata(?) ORDER BY row_group_id, column_id", [path]).fetchall()
    assert len(meta) == metadata.num_row_groups * len(columns), f"duckdb metadata rows {len(meta)}"
    encodings = {}
    start = 0
    for group_id, name, codec, null_count, low, high, used in meta:
        c = next(c for c in columns if c["name"] == name)
        assert codec == expected["codec"], f"duckdb {name}: codec {codec}"
        part = c["decoded"][start:start + expected["row_groups"][group_id]]
        assert null_count == sum(v is None for v in part), f"duckdb {name}: null count {null_count}"
        bounds = raw_bounds(c["kind"], part)
        # DuckDB shows no bound where it is infinite (so too for files pyarrow writes).
        shown = lambda b: b is not None and not (c["kind"] == "double" and math.isinf(b))
        assert (low is not None) == shown(bounds and bounds[0]), f"duckdb {name}: min {low}, want {bounds}"
        assert (high is not None) == shown(bounds and bounds[1]), f"duckdb {name}: max {high}, want {bounds}"
        if bounds is not None and c["kind"] in ("int32", "int64"):
            assert (low, high) == (str(bounds[0]), str(bounds[1])), f"duckdb {name}: bounds {low} {high}"
        encodings.setdefault(name, set()).update(e.strip() for e in used.split(","))
        if name == columns[-1]["name"]: start += expected["row_groups"][group_id]
    for name, want in expected.get("encodings", {}).items():
        assert set(want) <= encodings[name], f"duckdb {name}: encodings {sorted(encodings[name])}, want {want}"
    print("ok duckdb")

    # Polars: types and values.
    polars_types = {"boolean": pl.Boolean, "int32": pl.Int32, "int64": pl.Int64, "double": pl.Float64,
                    "string": pl.String, "date": pl.Date, "timestamp": pl.Datetime("us", "UTC"), "binary": pl.Binary}
    frame = pl.read_parquet(path)
    assert frame.height == rows, f"polars: {frame.height} rows"
    for c in columns:
        series = frame[c["name"]]
        assert series.dtype == polars_types[c["kind"]], f"polars {c['name']}: type {series.dtype}"
        if c["kind"] == "date": series = series.cast(pl.Int32)
        if c["kind"] == "timestamp": series = series.cast(pl.Int64)
        check_values("polars", c["name"], c["kind"], series.to_list(), c["decoded"])
    print("ok polars")
    """#

  /// Arguments: the Parquet file, the row count. The million-row file: `n` is row i's INT64 `i * 7 - 3000000`,
  /// `type` its STRING `"type" + str(i % 37)`, `x` an optional DOUBLE `i / 4`, null where `i % 10 == 0`.
  static let millionRows = #"""
    import sys
    import duckdb, polars as pl, pyarrow.parquet as pq

    path, rows = sys.argv[1], int(sys.argv[2])
    want_sum = sum(i * 7 - 3000000 for i in range(rows))
    want_x = sum(i / 4 for i in range(rows) if i % 10 != 0)
    want_nulls = sum(1 for i in range(rows) if i % 10 == 0)

    table = pq.read_table(path)
    assert table.num_rows == rows, table.num_rows
    n = table.column("n").to_pylist()
    assert n == [i * 7 - 3000000 for i in range(rows)], "pyarrow n"
    assert table.column("type").to_pylist() == ["type" + str(i % 37) for i in range(rows)], "pyarrow type"
    x = table.column("x").to_pylist()
    assert x == [None if i % 10 == 0 else i / 4 for i in range(rows)], "pyarrow x"
    metadata = pq.ParquetFile(path).metadata
    for g in range(metadata.num_row_groups):
        s = metadata.row_group(g).column(0).statistics
        assert s is not None and s.has_min_max, f"row group {g}: no statistics"
    print("ok pyarrow", metadata.num_row_groups)

    con = duckdb.connect()
    count, total, types, x_sum, x_nulls = con.execute(
        "SELECT count(*), sum(n), count(DISTINCT type), sum(x), count(*) - count(x) FROM read_parquet(?)", [path]).fetchone()
    assert (count, total, types, x_nulls) == (rows, want_sum, 37, want_nulls), (count, total, types, x_nulls)
    assert abs(x_sum - want_x) < 1e-6 * want_x, x_sum
    print("ok duckdb")

    frame = pl.read_parquet(path)
    assert frame.height == rows
    assert frame["n"].sum() == want_sum, frame["n"].sum()
    assert frame["type"].n_unique() == 37
    assert frame["x"].null_count() == want_nulls
    print("ok polars")
    """#
}
