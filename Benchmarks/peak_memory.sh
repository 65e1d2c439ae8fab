#!/usr/bin/env bash
# Peak RSS of every command issue 33 bounds, on each input given, with two parsing threads:
# `/usr/bin/time -f %M` (KB, exact whatever the machine's load), one run each. Prints a table with
# a column per input, each command's limit, its spread across sizes (the limit is 5 MB) and
# whether it holds. The spread is the largest among inputs of one generator and one format (an
# export.xml's generator is in the .params file beside it, a zip's in its folder's export.params):
# how much the peak grows with the input's size, not how two generators' data or a zip and its
# xml differ.
#
#   bash Benchmarks/peak_memory.sh EXPORT.xml [EXPORT.xml|.zip …]
#
# Environment: HEALTHPORT=path (default .build/release/healthport), MEM_ONLY=a,b (only these
# commands), MEM_DIR (outputs; default a fresh folder in /tmp, removed at the end), HEALTHPORT_THREADS=2.
# A command that fails shows FAILED and the script exits 1.

set -uo pipefail
export LC_ALL=C
export HEALTHPORT_THREADS="${HEALTHPORT_THREADS:-2}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HEALTHPORT="${HEALTHPORT:-$ROOT/.build/release/healthport}"
DIR="${MEM_DIR:-$(mktemp -d /tmp/healthport-memory.XXXXXX)}"
ONLY="${MEM_ONLY:-}"
(($# > 0)) || { echo "usage: $0 EXPORT [EXPORT …]" >&2; exit 2; }
[[ -x "$HEALTHPORT" ]] || { echo "peak_memory: no binary at $HEALTHPORT" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "peak_memory: needs GNU time (apt-get install time)" >&2; exit 2; }
mkdir -p "$DIR" || exit 2
trap 'rm -rf "$DIR"' EXIT

# "name|limit MB|arguments": {IN} is the input, {OUT} a fresh output path in $DIR; limit 0: none
# (`--version`, which reads nothing, is what the shared libraries alone take).
COMMANDS=(
  "--version|0|--version"
  "info|40|info {IN} --quiet"
  "convert --to csv|40|convert {IN} --to csv -o {OUT}.csv --quiet"
  "convert --to jsonl|40|convert {IN} --to jsonl -o {OUT}.jsonl --quiet"
  "convert --to json|40|convert {IN} --to json -o {OUT}.json --quiet"
  "convert --to xml|40|convert {IN} --to xml -o {OUT}.xml --quiet"
  "convert --to csv --split|40|convert {IN} --to csv --split -o {OUT} --quiet"
  "steps|40|steps {IN} --quiet"
  "stats --type HeartRate --by day|40|stats {IN} --type HeartRate --by day --quiet"
  "sleep|40|sleep {IN} --quiet"
  "workouts|40|workouts {IN} --quiet"
  "workouts --summary|40|workouts {IN} --summary --quiet"
  "convert --to zip|64|convert {IN} --to zip -o {OUT}.zip --quiet"
  "routes|64|routes {IN} -o {OUT} --quiet"
  "convert --to parquet|96|convert {IN} --to parquet -o {OUT} --quiet"
  "load|96|load {IN} --db {OUT}.db --quiet"
)

header="| command | limit |"
rule="|---|---|"
for input in "$@"; do
  header+=" $(basename "$(dirname "$input")")/$(basename "$input") ($(($(stat -c %s "$input") / 1000000)) MB) |"
  rule+="---|"
done
echo "peak RSS in MB (1,024 KB), HEALTHPORT_THREADS=$HEALTHPORT_THREADS, $(date -u '+%Y-%m-%d %H:%M UTC')," \
  "commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "$header spread | holds |"
echo "$rule---|---|"

# group INPUT → the generator and format whose inputs' peaks are compared
group() {
  local input=$1 params generator=other
  params="${input%.*}.params"
  [[ "$input" == *.zip ]] && params="$(dirname "$input")/export.params"
  [[ -r "$params" ]] && generator=$(sed -n 's/.*generator=\([^:]*\).*/\1/p' "$params")
  echo "${generator:-other}.${input##*.}"
}

status=0
for entry in "${COMMANDS[@]}"; do
  IFS='|' read -r name limit arguments <<< "$entry"
  if [[ -n "$ONLY" && ",$ONLY," != *",$name,"* ]]; then continue; fi
  row="| \`$name\` | ${limit/#0/–} |"
  declare -A low=() high=()
  holds=yes
  for input in "$@"; do
    out="$DIR/out"
    rm -rf "$out" "$out".*
    command="${arguments//\{IN\}/$input}"
    command="${command//\{OUT\}/$out}"
    # shellcheck disable=SC2086 # the arguments are split on whitespace on purpose
    if /usr/bin/time -f %M -o "$DIR/rss" "$HEALTHPORT" $command > /dev/null 2> "$DIR/stderr"; then
      kb=$(tail -1 "$DIR/rss")
      row+=" $(awk -v kb="$kb" 'BEGIN { printf "%.1f", kb / 1024 }') |"
      key=$(group "$input")
      [[ -z "${high[$key]:-}" || kb -gt high[$key] ]] && high[$key]=$kb
      [[ -z "${low[$key]:-}" || kb -lt low[$key] ]] && low[$key]=$kb
      ((limit > 0 && kb > limit * 1024)) && holds=no
    else
      row+=" FAILED ($(tail -1 "$DIR/stderr" | cut -c1-60)) |"
      holds=no
      status=1
    fi
    rm -rf "$out" "$out".*
  done
  spread=0
  for key in "${!high[@]}"; do ((high[$key] - low[$key] > spread)) && spread=$((high[$key] - low[$key])); done
  unset low high
  ((spread > 5 * 1024)) && holds=no
  ((limit == 0)) && holds=–
  echo "$row $(awk -v kb="$spread" 'BEGIN { printf "%.1f", kb / 1024 }') | $holds |"
done
exit $status
