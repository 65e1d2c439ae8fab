#!/usr/bin/env bash
# `make bench`: speed and memory on both generators' exports, written to docs/benchmarks.md.
#
#   1. swift build -c release --product healthport           (skip with BENCH_NO_BUILD=1)
#   2. Benchmarks/bench.sh on each generator (BENCH_GENERATOR=own, then gen_export): its 1 GB export
#      (BENCH_MB) and its 100 MB one (BENCH_SMALL_MB), made once and cached under .bench/<generator>/;
#      the commands of BENCH_ONLY, each interleaved with the floor
#   3. Benchmarks/peak_memory.sh on the four exports (two threads, every command issue 33 bounds)
#   4. with BENCH_HUGE=1, gen_export's 4.2 GB export (`--mb 4600 --seed 77`) and its zip too
#      (about 10 GB of disk: the export, the zip, a 3 GB database)
#   5. the tables, with the date, commit, machine load and inputs, replace the part of
#      docs/benchmarks.md between its `bench:begin` and `bench:end` markers (and go to
#      .bench/bench-all.md)
#
# Environment: BENCH_MB (1000), BENCH_SMALL_MB (100), BENCH_RUNS (3), BENCH_ONLY (the commands timed;
# default below), BENCH_HUGE=1, BENCH_NO_BUILD=1, BENCH_DOCS=path (default docs/benchmarks.md;
# /dev/null writes nothing), BENCH_GENERATORS="own gen_export", HEALTHPORT=path.

set -uo pipefail
export LC_ALL=C
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2

BENCH_MB="${BENCH_MB:-1000}"
BENCH_SMALL_MB="${BENCH_SMALL_MB:-100}"
GENERATORS="${BENCH_GENERATORS:-own gen_export}"
DOCS="${BENCH_DOCS:-docs/benchmarks.md}"
HEALTHPORT="${HEALTHPORT:-.build/release/healthport}"
export HEALTHPORT BENCH_RUNS="${BENCH_RUNS:-3}"
[[ -n "${BENCH_ONLY:-}" ]] && BENCH_ONLY_SET=1
export BENCH_ONLY="${BENCH_ONLY:-info,convert-csv,convert-jsonl,convert-parquet,convert-xml,steps,stats,workouts-summary,load}"
OUT=.bench/bench-all.md
mkdir -p .bench || exit 2

if [[ "${BENCH_NO_BUILD:-0}" != 1 ]]; then
  swift build -c release --product healthport >&2 || { echo "bench: release build FAILED" >&2; exit 2; }
fi

status=0
memory_inputs=()
{
  echo "Run: $(date -u '+%Y-%m-%d %H:%M UTC'), commit \`$(git rev-parse --short HEAD 2>/dev/null || echo '?')\`," \
    "$(nproc) CPUs, load average at the start $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  for generator in $GENERATORS; do
    seed=1
    [[ "$generator" == gen_export ]] && seed=7
    dir=".bench/$generator"
    echo "### Speed: \`$generator\` generator, $BENCH_MB MB (seed $seed)"
    echo
    echo '```'
    # The PostgreSQL load (issue 34's target: at most 1.5 times `load`) on gen_export's export only.
    only=$BENCH_ONLY
    [[ "$generator" == gen_export && -z "${BENCH_ONLY_SET:-}" ]] && only="$only,load-postgres"
    BENCH_GENERATOR=$generator BENCH_DIR=$dir BENCH_SEED=$seed BENCH_MB=$BENCH_MB BENCH_SMALL_MB=$BENCH_SMALL_MB \
      BENCH_ONLY=$only BENCH_NO_BUILD=1 BENCH_NO_HEALTHKIT=1 bash Benchmarks/bench.sh || status=1
    echo '```'
    echo
    [[ "$BENCH_SMALL_MB" != 0 && -s "$dir/export-small.xml" ]] && memory_inputs+=("$dir/export-small.xml")
    [[ -s "$dir/export.xml" ]] && memory_inputs+=("$dir/export.xml")
  done
  if [[ "${BENCH_HUGE:-0}" == 1 ]]; then
    echo "### Speed: \`gen_export\` generator, 4,600 MB (seed 77)"
    echo
    echo '```'
    BENCH_GENERATOR=gen_export BENCH_DIR=.bench/huge BENCH_SEED=77 BENCH_MB=4600 BENCH_SMALL_MB=0 \
      BENCH_CEILING=0 BENCH_NO_BUILD=1 BENCH_NO_HEALTHKIT=1 bash Benchmarks/bench.sh || status=1
    echo '```'
    echo
    memory_inputs+=(.bench/huge/export.xml .bench/huge/export.zip)
  fi
  echo "### Peak memory"
  echo
  bash Benchmarks/peak_memory.sh "${memory_inputs[@]}" || status=1
} > "$OUT.tmp"
mv -f "$OUT.tmp" "$OUT"
cat "$OUT"

# The results between the markers of the docs page; the rest of the page is kept.
if [[ "$DOCS" != /dev/null ]]; then
  python3 - "$DOCS" "$OUT" << 'EOF' || status=1
import sys
page, results = sys.argv[1], open(sys.argv[2], encoding="utf-8").read()
text = open(page, encoding="utf-8").read()
begin, end = "<!-- bench:begin -->", "<!-- bench:end -->"
if begin not in text or end not in text:
    sys.exit(f"bench: {page} has no {begin} … {end} markers")
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(page + ".tmp", "w", encoding="utf-8").write(head + begin + "\n" + results.rstrip() + "\n" + end + tail)
import os
os.replace(page + ".tmp", page)
EOF
fi
exit $status
