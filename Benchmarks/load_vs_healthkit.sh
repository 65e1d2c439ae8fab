#!/usr/bin/env bash
# `healthport load` against healthkit-to-sqlite 1.0.1 on the same export.xml, side by side.
#
#   1. install healthkit-to-sqlite==1.0.1 from PyPI into its own venv, .bench/venv-healthkit
#      (once; never into .venv-clients)
#   2. generate .bench/load29.xml (python3 Benchmarks/generate_export.py --size-mb LOAD_MB, seed 1)
#      unless it is there
#   3. warm the page cache, then run both LOAD_RUNS times, interleaved (healthport, then
#      healthkit-to-sqlite, then healthport …), each into a database that does not exist yet,
#      timed with EPOCHREALTIME; peak RSS by /usr/bin/time
#   4. print the median of each, the ratio, and write .bench/load_vs_healthkit.txt
#
# Environment: LOAD_MB=29, LOAD_RUNS=5, HEALTHPORT=.build/release/healthport (built by `make bench`
# or `swift build -c release --product healthport`).
# Exit status: 0 when healthport is at least LOAD_TARGET=8 times as fast, 1 when not, 2 on setup errors.

set -uo pipefail
export LC_ALL=C
(( BASH_VERSINFO[0] >= 5 )) || { echo "load_vs_healthkit: needs bash 5 (EPOCHREALTIME)" >&2; exit 2; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2
LOAD_MB="${LOAD_MB:-29}"
LOAD_RUNS="${LOAD_RUNS:-5}"
LOAD_TARGET="${LOAD_TARGET:-8}"
HEALTHPORT="${HEALTHPORT:-.build/release/healthport}"
DIR=.bench
VENV="$DIR/venv-healthkit"
IN="$DIR/load${LOAD_MB}.xml"
mkdir -p "$DIR"

note() { echo "load_vs_healthkit: $*" >&2; }

[[ -x "$HEALTHPORT" ]] || { note "no binary at $HEALTHPORT (swift build -c release --product healthport)"; exit 2; }
if [[ ! -x "$VENV/bin/healthkit-to-sqlite" ]]; then
  note "installing healthkit-to-sqlite 1.0.1 into $VENV"
  python3 -m venv "$VENV" && "$VENV/bin/pip" install --quiet 'healthkit-to-sqlite==1.0.1' \
    || { note "cannot install healthkit-to-sqlite"; exit 2; }
fi
if [[ ! -s "$IN" ]]; then
  python3 Benchmarks/generate_export.py --size-mb "$LOAD_MB" --seed 1 -o "$IN" >&2 || exit 2
fi
cat "$IN" > /dev/null

# run NAME COMMAND… → appends wall seconds to NAME's list; peak RSS (KB) to NAME_rss
declare -A secs rss
run() {
  local name=$1
  shift
  rm -f "$DIR/lvh.db" "$DIR/lvh.db-wal" "$DIR/lvh.db-shm" "$DIR/lvh.db-journal"
  local t0=$EPOCHREALTIME
  /usr/bin/time -f '%M' -o "$DIR/lvh.rss" "$@" > /dev/null 2> "$DIR/lvh-$name.stderr" \
    || { note "$name failed: $(tail -3 "$DIR/lvh-$name.stderr")"; exit 2; }
  local t1=$EPOCHREALTIME
  secs[$name]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') "
  local kb
  kb=$(tail -1 "$DIR/lvh.rss")
  (( kb > ${rss[$name]:-0} )) && rss[$name]=$kb
  return 0
}

for ((i = 0; i < LOAD_RUNS; i++)); do
  run healthport "$HEALTHPORT" load "$IN" --db "$DIR/lvh.db" --quiet
  run healthkit "$VENV/bin/healthkit-to-sqlite" --xml "$IN" "$DIR/lvh.db"
done
rm -f "$DIR/lvh.db" "$DIR/lvh.rss"

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
hp=$(median <<< "${secs[healthport]}")
hk=$(median <<< "${secs[healthkit]}")
ratio=$(awk -v a="$hk" -v b="$hp" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')
mb=$(awk -v b="$(stat -L -c %s "$IN")" 'BEGIN { printf "%.1f", b / 1e6 }')
{
  echo "load vs healthkit-to-sqlite 1.0.1, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo none)"
  echo "input: $IN, $mb MB; median of $LOAD_RUNS interleaved runs, each into a new database"
  printf '%-22s %9s %9s %9s\n' name "median s" "MB/s" "RSS MB"
  for name in healthport healthkit; do
    m=$([[ $name == healthport ]] && echo "$hp" || echo "$hk")
    label=$([[ $name == healthport ]] && echo "healthport load" || echo "healthkit-to-sqlite")
    printf '%-22s %9s %9s %9s\n' "$label" "$m" "$(awk -v mb="$mb" -v s="$m" 'BEGIN { printf "%.1f", mb / s }')" \
      $(( ${rss[$name]} / 1024 ))
  done
  echo "runs: healthport ${secs[healthport]}| healthkit-to-sqlite ${secs[healthkit]}"
  echo "healthport is ${ratio}x as fast (target ${LOAD_TARGET}x)"
} | tee "$DIR/load_vs_healthkit.txt"
awk -v r="$ratio" -v t="$LOAD_TARGET" 'BEGIN { exit !(r >= t) }'
