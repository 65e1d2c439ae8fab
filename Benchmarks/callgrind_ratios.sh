#!/usr/bin/env bash
# Speed as instruction counts, which do not depend on the machine's load: each command under
# `valgrind --tool=callgrind --separate-threads=yes` on one export (a 20 MB one: about a minute
# per command), with two parsing threads, against the bare libxml2 SAX loop (the floor,
# Benchmarks/sax_floor.c). A command's ratio is the floor's instructions over those of its busiest
# thread (what bounds its wall time on two cores), and over those of all its threads (its CPU);
# higher is faster, as in `make bench`.
#
#   bash Benchmarks/callgrind_ratios.sh EXPORT.xml
#
# Environment: HEALTHPORT=path (default .build/release/healthport), CG_ONLY=a,b (only these
# commands), CG_DIR (default a fresh folder in /tmp, removed at the end), HEALTHPORT_THREADS=2,
# CG_TSV=path (also write "name<TAB>busiest<TAB>all<TAB>floor" instruction counts there, one line a
# command, for Benchmarks/bench_all.sh's targets table).

set -uo pipefail
export LC_ALL=C
export HEALTHPORT_THREADS="${HEALTHPORT_THREADS:-2}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HEALTHPORT="${HEALTHPORT:-$ROOT/.build/release/healthport}"
DIR="${CG_DIR:-$(mktemp -d /tmp/healthport-callgrind.XXXXXX)}"
ONLY="${CG_ONLY:-}"
IN="${1:?usage: $0 EXPORT.xml}"
command -v valgrind > /dev/null || { echo "callgrind_ratios: needs valgrind" >&2; exit 2; }
mkdir -p "$DIR" || exit 2
trap 'rm -rf "$DIR"' EXIT

# shellcheck disable=SC2046 # pkg-config's flags are words
cc -O2 -o "$DIR/sax_floor" "$ROOT/Benchmarks/sax_floor.c" $(pkg-config --cflags --libs libxml-2.0) || exit 2

# instructions NAME COMMAND… → "busiest all" (instructions), from the per-thread outputs.
instructions() {
  local name=$1
  shift
  rm -f "$DIR/$name".out*
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$DIR/$name.out" "$@" \
    > /dev/null 2> "$DIR/$name.stderr" || { echo "FAILED FAILED"; return; }
  # Each thread's file has a "summary: N" line.
  awk '/^summary:/ { if ($2 > max) max = $2; all += $2 } END { printf "%.0f %.0f\n", max, all }' "$DIR/$name".out*
}

COMMANDS=(
  "info|info {IN} --format json --quiet"
  "convert --to csv|convert {IN} --to csv -o {OUT}.csv --quiet"
  "convert --to jsonl|convert {IN} --to jsonl -o {OUT}.jsonl --quiet"
  "convert --to parquet|convert {IN} --to parquet -o {OUT} --quiet"
  "load|load {IN} --db {OUT}.db --quiet"
)

read -r floor _ < <(instructions floor "$DIR/sax_floor" "$IN")
TSV="${CG_TSV:-/dev/null}"
: > "$TSV"
echo "callgrind, $(basename "$IN") ($(($(stat -c %s "$IN") / 1000000)) MB), HEALTHPORT_THREADS=$HEALTHPORT_THREADS," \
  "commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u '+%Y-%m-%d %H:%M UTC');" \
  "floor: $floor instructions"
echo
echo "| command | busiest thread (M) | all threads (M) | × floor, busiest | × floor, all |"
echo "|---|---|---|---|---|"
out="$DIR/out"
rm -rf "$out" "$out".*
for entry in "${COMMANDS[@]}"; do
  IFS='|' read -r name arguments <<< "$entry"
  if [[ -n "$ONLY" && ",$ONLY," != *",$name,"* ]]; then continue; fi
  rm -rf "$out" "$out".*
  command="${arguments//\{IN\}/$IN}"
  command="${command//\{OUT\}/$out}"
  # shellcheck disable=SC2086 # the arguments are split on whitespace on purpose
  read -r busiest all < <(instructions "${name// /-}" "$HEALTHPORT" $command)
  if [[ "$busiest" == FAILED ]]; then
    echo "| \`$name\` | FAILED | | | |"
    continue
  fi
  awk -v n="$name" -v b="$busiest" -v a="$all" -v f="$floor" \
    'BEGIN { printf "| `%s` | %.1f | %.1f | %.2f | %.2f |\n", n, b / 1e6, a / 1e6, f / b, f / a }'
  printf '%s\t%s\t%s\t%s\n' "$name" "$busiest" "$all" "$floor" >> "$TSV"
done
