#!/usr/bin/env bash
# `make bench`: speed and memory on both generators' exports, written to docs/benchmarks.md.
#
#   1. swift build -c release --product healthport           (skip with BENCH_NO_BUILD=1)
#   2. Benchmarks/bench.sh on each generator (BENCH_GENERATOR=own, then gen_export): its 1 GB export
#      (BENCH_MB) and its 100 MB one (BENCH_SMALL_MB), made once and cached under .bench/<generator>/;
#      the commands of BENCH_ONLY, each interleaved with the floor (and `load-postgres` on gen_export's)
#   3. Benchmarks/peak_memory.sh on the four exports and gen_export's 1 GB zip (two threads, every
#      command issue 33 bounds)
#   4. with BENCH_HUGE=1, gen_export's 4.2 GB export (`--mb 4600 --seed 77`) and its zip too
#      (about 10 GB of disk: the export, the zip, a 3 GB database)
#   5. Benchmarks/callgrind_ratios.sh on gen_export's 20 MB export (`--mb 20 --seed 7`, cached in
#      .bench/callgrind/; a few minutes, beside step 3; BENCH_CALLGRIND=0 skips it)
#   6. the targets (issues 33 and 34) beside the measured ratios, wall and callgrind, and whether each holds
#   7. Benchmarks/bench_bundle.sh, the whole export (BENCH_BUNDLE_MB=0 skips it)
#   8. Benchmarks/load_vs_healthkit.sh, `load` against healthkit-to-sqlite (BENCH_NO_HEALTHKIT=1 skips it)
#   9. the tables, with the date, commit, machine load and inputs, replace the part of
#      docs/benchmarks.md between its `bench:begin` and `bench:end` markers (and go to
#      .bench/bench-all.md); every figure the README and docs/ give comes from there
#
# Environment: BENCH_MB (1000), BENCH_SMALL_MB (100), BENCH_RUNS (3), BENCH_ONLY (the commands timed;
# default below), BENCH_HUGE=1, BENCH_NO_BUILD=1, BENCH_DOCS=path (default docs/benchmarks.md;
# /dev/null writes nothing), BENCH_GENERATORS="own gen_export", BENCH_CALLGRIND=0, BENCH_BUNDLE_MB
# (1000; BENCH_BUNDLE_GPX_MB too, see bench_bundle.sh), BENCH_NO_HEALTHKIT=1, HEALTHPORT=path.

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

STARTED=$(date -u '+%Y-%m-%d %H:%M UTC')
SECONDS=0
LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
if [[ "${BENCH_NO_BUILD:-0}" != 1 ]]; then
  swift build -c release --product healthport >&2 || { echo "bench: release build FAILED" >&2; exit 2; }
fi

status=0
memory_inputs=()
SECTIONS=.bench/sections
rm -rf "$SECTIONS" && mkdir -p "$SECTIONS" || exit 2

# 2. Speed on each generator's BENCH_MB export (4. and the huge one).
for generator in $GENERATORS; do
  seed=1
  [[ "$generator" == gen_export ]] && seed=7
  dir=".bench/$generator"
  rm -f "$dir/results.tsv"
  {
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
  } > "$SECTIONS/speed-$generator.md"
  [[ "$BENCH_SMALL_MB" != 0 && -s "$dir/export-small.xml" ]] && memory_inputs+=("$dir/export-small.xml")
  [[ -s "$dir/export.xml" ]] && memory_inputs+=("$dir/export.xml")
  # The zip of gen_export's (issue 33 bounds the xml and its zip): read as a stream, cut into
  # ranges as it inflates, it peaks higher than the file.
  [[ "$generator" == gen_export && -s "$dir/export.zip" ]] && memory_inputs+=("$dir/export.zip")
done
if [[ "${BENCH_HUGE:-0}" == 1 ]]; then
  {
    echo "### Speed: \`gen_export\` generator, 4,600 MB (seed 77)"
    echo
    echo '```'
    BENCH_GENERATOR=gen_export BENCH_DIR=.bench/huge BENCH_SEED=77 BENCH_MB=4600 BENCH_SMALL_MB=0 \
      BENCH_CEILING=0 BENCH_NO_BUILD=1 BENCH_NO_HEALTHKIT=1 bash Benchmarks/bench.sh || status=1
    echo '```'
    echo
  } > "$SECTIONS/speed-huge.md"
  memory_inputs+=(.bench/huge/export.xml .bench/huge/export.zip)
fi

# 5. Instructions: Benchmarks/callgrind_ratios.sh on gen_export's 20 MB export (made once, cached),
# in the background while 3. measures peak memory: neither depends on the machine's load, and the
# two overlapping keep `make bench` within its 30 minutes.
CG=.bench/callgrind
rm -f "$CG/ratios.tsv"
instructions() {
  local gen="${BENCH_GEN_EXPORT:-../shared/bench/gen_export.py}" stamp result=0
  stamp="mb=20 seed=7 $(sha256sum "$gen" 2> /dev/null | cut -c1-16)"
  mkdir -p "$CG" || return 2
  if [[ -f "$gen" && (! -s "$CG/export.xml" || "$(cat "$CG/export.params" 2> /dev/null)" != "$stamp") ]]; then
    echo "bench: generating $CG/export.xml (gen_export, 20 MB, seed 7)" >&2
    if python3 "$gen" --mb 20 --version 14 --seed 7 -o "$CG/export.xml.tmp" > /dev/null; then
      mv -f "$CG/export.xml.tmp" "$CG/export.xml" && echo "$stamp" > "$CG/export.params"
    else
      result=1
    fi
  fi
  echo "### Instructions"
  echo
  if [[ -s "$CG/export.xml" ]]; then
    echo "\`gen_export\`'s 20 MB export (\`--mb 20 --version 14 --seed 7\`), one run each:"
    echo
    CG_TSV="$CG/ratios.tsv" HEALTHPORT_THREADS=2 bash Benchmarks/callgrind_ratios.sh "$CG/export.xml" || result=1
  else
    echo "Not measured: no \`gen_export\` generator at $gen."
  fi
  echo
  return $result
}
cg_pid=""
if [[ "${BENCH_CALLGRIND:-1}" != 0 ]]; then
  instructions > "$SECTIONS/instructions.md" &
  cg_pid=$!
fi

# 3. Peak memory on every export.
{
  echo "### Peak memory"
  echo
  if ((${#memory_inputs[@]})); then
    bash Benchmarks/peak_memory.sh "${memory_inputs[@]}" || status=1
  else
    echo "Not measured: no export."
  fi
  echo
} > "$SECTIONS/memory.md"
[[ -z "$cg_pid" ]] || wait "$cg_pid" || status=1

# 6. The targets: issue 33's, on gen_export's BENCH_MB export (wall) and its 20 MB one (callgrind);
# issue 34's, load-postgres against load. Wall ratios drift with the machine, instruction counts do not.
PYTHONIOENCODING=utf-8 python3 - .bench/gen_export/results.tsv "$CG/ratios.tsv" "$BENCH_MB" > "$SECTIONS/targets.md" << 'PY' || status=1
import os
import sys

wall_path, callgrind_path, mb = sys.argv[1:4]


def rows(path):
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as lines:
        return {f[0]: f[1:] for f in (line.rstrip("\n").split("\t") for line in lines) if f[0]}


def fmt(value):
    return "–" if value is None else f"{value:.2f}"


def holds(value, target, at_most=False):
    if value is None:
        return "–"
    return "yes" if (value <= target if at_most else value >= target) else "no"


wall, callgrind = rows(wall_path), rows(callgrind_path)
# (bench.sh's name, callgrind_ratios.sh's name, at least this many times the floor's speed)
targets = [
    ("info", "info", 1.67),
    ("convert-csv", "convert --to csv", 1.33),
    ("convert-jsonl", "convert --to jsonl", 1.33),
    ("convert-parquet", "convert --to parquet", 1.0),
    ("load", "load", 0.59),
]
print("### Targets")
print()
print(f"Speed as the floor's time over the command's (higher is faster), two threads: wall on `gen_export`'s")
print(f"{mb} MB export (`× floor`, the medians' ratio, and `paired`) and instructions on its 20 MB export")
print("(the floor's over the command's busiest thread, and over all its threads). A target holds on")
print("instructions when the busiest thread's ratio reaches it, on wall time when `paired` does.")
print()
print("| command | target | × floor | paired | callgrind, busiest | callgrind, all | holds (callgrind) | holds (paired) |")
print("|---|---|---|---|---|---|---|---|")
for name, callgrind_name, target in targets:
    ratio = paired = busiest = every = None
    if name in wall:
        ratio, paired = float(wall[name][1]), float(wall[name][2])
    if callgrind_name in callgrind:
        most, total, floor = (float(x) for x in callgrind[callgrind_name])
        busiest, every = floor / most, floor / total
    print(
        f"| `{name}` | ≥ {target:.2f} | {fmt(ratio)} | {fmt(paired)} | {fmt(busiest)} | {fmt(every)} "
        f"| {holds(busiest, target)} | {holds(paired, target)} |"
    )
if "load-postgres" in wall and "load" in wall:
    pg, load = wall["load-postgres"], wall["load"]
    medians = float(pg[0]) / float(load[0]) if float(load[0]) > 0 else None
    # paired is floor / command, so load's over load-postgres's is load-postgres's time over load's.
    paired = float(load[2]) / float(pg[2]) if float(pg[2]) > 0 else None
    print()
    print("`load-postgres` (a new PostgreSQL store) against `load` (a new SQLite file), wall time on the same")
    print("export, each run paired with a floor run:")
    print()
    print("| | target | time ratio, medians | time ratio, paired | holds (paired) |")
    print("|---|---|---|---|---|")
    print(f"| `load-postgres` / `load` | ≤ 1.50 | {fmt(medians)} | {fmt(paired)} | {holds(paired, 1.5, at_most=True)} |")
print()
PY

# 7. The whole export (Benchmarks/bench_bundle.sh; BENCH_BUNDLE_MB=0 skips it).
if [[ "${BENCH_BUNDLE_MB:-1000}" != 0 ]]; then
  {
    echo "### The whole export"
    echo
    echo '```'
    bash Benchmarks/bench_bundle.sh || status=1
    echo '```'
    echo
  } > "$SECTIONS/bundle.md"
fi

# 8. load against healthkit-to-sqlite (Benchmarks/load_vs_healthkit.sh; BENCH_NO_HEALTHKIT=1 skips it).
if [[ "${BENCH_NO_HEALTHKIT:-0}" != 1 ]]; then
  {
    echo "### \`load\` against healthkit-to-sqlite"
    echo
    echo '```'
    bash Benchmarks/load_vs_healthkit.sh || status=1
    echo '```'
    echo
  } > "$SECTIONS/healthkit.md"
fi

{
  echo "Run: $STARTED, commit \`$(git rev-parse --short HEAD 2>/dev/null || echo '?')\`," \
    "$(nproc) CPUs, load average at the start $LOAD_AT_START; $(((SECONDS + 59) / 60)) minutes in all."
  echo
  for section in targets speed-own speed-gen_export speed-huge instructions memory bundle healthkit; do
    [[ -f "$SECTIONS/$section.md" ]] && cat "$SECTIONS/$section.md"
  done
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
