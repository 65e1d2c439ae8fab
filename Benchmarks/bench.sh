#!/usr/bin/env bash
# Benchmark healthport against a bare libxml2 SAX loop (the floor) on a large synthetic export.
#
# Run from anywhere (`make bench` runs it from the repo root). Steps:
#   1. swift build -c release --product healthport          (skip with BENCH_NO_BUILD=1)
#   2. generate .bench/export.xml of about BENCH_MB MB with a fixed seed, unless an up-to-date
#      one is there (same size, seed and generator), plus .bench/expected.json; the same for
#      .bench/export-small.xml of BENCH_SMALL_MB MB
#   3. build the floor (Benchmarks/sax_floor.c) into .bench/sax_floor
#   4. warm the page cache, then run the floor and every selected command BENCH_RUNS times under
#      /usr/bin/time (peak RSS) timed with bash's EPOCHREALTIME (wall seconds), and the floor again
#      after each command; keep each command's best time and highest peak RSS, and take every
#      ratio against the floor's best time of the whole session
#   5. measure the peak RSS of `steps` and `steps --dedupe` again on a smaller export of the same
#      generator (BENCH_SMALL_MB, generated like the first), to show whether memory grows with input
#   6. print a table and write it to .bench/results.txt
#
# Environment:
#   BENCH_MB=1000        size of the generated export in MB (10^6 bytes)
#   BENCH_SMALL_MB=100   size of the second export, for the memory of steps at two sizes (0: skip)
#   BENCH_RUNS=3         runs per command (best time wins)
#   BENCH_SEED=1         generator seed
#   BENCH_ONLY=a,b       run only the commands with these names (the floor always runs)
#   BENCH_EXTRA='n:args;m:args'  extra commands, same "name:arguments" form as CMDS below
#   BENCH_NO_BUILD=1     do not run swift build
#   HEALTHPORT=path      binary to measure (default .build/release/healthport)
#
# Exit status: 0 when every selected command succeeded, 1 when one failed (the run goes on and
# the failure shows in the table as FAILED with its exit code), 2 when the setup failed.

set -uo pipefail
export LC_ALL=C

# The measured commands (CMDS) are in commands.sh, shared with compare.sh.
# shellcheck source=Benchmarks/commands.sh
source "$(dirname "${BASH_SOURCE[0]}")/commands.sh"

(( BASH_VERSINFO[0] >= 5 )) || { echo "bench: needs bash 5 (EPOCHREALTIME)" >&2; exit 2; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2

BENCH_MB="${BENCH_MB:-1000}"
BENCH_SMALL_MB="${BENCH_SMALL_MB:-100}"
BENCH_RUNS="${BENCH_RUNS:-3}"
BENCH_SEED="${BENCH_SEED:-1}"
BENCH_ONLY="${BENCH_ONLY:-}"
BENCH_EXTRA="${BENCH_EXTRA:-}"
HEALTHPORT="${HEALTHPORT:-.build/release/healthport}"
DIR=.bench
IN="$DIR/export.xml"
TIME=/usr/bin/time

die() { echo "bench: $*" >&2; exit 2; }
note() { echo "bench: $*" >&2; }

[[ "$BENCH_MB" =~ ^[0-9]+([.][0-9]+)?$ ]] || die "BENCH_MB must be a number, got '$BENCH_MB'"
[[ "$BENCH_SMALL_MB" =~ ^[0-9]+([.][0-9]+)?$ ]] || die "BENCH_SMALL_MB must be a number, got '$BENCH_SMALL_MB'"
[[ "$BENCH_RUNS" =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer, got '$BENCH_RUNS'"
[[ "$BENCH_SEED" =~ ^[0-9]+$ ]] || die "BENCH_SEED must be a non-negative integer, got '$BENCH_SEED'"

mkdir -p "$DIR" || die "cannot create $DIR"

# -- /usr/bin/time (GNU time, for peak RSS)
if [[ ! -x "$TIME" ]]; then
  note "/usr/bin/time is missing; installing the Debian 'time' package"
  if [[ $(id -u) -eq 0 ]]; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time; } >&2 \
      || die "could not install 'time'"
  else
    die "/usr/bin/time is missing; install the 'time' package (apt-get install time)"
  fi
fi

# -- 1. release build
if [[ "${BENCH_NO_BUILD:-0}" != 1 ]]; then
  note "swift build -c release --product healthport"
  if ! swift build -c release --product healthport >&2; then
    note "release build FAILED; healthport commands will show as FAILED"
  fi
fi

# -- 2. the input
GEN=Benchmarks/generate_export.py
gen_sum=$(sha256sum "$GEN" | cut -c1-16)

# generate PATH.xml MB → PATH.xml, its expected counts and PATH.params (what it was generated
# with), unless an up-to-date one is there; sets GEN_PARAMS
generate() {
  local path=$1 mb=$2 expected params_file=${1%.xml}.params
  expected="${path%.xml}.expected.json"
  [[ "$path" == "$IN" ]] && expected="$DIR/expected.json"
  GEN_PARAMS="mb=$mb seed=$BENCH_SEED generator=$gen_sum"
  if [[ ! -s "$path" || ! -f "$params_file" || "$(cat "$params_file")" != "$GEN_PARAMS" ]]; then
    note "generating $path (~$mb MB, seed $BENCH_SEED)"
    rm -f "$params_file"
    python3 "$GEN" --size-mb "$mb" --seed "$BENCH_SEED" -o "$path.tmp" --expected "$expected.tmp" \
      || die "generation failed"
    mv -f "$path.tmp" "$path" && mv -f "$expected.tmp" "$expected" || die "cannot move the generated files"
    echo "$GEN_PARAMS" > "$params_file"
  else
    note "reusing $path ($GEN_PARAMS)"
  fi
}

generate "$IN" "$BENCH_MB"
params=$GEN_PARAMS
in_bytes=$(stat -L -c %s "$IN")
in_mb=$(awk -v b="$in_bytes" 'BEGIN { printf "%.1f", b / 1e6 }')
# The same export zipped as the Health app zips it (deflate), for the commands reading {ZIP}.
ZIP="$DIR/export.zip"
if [[ ! -s "$ZIP" || "$IN" -nt "$ZIP" ]]; then
  note "zipping $IN into $ZIP"
  python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[2] + ".tmp", "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
    z.write(sys.argv[1], "apple_health_export/export.xml")' "$IN" "$ZIP" && mv -f "$ZIP.tmp" "$ZIP" \
    || die "cannot zip $IN"
fi
SMALL="$DIR/export-small.xml"
if [[ "$BENCH_SMALL_MB" != 0 ]]; then
  generate "$SMALL" "$BENCH_SMALL_MB"
  small_params=$GEN_PARAMS
  small_mb=$(awk -v b="$(stat -L -c %s "$SMALL")" 'BEGIN { printf "%.1f", b / 1e6 }')
fi

# -- 3. the floor
FLOOR="$DIR/sax_floor"
if [[ ! -x "$FLOOR" || Benchmarks/sax_floor.c -nt "$FLOOR" ]]; then
  # shellcheck disable=SC2046
  cc -O2 -o "$FLOOR" Benchmarks/sax_floor.c $(pkg-config --cflags --libs libxml-2.0) \
    || die "cannot build the floor (is libxml2-dev installed?)"
fi

# -- 4. measure
note "warming the page cache"
cat "$IN" > /dev/null

# measure NAME CMD... → sets M_STATUS (exit code), M_SECS (best), M_RSS_KB (max)
measure() {
  local name=$1; shift
  local run out rc secs rss t0 t1
  M_STATUS=0; M_SECS=""; M_RSS_KB=0
  : > "$DIR/$name.stderr"
  for ((run = 1; run <= BENCH_RUNS; run++)); do
    # {DB} is a fresh database for every run (removed before it, kept after the last for its size).
    rm -f "$DIR/$name.db" "$DIR/$name.db-wal" "$DIR/$name.db-shm"
    out="$DIR/$name.time"
    t0=$EPOCHREALTIME
    "$TIME" -f '%e %M' -o "$out" "$@" > /dev/null 2>> "$DIR/$name.stderr"
    rc=$?
    t1=$EPOCHREALTIME
    if [[ $rc -ne 0 ]]; then
      M_STATUS=$rc
      return
    fi
    # Wall time from bash's microsecond clock (GNU time's %e has 10 ms resolution); RSS from time.
    read -r _ rss < <(tail -n 1 "$out")
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    if [[ -z "$M_SECS" ]] || awk -v a="$secs" -v b="$M_SECS" 'BEGIN { exit !(a < b) }'; then
      M_SECS=$secs
    fi
    (( rss > M_RSS_KB )) && M_RSS_KB=$rss
    note "  $name run $run: ${secs}s, $((rss / 1024)) MB"
  done
}

selected() {
  [[ -z "$BENCH_ONLY" ]] && return 0
  local n
  IFS=',' read -r -a wanted <<< "$BENCH_ONLY"
  for n in "${wanted[@]}"; do [[ "$n" == "$1" ]] && return 0; done
  return 1
}

all_cmds=("${CMDS[@]}")
if [[ -n "$BENCH_EXTRA" ]]; then
  IFS=';' read -r -a extra <<< "$BENCH_EXTRA"
  all_cmds+=("${extra[@]}")
fi

rows=()
done_names=()
done_secs=()
done_rss=()
failed=0

note "floor: $FLOOR $IN ($BENCH_RUNS runs)"
measure floor "$FLOOR" "$IN"
if [[ $M_STATUS -ne 0 ]]; then
  tail -n 5 "$DIR/floor.stderr" >&2
  die "the floor failed (exit $M_STATUS) on $IN"
fi
floor_secs=$M_SECS
floor_rss_kb=$M_RSS_KB
floor_elements=$("$FLOOR" "$IN")
expected_elements=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["elementCount"])' "$DIR/expected.json" 2>/dev/null || echo "?")

for entry in "${all_cmds[@]}"; do
  name=${entry%%:*}
  args=${entry#*:}
  selected "$name" || continue
  args=${args//\{IN\}/$IN}
  args=${args//\{ZIP\}/$ZIP}
  args=${args//\{DB\}/$DIR/$name.db}
  read -r -a argv <<< "$args"
  environment=()
  while (( ${#argv[@]} )) && [[ ${argv[0]} =~ ^[A-Z_][A-Z0-9_]*= ]]; do
    environment+=("${argv[0]}")
    argv=("${argv[@]:1}")
  done
  if [[ ! -x "$HEALTHPORT" ]]; then
    note "$name: $HEALTHPORT is missing"
    rows+=("$(printf '%-22s %9s' "$name" "FAILED (exit 127: $HEALTHPORT missing)")")
    failed=1
    continue
  fi
  note "$name: ${environment[*]:+${environment[*]} }healthport ${argv[*]} ($BENCH_RUNS runs)"
  measure "$name" env "${environment[@]}" "$HEALTHPORT" "${argv[@]}"
  if [[ $M_STATUS -ne 0 ]]; then
    note "$name FAILED with exit code $M_STATUS; last lines of $DIR/$name.stderr:"
    tail -n 5 "$DIR/$name.stderr" | sed 's/^/    /' >&2
    rows+=("$(printf '%-22s %9s' "$name" "FAILED (exit $M_STATUS)")")
    failed=1
    continue
  fi
  done_names+=("$name")
  done_secs+=("$M_SECS")
  done_rss+=("$M_RSS_KB")
  # The floor again after each command: the machine's speed drifts, and the fastest floor seen
  # is the one every ratio is taken against (which never flatters healthport).
  measure floor "$FLOOR" "$IN"
  floor_secs=$(awk -v a="$floor_secs" -v b="$M_SECS" 'BEGIN { print (b < a ? b : a) }')
  if [[ -f "$DIR/$name.db" ]]; then
    note "$name: database $(awk -v b="$(stat -c %s "$DIR/$name.db")" 'BEGIN { printf "%.1f MB", b / 1e6 }')"
  fi
done

floor_mbs=$(awk -v mb="$in_mb" -v s="$floor_secs" 'BEGIN { printf "%.1f", (s > 0 ? mb / s : 0) }')
rows=("$(printf '%-22s %9s %9s %9s %9s' floor "$floor_secs" "$floor_mbs" "1.00" $((floor_rss_kb / 1024)))" "${rows[@]}")
for i in "${!done_names[@]}"; do
  mbs=$(awk -v mb="$in_mb" -v s="${done_secs[$i]}" 'BEGIN { printf "%.1f", (s > 0 ? mb / s : 0) }')
  ratio=$(awk -v a="$mbs" -v f="$floor_mbs" 'BEGIN { printf "%.2f", (f > 0 ? a / f : 0) }')
  rows+=("$(printf '%-22s %9s %9s %9s %9s' "${done_names[$i]}" "${done_secs[$i]}" "$mbs" "$ratio" $((done_rss[$i] / 1024)))")
done

# -- 5. the memory of steps at two sizes
memory_rows=()
if [[ "$BENCH_SMALL_MB" != 0 && -x "$HEALTHPORT" ]]; then
  for entry in "steps:steps" "steps-dedupe:steps --dedupe"; do
    name=${entry%%:*}
    read -r -a flags <<< "${entry#*:}"
    note "$name on $SMALL ($BENCH_RUNS runs)"
    measure "$name-small" "$HEALTHPORT" "${flags[@]}" "$SMALL" --quiet
    [[ $M_STATUS -ne 0 ]] && { failed=1; continue; }
    small_rss=$M_RSS_KB
    large_rss=""
    for i in "${!done_names[@]}"; do [[ "${done_names[$i]}" == "$name" ]] && large_rss=${done_rss[$i]}; done
    if [[ -z "$large_rss" ]]; then
      note "$name on $IN ($BENCH_RUNS runs)"
      measure "$name" "$HEALTHPORT" "${flags[@]}" "$IN" --quiet
      [[ $M_STATUS -ne 0 ]] && { failed=1; continue; }
      large_rss=$M_RSS_KB
    fi
    memory_rows+=("$(printf '%-22s %9s %9s' "$name" $((small_rss / 1024)) $((large_rss / 1024)))")
  done
fi

# -- 6. report
{
  echo "healthport benchmark, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo none)$(git diff --quiet 2>/dev/null || echo ' (dirty)')"
  echo "machine: $(uname -sm), $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GB RAM", $2 / 1048576 }' /proc/meminfo)"
  echo "input:   $IN, $in_mb MB ($in_bytes bytes), $params; floor elements $floor_elements, expected $expected_elements"
  echo "runs:    best of $BENCH_RUNS (warm page cache); ratio = MB/s relative to the floor's best run"
  echo "         (MB/s of the uncompressed XML, also for the rows that read $ZIP)"
  echo "         (the floor runs again after each command; failed commands are listed first)"
  echo
  printf '%-22s %9s %9s %9s %9s\n' name seconds "MB/s" ratio "RSS MB"
  printf '%s\n' "${rows[@]}"
  if (( ${#memory_rows[@]} )); then
    echo
    echo "peak RSS of steps at two sizes (MB; equal when memory does not grow with the input):"
    echo "         small: $SMALL, $small_mb MB, $small_params"
    printf '%-22s %9s %9s\n' name "${small_mb%.*} MB" "${in_mb%.*} MB"
    printf '%s\n' "${memory_rows[@]}"
  fi
} | tee "$DIR/results.txt"

bash "$ROOT/Benchmarks/load_vs_healthkit.sh" || failed=1
exit $failed
