#!/usr/bin/env bash
# Compares two healthport binaries on the benchmark's commands: for a change that must not slow
# anything down (a refactor), against the binary of the commit before it.
#
#   bash Benchmarks/compare.sh BASE_BINARY NEW_BINARY [INPUT]
#
# INPUT defaults to .bench/export.xml (what `make bench` generates). Each command runs
# COMPARE_RUNS times per binary, interleaved (base, new, new, base, …) so that the machine's drift
# hits both alike; the table shows each binary's median wall seconds, the highest peak RSS,
# new/base as a throughput ratio of the medians (1.00: the same; 0.95: the new binary is 5 % slower)
# and `paired`, the median over rounds of the base run's seconds over the new run's of that round.
#
# Environment: COMPARE_RUNS=5, COMPARE_ONLY=a,b (command names, as in commands.sh).
# Exit status: 0 when every run succeeded, 1 when one failed, 2 on bad arguments.

set -uo pipefail
export LC_ALL=C
source "$(dirname "${BASH_SOURCE[0]}")/commands.sh"

(( $# >= 2 )) || { echo "usage: compare.sh BASE_BINARY NEW_BINARY [INPUT]" >&2; exit 2; }
BASE=$1 NEW=$2 IN=${3:-.bench/export.xml}
RUNS=${COMPARE_RUNS:-5}
ONLY=${COMPARE_ONLY:-}
for binary in "$BASE" "$NEW"; do [[ -x "$binary" ]] || { echo "compare: $binary is not executable" >&2; exit 2; }; done
[[ -r "$IN" ]] || { echo "compare: cannot read $IN" >&2; exit 2; }
DIR=$(mktemp -d "${TMPDIR:-/tmp}/healthport-compare.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
mkdir -p .bench
cat "$IN" > /dev/null

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# run BINARY NAME ARGS… → appends "seconds rss_kb" to $DIR/NAME.BINARY-LABEL
run() {
  local label=$1 binary=$2 name=$3; shift 3
  local t0 t1 environment=() argv=("$@")
  while (( ${#argv[@]} )) && [[ ${argv[0]} =~ ^[A-Z_][A-Z0-9_]*= ]]; do
    environment+=("${argv[0]}")
    argv=("${argv[@]:1}")
  done
  # Every run writes afresh: the other binary's folders may lack the manifest this one wants.
  rm -rf "$DIR/db" "$DIR/db-wal" "$DIR/db-shm" "$DIR/out" "$DIR/split" "$DIR/parquet"
  t0=$EPOCHREALTIME
  if ! /usr/bin/time -f '%M' -o "$DIR/time" env "${environment[@]}" "$binary" "${argv[@]}" > /dev/null 2> "$DIR/stderr"; then
    echo "compare: $name failed with $binary:" >&2
    tail -n 3 "$DIR/stderr" >&2
    return 1
  fi
  t1=$EPOCHREALTIME
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $(tail -n 1 "$DIR/time")" >> "$DIR/$name.$label"
}

failed=0
printf '%-22s %10s %10s %7s %7s %9s %9s\n' name "base s" "new s" ratio paired "base MB" "new MB"
for entry in "${CMDS[@]}"; do
  name=${entry%%:*}
  if [[ -n "$ONLY" && ",$ONLY," != *",$name,"* ]]; then continue; fi
  args=${entry#*:}
  # {ZIP}: INPUT's zip beside it (bench.sh makes .bench/export.zip); rows without one are skipped.
  if [[ $args == *"{ZIP}"* && ! -r ${IN%.xml}.zip ]]; then continue; fi
  # {PGDB}: a PostgreSQL cluster, which only bench.sh starts.
  if [[ $args == *"{PGDB}"* ]]; then continue; fi
  args=${args//\{ZIP\}/${IN%.xml}.zip}
  args=${args//\{IN\}/$IN}
  args=${args//\{DB\}/$DIR/db}
  args=${args//\{OUT\}/$DIR/out}
  args=${args//\{DIR\}/$DIR}
  read -r -a argv <<< "$args"
  for ((i = 1; i <= RUNS; i++)); do
    if (( i % 2 )); then order=(base new); else order=(new base); fi
    for label in "${order[@]}"; do
      binary=$BASE
      [[ $label == new ]] && binary=$NEW
      run "$label" "$binary" "$name" "${argv[@]}" || { failed=1; continue 3; }
    done
  done
  b=$(cut -d' ' -f1 "$DIR/$name.base" | median)
  n=$(cut -d' ' -f1 "$DIR/$name.new" | median)
  brss=$(cut -d' ' -f2 "$DIR/$name.base" | sort -n | tail -n 1)
  nrss=$(cut -d' ' -f2 "$DIR/$name.new" | sort -n | tail -n 1)
  paired=$(paste -d' ' <(cut -d' ' -f1 "$DIR/$name.base") <(cut -d' ' -f1 "$DIR/$name.new") \
    | awk '{ print $1 / $2 }' | median)
  printf '%-22s %10.3f %10.3f %7.3f %7.3f %9d %9d\n' "$name" "$b" "$n" \
    "$(awk -v b="$b" -v n="$n" 'BEGIN { print b / n }')" "$paired" $((brss / 1024)) $((nrss / 1024))
done
exit $failed
