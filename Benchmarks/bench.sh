#!/usr/bin/env bash
# Benchmark healthport against a bare libxml2 SAX loop (the floor) on a large synthetic export.
#
# Run from anywhere (`make bench` runs it from the repo root). Steps:
#   1. swift build -c release --product healthport          (skip with BENCH_NO_BUILD=1)
#   2. generate .bench/export.xml of about BENCH_MB MB with a fixed seed, unless an up-to-date
#      one is there (same size, seed and generator), plus .bench/expected.json; the same for
#      .bench/export-small.xml of BENCH_SMALL_MB MB
#   3. build the floor (Benchmarks/sax_floor.c) into .bench/sax_floor
#   4. warm the page cache (again before every run), then measure the machine ceiling: the floor alone and two floors at
#      once on two copies of the file (BENCH_RUNS times, interleaved); the ceiling is the pair's
#      aggregate MB/s as a ratio to one floor's, what two threads of libxml2 work can reach here
#   5. run every selected command BENCH_RUNS times interleaved with the floor (floor, command,
#      floor, command, …) under /usr/bin/time (peak RSS, user and system CPU), wall seconds from
#      bash's EPOCHREALTIME; each command's ratio is the median of its floor runs over the median
#      of its own runs, and, for every command, that ratio over the ceiling, and "paired", the
#      median of each run's ratio to the floor run just before it; "cores" is the
#      command's user+sys CPU over its wall time (2.00: both cores busy for the whole run)
#   6. measure the peak RSS of `steps` and `steps --dedupe` again on a smaller export of the same
#      generator (BENCH_SMALL_MB, generated like the first), to show whether memory grows with input
#   7. print a table and write it to BENCH_DIR/results.txt (and its figures to BENCH_DIR/results.tsv,
#      for bench_all.sh's targets), with the size of the database and the Parquet dataset written
#
# Environment:
#   BENCH_MB=1000        size of the generated export in MB (10^6 bytes)
#   BENCH_SMALL_MB=100   size of the second export, for the memory of steps at two sizes (0: skip)
#   BENCH_RUNS=3         runs per command (the median counts), each beside a run of the floor
#   BENCH_SEED=1         generator seed
#   BENCH_GENERATOR=own  own: Benchmarks/generate_export.py; gen_export: ../shared/bench/gen_export.py
#                        (BENCH_GEN_EXPORT=path to use another copy)
#   BENCH_ONLY=a,b       run only the commands with these names (the floor and ceiling always run)
#   BENCH_EXTRA='n:args;m:args'  extra commands, same "name:arguments" form as CMDS below
#   BENCH_CEILING=0      skip the two-floors ceiling (it needs a second copy of the export)
#   BENCH_DIR=.bench     where the inputs, outputs and results go (a large disk: 2 × BENCH_MB)
#   BENCH_NO_BUILD=1     do not run swift build
#   BENCH_NO_HEALTHKIT=1 skip Benchmarks/load_vs_healthkit.sh at the end
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
DIR="${BENCH_DIR:-.bench}"
BENCH_CEILING="${BENCH_CEILING:-1}"
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
# BENCH_GENERATOR=own: Benchmarks/generate_export.py; gen_export: the second generator,
# ../shared/bench/gen_export.py (Export Version 14; it writes no expected counts).
case "${BENCH_GENERATOR:-own}" in
  own) GEN=Benchmarks/generate_export.py ;;
  gen_export) GEN="${BENCH_GEN_EXPORT:-../shared/bench/gen_export.py}" ;;
  *) die "BENCH_GENERATOR must be own or gen_export, got '$BENCH_GENERATOR'" ;;
esac
[[ -f "$GEN" ]] || die "no generator at $GEN"
gen_sum=$(sha256sum "$GEN" | cut -c1-16)

# generate PATH.xml MB → PATH.xml, its expected counts and PATH.params (what it was generated
# with), unless an up-to-date one is there; sets GEN_PARAMS
generate() {
  local path=$1 mb=$2 expected params_file=${1%.xml}.params
  expected="${path%.xml}.expected.json"
  [[ "$path" == "$IN" ]] && expected="$DIR/expected.json"
  GEN_PARAMS="mb=$mb seed=$BENCH_SEED generator=${BENCH_GENERATOR:-own}:$gen_sum"
  if [[ ! -s "$path" || ! -f "$params_file" || "$(cat "$params_file")" != "$GEN_PARAMS" ]]; then
    note "generating $path (~$mb MB, seed $BENCH_SEED)"
    rm -f "$params_file"
    if [[ "${BENCH_GENERATOR:-own}" == gen_export ]]; then
      python3 "$GEN" --mb "$mb" --version 14 --seed "$BENCH_SEED" -o "$path.tmp" || die "generation failed"
      echo '{}' > "$expected.tmp"
    else
      python3 "$GEN" --size-mb "$mb" --seed "$BENCH_SEED" -o "$path.tmp" --expected "$expected.tmp" \
        || die "generation failed"
    fi
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

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# This VM's page cache gives back pages of a file nobody reads for a while (a 1 GB export lost
# ~1 % a minute, and a run that read part of it from disk took up to twice as long), so the
# inputs are read once more, untimed, before every run.
warm() { cat "$IN" "$@" > /dev/null 2>&1; [[ -s "${ZIP:-}" ]] && cat "$ZIP" > /dev/null 2>&1; return 0; }

# run_once NAME CMD... → appends "wall rss_kb cpu_seconds" to $DIR/NAME.runs; returns the exit code
run_once() {
  local name=$1; shift
  local out="$DIR/$name.time" rc t0 t1 secs rss user sys
  warm
  # {DB} is a fresh database for every run (removed before it, kept after the last for its size);
  # so are {OUT}'s file and {PGDB}'s schema.
  rm -f "$DIR/$name.db" "$DIR/$name.db-wal" "$DIR/$name.db-shm" "$DIR/$name.out"
  if [[ -n "${PG_URI:-}" && " $* " == *" $PG_URI "* ]]; then
    bash "$ROOT/Benchmarks/pg_cluster.sh" reset "$DIR" > /dev/null || return 2
  fi
  t0=$EPOCHREALTIME
  "$TIME" -f '%e %M %U %S' -o "$out" "$@" > /dev/null 2>> "$DIR/$name.stderr"
  rc=$?
  t1=$EPOCHREALTIME
  (( rc == 0 )) || return $rc
  # Wall time from bash's microsecond clock (GNU time's %e has 10 ms resolution); RSS and CPU from time.
  read -r _ rss user sys < <(tail -n 1 "$out")
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  echo "$secs $rss $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')" >> "$DIR/$name.runs"
  note "  $name: ${secs}s, $((rss / 1024)) MB, user+sys ${user}+${sys}s"
}

# summarise NAME → M_SECS (median wall), M_RSS_KB (max), M_CORES (CPU seconds over wall seconds)
summarise() {
  M_SECS=$(cut -d' ' -f1 "$DIR/$1.runs" | median)
  M_RSS_KB=$(cut -d' ' -f2 "$DIR/$1.runs" | sort -n | tail -n 1)
  M_CORES=$(awk '{ w += $1; c += $3 } END { printf "%.2f", (w > 0 ? c / w : 0) }' "$DIR/$1.runs")
}

# measure NAME CMD... → BENCH_RUNS runs, each after a run of the floor (its times go to
# $DIR/NAME.floor.runs and to the session's floor.runs); sets M_STATUS, M_SECS, M_RSS_KB, M_CORES, M_FLOOR
measure() {
  local name=$1; shift
  local run rc
  M_STATUS=0
  : > "$DIR/$name.stderr"
  rm -f "$DIR/$name.runs" "$DIR/$name.floor.runs"
  for ((run = 1; run <= BENCH_RUNS; run++)); do
    run_once "$name.floor" "$FLOOR" "$IN" || die "the floor failed on $IN"
    tail -n 1 "$DIR/$name.floor.runs" >> "$DIR/floor.runs"
    run_once "$name" "$@"
    rc=$?
    if (( rc != 0 )); then
      M_STATUS=$rc
      return
    fi
  done
  summarise "$name.floor"
  M_FLOOR=$M_SECS
  summarise "$name"
  # Each run against the floor run just before it, then the median: this VM's speed drifts by
  # up to half between minutes (the floor's own CPU time with it), and a pair shares its minute.
  M_PAIRED=$(paste -d' ' <(cut -d' ' -f1 "$DIR/$name.floor.runs") <(cut -d' ' -f1 "$DIR/$name.runs") \
    | awk '$2 > 0 { printf "%.4f\n", $1 / $2 }' | median)
}

# measure_alone NAME CMD... → BENCH_RUNS runs without the floor (the memory rows)
measure_alone() {
  local name=$1; shift
  local run rc
  M_STATUS=0
  : > "$DIR/$name.stderr"
  rm -f "$DIR/$name.runs"
  for ((run = 1; run <= BENCH_RUNS; run++)); do
    run_once "$name" "$@"
    rc=$?
    if (( rc != 0 )); then
      M_STATUS=$rc
      return
    fi
  done
  summarise "$name"
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
done_cores=()
done_floor=()
done_paired=()
failed=0
rm -f "$DIR/floor.runs" "$DIR/floor.stderr"

floor_elements=$("$FLOOR" "$IN") || die "the floor failed on $IN"
expected_elements=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["elementCount"])' "$DIR/expected.json" 2>/dev/null || echo "?")

# The machine ceiling: two floors at once, each on its own copy of the export (so that neither
# shares the other's page-cache pages), against one floor alone, interleaved.
ceiling=""
if [[ "$BENCH_CEILING" != 0 ]]; then
  COPY="$DIR/export-copy.xml"
  if [[ ! -s "$COPY" || "$IN" -nt "$COPY" ]]; then
    note "copying $IN to $COPY (for the ceiling)"
    cp -f "$IN" "$COPY.tmp" && mv -f "$COPY.tmp" "$COPY" || die "cannot copy $IN"
  fi
  cat "$COPY" > /dev/null
  rm -f "$DIR/ceiling.runs"
  note "ceiling: the floor alone, then two floors at once ($BENCH_RUNS runs)"
  for ((run = 1; run <= BENCH_RUNS; run++)); do
    run_once ceiling.floor "$FLOOR" "$IN" || die "the floor failed on $IN"
    tail -n 1 "$DIR/ceiling.floor.runs" >> "$DIR/floor.runs"
    warm "$COPY"
    t0=$EPOCHREALTIME
    "$FLOOR" "$IN" > /dev/null & first=$!
    "$FLOOR" "$COPY" > /dev/null & second=$!
    wait "$first" && wait "$second" || die "the floor failed (two at once)"
    t1=$EPOCHREALTIME
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    echo "$secs" >> "$DIR/ceiling.runs"
    note "  two floors at once: ${secs}s"
  done
  pair_secs=$(median < "$DIR/ceiling.runs")
  alone_secs=$(cut -d' ' -f1 "$DIR/ceiling.floor.runs" | median)
  # Twice the bytes in pair_secs, against one floor's bytes in alone_secs.
  ceiling=$(awk -v a="$alone_secs" -v p="$pair_secs" 'BEGIN { printf "%.2f", (p > 0 ? 2 * a / p : 0) }')
fi

PG_URI=""
for entry in "${all_cmds[@]}"; do
  selected "${entry%%:*}" || continue
  [[ $entry == *"{PGDB}"* && -z "$PG_URI" ]] || continue
  note "starting a PostgreSQL cluster in $DIR/pg (for {PGDB})"
  PG_URI=$(bash "$ROOT/Benchmarks/pg_cluster.sh" start "$DIR") || die "cannot start PostgreSQL (scripts/install-deps.sh)"
  trap 'bash "$ROOT/Benchmarks/pg_cluster.sh" stop "$DIR"' EXIT
done

for entry in "${all_cmds[@]}"; do
  name=${entry%%:*}
  args=${entry#*:}
  selected "$name" || continue
  args=${args//\{IN\}/$IN}
  args=${args//\{PGDB\}/$PG_URI}
  args=${args//\{ZIP\}/$ZIP}
  args=${args//\{DB\}/$DIR/$name.db}
  args=${args//\{OUT\}/$DIR/$name.out}
  args=${args//\{DIR\}/$DIR}
  read -r -a argv <<< "$args"
  environment=()
  while (( ${#argv[@]} )) && [[ ${argv[0]} =~ ^[A-Z_][A-Z0-9_]*= ]]; do
    environment+=("${argv[0]}")
    argv=("${argv[@]:1}")
  done
  if [[ ! -x "$HEALTHPORT" ]]; then
    note "$name: $HEALTHPORT is missing"
    rows+=("$(printf '%-24s %9s' "$name" "FAILED (exit 127: $HEALTHPORT missing)")")
    failed=1
    continue
  fi
  note "$name: ${environment[*]:+${environment[*]} }healthport ${argv[*]} ($BENCH_RUNS runs, each after the floor)"
  measure "$name" env "${environment[@]}" "$HEALTHPORT" "${argv[@]}"
  if [[ $M_STATUS -ne 0 ]]; then
    note "$name FAILED with exit code $M_STATUS; last lines of $DIR/$name.stderr:"
    tail -n 5 "$DIR/$name.stderr" | sed 's/^/    /' >&2
    rows+=("$(printf '%-24s %9s' "$name" "FAILED (exit $M_STATUS)")")
    failed=1
    continue
  fi
  done_names+=("$name")
  done_secs+=("$M_SECS")
  done_rss+=("$M_RSS_KB")
  done_cores+=("$M_CORES")
  done_floor+=("$M_FLOOR")
  done_paired+=("$M_PAIRED")
  if [[ -f "$DIR/$name.db" ]]; then
    note "$name: database $(awk -v b="$(stat -c %s "$DIR/$name.db")" 'BEGIN { printf "%.1f MB", b / 1e6 }')"
  fi
done

# The floor's row: the median of every floor run of the session.
floor_secs=$(cut -d' ' -f1 "$DIR/floor.runs" | median)
floor_rss_kb=$(cut -d' ' -f2 "$DIR/floor.runs" | sort -n | tail -n 1)
floor_cores=$(awk '{ w += $1; c += $3 } END { printf "%.2f", (w > 0 ? c / w : 0) }' "$DIR/floor.runs")
floor_mbs=$(awk -v mb="$in_mb" -v s="$floor_secs" 'BEGIN { printf "%.1f", (s > 0 ? mb / s : 0) }')
row() { printf '%-24s %9s %9s %9s %9s %7s %7s %7s\n' "$@"; }
rows=("$(row floor "$floor_secs" "$floor_mbs" "1.00" "${ceiling:+$(awk -v c="$ceiling" 'BEGIN { printf "%.2f", 1 / c }')}" "1.00" "$floor_cores" $((floor_rss_kb / 1024)))" "${rows[@]}")
if [[ -n "$ceiling" ]]; then
  rows+=("$(row "ceiling (2 floors)" "$pair_secs" "$(awk -v mb="$in_mb" -v s="$pair_secs" 'BEGIN { printf "%.1f", 2 * mb / s }')" "$ceiling" "1.00" "" "" "")")
fi
# The same figures for bench_all.sh's targets table: name, median seconds, ratio, paired, peak KB.
: > "$DIR/results.tsv"
for i in "${!done_names[@]}"; do
  mbs=$(awk -v mb="$in_mb" -v s="${done_secs[$i]}" 'BEGIN { printf "%.1f", (s > 0 ? mb / s : 0) }')
  # Against the floor runs interleaved with this command's runs.
  ratio=$(awk -v c="${done_secs[$i]}" -v f="${done_floor[$i]}" 'BEGIN { printf "%.2f", (c > 0 ? f / c : 0) }')
  of_ceiling=""
  [[ -n "$ceiling" ]] && of_ceiling=$(awk -v r="$ratio" -v c="$ceiling" 'BEGIN { printf "%.2f", (c > 0 ? r / c : 0) }')
  paired=$(awk -v r="${done_paired[$i]}" 'BEGIN { printf "%.2f", r }')
  rows+=("$(row "${done_names[$i]}" "${done_secs[$i]}" "$mbs" "$ratio" "$of_ceiling" "$paired" "${done_cores[$i]}" $((done_rss[$i] / 1024)))")
  printf '%s\t%s\t%s\t%s\t%s\n' "${done_names[$i]}" "${done_secs[$i]}" "$ratio" "$paired" "${done_rss[$i]}" \
    >> "$DIR/results.tsv"
done

# What the written outputs weigh against the input (after each command's last run).
sizes=()
for i in "${!done_names[@]}"; do
  name=${done_names[$i]} output=""
  if [[ -f "$DIR/$name.db" ]]; then
    output="$DIR/$name.db"
  elif [[ -f "$DIR/$name.out" ]]; then
    output="$DIR/$name.out"
  elif [[ $name == convert-parquet ]]; then
    output="$DIR/parquet"
  elif [[ $name == convert-csv-split ]]; then
    output="$DIR/split"
  fi
  [[ -n "$output" && -e "$output" ]] || continue
  bytes=$(du -sb "$output" | cut -f1)
  sizes+=("$(awk -v n="$name" -v b="$bytes" -v i="$in_bytes" \
    'BEGIN { printf "%s %.1f MB (%.2f of the input)", n, b / 1e6, b / i }')")
done

# -- 6. the memory of steps at two sizes
memory_rows=()
if [[ "$BENCH_SMALL_MB" != 0 && -x "$HEALTHPORT" ]]; then
  for entry in "steps:steps" "steps-dedupe:steps --dedupe"; do
    name=${entry%%:*}
    read -r -a flags <<< "${entry#*:}"
    note "$name on $SMALL ($BENCH_RUNS runs)"
    measure_alone "$name-small" "$HEALTHPORT" "${flags[@]}" "$SMALL" --quiet
    [[ $M_STATUS -ne 0 ]] && { failed=1; continue; }
    small_rss=$M_RSS_KB
    large_rss=""
    for i in "${!done_names[@]}"; do [[ "${done_names[$i]}" == "$name" ]] && large_rss=${done_rss[$i]}; done
    if [[ -z "$large_rss" ]]; then
      note "$name on $IN ($BENCH_RUNS runs)"
      measure_alone "$name" "$HEALTHPORT" "${flags[@]}" "$IN" --quiet
      [[ $M_STATUS -ne 0 ]] && { failed=1; continue; }
      large_rss=$M_RSS_KB
    fi
    memory_rows+=("$(printf '%-22s %9s %9s' "$name" $((small_rss / 1024)) $((large_rss / 1024)))")
  done
fi

# -- 7. report
{
  echo "healthport benchmark, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit:  $(git rev-parse --short HEAD 2>/dev/null || echo none)$(git diff --quiet 2>/dev/null || echo ' (dirty)')"
  echo "machine: $(uname -sm), $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GB RAM", $2 / 1048576 }' /proc/meminfo)"
  echo "input:   $IN, $in_mb MB ($in_bytes bytes), $params; floor elements $floor_elements, expected $expected_elements"
  echo "runs:    median of $BENCH_RUNS (warm page cache), each run after a run of the floor; ratio = the median"
  echo "         of those floor runs over the command's median (throughput relative to the floor)"
  echo "         (MB/s of the uncompressed XML, also for the rows that read $ZIP; failed commands first)"
  echo "ceiling: ${ceiling:-not measured}× the floor: two floors at once on two copies, aggregate MB/s over one"
  echo "         floor's (what two threads of libxml2 work reach here); × ceiling = ratio / ceiling"
  echo "paired:  the median over runs of (the floor run just before / the run): robust to this VM's"
  echo "         speed drifting between minutes, which moves both runs of a pair together"
  echo "cores:   user+sys CPU seconds over wall seconds (2.00: both of two cores busy all along)"
  echo
  row name seconds "MB/s" ratio "×ceiling" paired cores "RSS MB"
  printf '%s\n' "${rows[@]}"
  if (( ${#sizes[@]} )); then
    echo
    echo "outputs: $(IFS=';'; echo "${sizes[*]}" | sed 's/;/; /g')"
  fi
  if (( ${#memory_rows[@]} )); then
    echo
    echo "peak RSS of steps at two sizes (MB; equal when memory does not grow with the input):"
    echo "         small: $SMALL, $small_mb MB, $small_params"
    printf '%-22s %9s %9s\n' name "${small_mb%.*} MB" "${in_mb%.*} MB"
    printf '%s\n' "${memory_rows[@]}"
  fi
} | tee "$DIR/results.txt"

[[ "${BENCH_NO_HEALTHKIT:-0}" == 1 ]] || bash "$ROOT/Benchmarks/load_vs_healthkit.sh" || failed=1
exit $failed
