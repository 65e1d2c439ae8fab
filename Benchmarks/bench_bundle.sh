#!/usr/bin/env bash
# Benchmark the whole export: a generated bundle (BENCH_BUNDLE_MB of export.xml plus
# BENCH_BUNDLE_GPX_MB of GPX routes, two ECGs) read by `convert --to csv --split` and `load`,
# against the floor (Benchmarks/sax_floor.c over export.xml and every GPX file, in one process),
# and the zip round trip (`--to zip`, and `--to jsonl` then `--to zip`), checked byte for byte.
# Throughput is over all the XML bytes (export.xml + GPX); peak RSS from /usr/bin/time; the
# issue's limits (0.6 x floor for --split, 40 MB for --split, 96 MB for load) are checked.
#
# Environment: BENCH_BUNDLE_MB=1000, BENCH_BUNDLE_GPX_MB=300, BENCH_RUNS=3, BENCH_SEED=1,
# HEALTHPORT=path (default .build/release/healthport), BENCH_DIR=.bench. Results go to
# BENCH_DIR/bundle-results.txt.
# `make bench` (Benchmarks/bench_all.sh) runs it and puts its table in docs/benchmarks.md;
# BENCH_BUNDLE_MB=0 skips it.

set -uo pipefail
export LC_ALL=C
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2

MB="${BENCH_BUNDLE_MB:-1000}"
GPX_MB="${BENCH_BUNDLE_GPX_MB:-300}"
RUNS="${BENCH_RUNS:-3}"
SEED="${BENCH_SEED:-1}"
HEALTHPORT="${HEALTHPORT:-.build/release/healthport}"
DIR="${BENCH_DIR:-.bench}"
BUNDLE="$DIR/bundle"
[[ "$MB" == 0 ]] && exit 0
mkdir -p "$DIR" || exit 2

stamp="$MB $GPX_MB $SEED $(cksum < Benchmarks/generate_export.py) $(cksum < Benchmarks/generate_bundle.py)"
if [[ ! -f "$BUNDLE/export.zip" || "$(cat "$BUNDLE/.stamp" 2>/dev/null)" != "$stamp" ]]; then
  rm -rf "$BUNDLE"
  echo "bench-bundle: generating a ${MB} MB export with ${GPX_MB} MB of GPX in $BUNDLE" >&2
  python3 Benchmarks/generate_export.py --size-mb "$MB" --gpx-mb "$GPX_MB" --seed "$SEED" --bundle "$BUNDLE" --quiet \
    || exit 2
  echo "$stamp" > "$BUNDLE/.stamp"
fi
FLOOR="$DIR/sax_floor"
if [[ ! -x "$FLOOR" || Benchmarks/sax_floor.c -nt "$FLOOR" ]]; then
  cc -O2 -o "$FLOOR" Benchmarks/sax_floor.c $(pkg-config --cflags --libs libxml-2.0) || exit 2
fi
TOP="$BUNDLE/apple_health_export"
mapfile -t GPX < <(ls "$TOP"/workout-routes/*.gpx)
XML_BYTES=$(cat "$TOP/export.xml" "${GPX[@]}" | wc -c)

# run NAME COMMAND...: best wall seconds and highest peak RSS (KB) of RUNS runs.
declare -A BEST RSS
run() {
  local name=$1
  shift
  for ((i = 0; i < RUNS; i++)); do
    rm -rf "$DIR/bundle-split" "$DIR/bundle.db" "$DIR/bundle.db-wal" "$DIR/bundle.db-shm" "$DIR/bundle-copy.zip"
    local start=$EPOCHREALTIME
    /usr/bin/time -f %M -o "$DIR/bundle.rss" "$@" > /dev/null 2> "$DIR/bundle-$name.stderr" || {
      echo "bench-bundle: $name FAILED" >&2
      BEST[$name]=FAILED
      return
    }
    local seconds
    seconds=$(echo "$EPOCHREALTIME - $start" | bc -l)
    local rss
    rss=$(tail -1 "$DIR/bundle.rss")
    if [[ -z "${BEST[$name]:-}" ]] || (($(echo "$seconds < ${BEST[$name]}" | bc -l))); then BEST[$name]=$seconds; fi
    if [[ -z "${RSS[$name]:-}" ]] || ((rss > RSS[$name])); then RSS[$name]=$rss; fi
  done
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
cat "$TOP/export.xml" "${GPX[@]}" > /dev/null  # warm the page cache
run floor "$FLOOR" "$TOP/export.xml" "${GPX[@]}"
run split-folder "$HEALTHPORT" convert "$TOP" --to csv --split -o "$DIR/bundle-split" --quiet
run split-zip "$HEALTHPORT" convert "$BUNDLE/export.zip" --to csv --split -o "$DIR/bundle-split" --quiet
run load-zip "$HEALTHPORT" load "$BUNDLE/export.zip" --db "$DIR/bundle.db" --quiet
run zip-to-zip "$HEALTHPORT" convert "$BUNDLE/export.zip" --to zip -o "$DIR/bundle-copy.zip" --quiet
python3 Tests/Clients/compare_bundles.py "$BUNDLE/export.zip" "$DIR/bundle-copy.zip" --order > "$DIR/bundle-compare.txt" \
  && IDENTICAL="zip-to-zip: every member byte-identical, in order" || IDENTICAL="zip-to-zip: DIFFERS (see $DIR/bundle-compare.txt)"
run zip-to-jsonl "$HEALTHPORT" convert "$BUNDLE/export.zip" --to jsonl -o "$DIR/bundle.jsonl" --quiet
run jsonl-to-zip "$HEALTHPORT" convert "$DIR/bundle.jsonl" --to zip -o "$DIR/bundle-copy.zip" --quiet
python3 Tests/Clients/compare_bundles.py "$BUNDLE/export.zip" "$DIR/bundle-copy.zip" --order >> "$DIR/bundle-compare.txt" \
  && IDENTICAL="$IDENTICAL; via JSON Lines: byte-identical" || IDENTICAL="$IDENTICAL; via JSON Lines: DIFFERS"
rm -f "$DIR/bundle.jsonl" "$DIR/bundle-copy.zip"
run floor-again "$FLOOR" "$TOP/export.xml" "${GPX[@]}"
floor=${BEST[floor]}
if (($(echo "${BEST[floor-again]} < $floor" | bc -l))); then floor=${BEST[floor-again]}; fi

{
  echo "bundle: $(du -b "$TOP/export.xml" | cut -f1) bytes of export.xml, ${#GPX[@]} GPX files, $XML_BYTES XML bytes in all; best of $RUNS"
  echo "load average before / after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) processors)"
  printf '%-14s %8s %8s %8s %10s\n' command s MB/s "x floor" "peak RSS"
  for name in floor split-folder split-zip load-zip zip-to-zip zip-to-jsonl jsonl-to-zip; do
    s=${BEST[$name]}
    if [[ "$s" == FAILED ]]; then printf '%-14s FAILED\n' "$name"; continue; fi
    printf '%-14s %8.2f %8.1f %8.2f %7d MB\n' "$name" "$s" "$(echo "$XML_BYTES / 1000000 / $s" | bc -l)" \
      "$(echo "$floor / $s" | bc -l)" "$((RSS[$name] / 1024))"
  done
  echo "$IDENTICAL"
  verdict() { if (($1)); then echo "ok"; else echo "OVER"; fi; }
  if [[ "${BEST[split-zip]}" != FAILED && "${BEST[load-zip]}" != FAILED ]]; then
    echo "limits: --split >= 0.6 x floor (folder): $(verdict "$(echo "$floor / ${BEST[split-folder]} >= 0.6" | bc -l)")," \
      "--split peak < 40 MB: $(verdict "${RSS[split-zip]} < 40 * 1024 && ${RSS[split-folder]} < 40 * 1024")," \
      "load peak < 96 MB: $(verdict "${RSS[load-zip]} < 96 * 1024")"
  fi
} | tee "$DIR/bundle-results.txt"
