#!/usr/bin/env bash
# Records what a healthport binary does, so that a refactoring can show it changed nothing.
#
#   scripts/behaviour-snapshot.sh record BIN OUTDIR     run the fixed command list with BIN into OUTDIR
#   scripts/behaviour-snapshot.sh compare BEFORE AFTER  report every difference between two snapshots
#
# Each case (one command on one input) gets a folder with its stdout, stderr, exit code and the files
# it wrote. The inputs: Samples/, the real fixtures of ../shared/fixtures/real (when present) and a
# 20 MB export from each generator (Benchmarks/generate_export.py and ../shared/bench/gen_export.py,
# when present), generated once into $SNAPSHOT_INPUTS (default .snapshot-inputs/, not committed) and
# checked by digest (a shorter command list there: the readers' paths and the streaming outputs). Only what must vary is normalised: the case's own output folder in messages
# becomes $OUT, and the run's own id in Parquet part names (`part-20261205T163329Z-2166b202-`)
# `part-<run>-`, in names and in the manifest. There is no timing or progress to remove (no terminal, and --quiet where the
# command prints figures of its own run). SQLite databases are compared by their `sqlite3 .dump`;
# files over 1 MB are kept as their size and SHA-256 (with the first 40 lines, to show where).
#
# SNAPSHOT_QUICK=1 leaves out the generated exports (a minute instead of several on two cores).
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
shared=${HEALTHPORT_SHARED:-$here/../shared}
inputs=${SNAPSHOT_INPUTS:-$here/.snapshot-inputs}

usage() {
  sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 64
}

# A Parquet part's run id (the time and a random suffix), the same in names and manifests.
run_id='s/part-[0-9]{8}T[0-9]{6}Z-[0-9a-f]+-/part-<run>-/g'

# The case's own paths, and the figures of time a run prints (seconds taken, MB/s).
normalise() {
  sed -E "s|$scratch|\$OUT|g; s|$here/||g; s|$shared/|shared/|g; s|$inputs/|inputs/|g" \
    | sed -E 's/ in [0-9]+(\.[0-9]+)? s\b/ in <T> s/g; s/[0-9]+(\.[0-9]+)? MB\/s/<R> MB\/s/g'
}

# A database's dump, the time and duration of each load (its row in `exports`) left out.
dump_database() {
  sqlite3 "$1" .dump 2>&1 | normalise \
    | sed -E "/^INSERT INTO (\"?exports\"?|loads) VALUES/ { s/'[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z'/'<time>'/g; s/,[0-9]+\.[0-9]+,/,<seconds>,/g; }"
}

# Keeps FILE under DEST: big files as a digest and their head, databases as a dump.
keep_file() {
  local file=$1 dest=$2
  mkdir -p "$(dirname "$dest")"
  case "$file" in
    *.db | *.sqlite)
      if head -c 16 "$file" | grep -q 'SQLite format 3'; then
        dump_database "$file" >"$dest.dump"
        return
      fi
      ;;
  esac
  local size
  size=$(stat -c %s "$file")
  if [[ $file == *.json ]] && ((size <= 1000000)); then
    sed -E "$run_id" "$file" >"$dest"
  elif ((size > 1000000)); then
    {
      echo "size $size"
      echo "sha256 $(sha256sum <"$file" | cut -d' ' -f1)"
      echo "--- first 40 lines"
      head -n 40 "$file" | cut -c 1-400
    } >"$dest.digest"
  else
    cp "$file" "$dest"
  fi
}

# run_case NAME INPUT ARGS... : runs BIN with ARGS, {IN} replaced by INPUT and {OUT} by the case's
# scratch folder; leading NAME=value words go to the environment.
run_case() {
  local name=$1 input=$2
  shift 2
  local dir=$snapshot/cases/$name
  local scratch=$work/$name
  mkdir -p "$dir" "$scratch"
  local env_words=() args=() stdin=/dev/null
  local word
  for word in "$@"; do
    word=${word//\{IN\}/$input}
    word=${word//\{OUT\}/$scratch}
    if ((${#args[@]} == 0)) && [[ $word == STDIN=* ]]; then
      stdin=${word#STDIN=}
    elif ((${#args[@]} == 0)) && [[ $word =~ ^[A-Z_]+= ]]; then
      env_words+=("$word")
    else
      args+=("$word")
    fi
  done
  printf '%s\n' "${env_words[*]:-} healthport ${args[*]} <$stdin" | normalise >"$dir/command"
  (cd "$scratch" && env HEALTHPORT_THREADS=2 "${env_words[@]}" "$bin" "${args[@]}" <"$stdin" >"$dir/stdout.raw" 2>"$dir/stderr.raw")
  echo $? >"$dir/exit"
  for stream in stdout stderr; do
    local raw=$dir/$stream.raw
    local size
    size=$(stat -c %s "$raw")
    if ((size > 1000000)); then
      keep_file "$raw" "$dir/$stream"
    else
      normalise <"$raw" >"$dir/$stream"
    fi
    rm -f "$raw"
  done
  local file
  while IFS= read -r -d '' file; do
    keep_file "$file" "$dir/files/$(sed -E "$run_id" <<<"${file#"$scratch"/}")"
  done < <(find "$scratch" -type f -print0 | sort -z)
  rm -rf "$scratch"
}

# The commands run on every input: every command and every output format. With `big` (the
# generated 20 MB exports), those that read every element on each reader path (two threads, one
# thread) and each streaming output.
cases_for() {
  local tag=$1 input=$2 all=1
  [[ ${3:-} == big ]] && all=0
  ((all)) && run_case "$tag/info" "$input" info {IN}
  run_case "$tag/info-json" "$input" info {IN} --format json
  run_case "$tag/info-1-thread" "$input" HEALTHPORT_THREADS=1 info {IN} --format json
  run_case "$tag/convert-csv" "$input" convert {IN} --to csv
  run_case "$tag/convert-csv-1-thread" "$input" HEALTHPORT_THREADS=1 convert {IN} --to csv
  run_case "$tag/convert-csv-split" "$input" convert {IN} --to csv --split -o {OUT}/split
  run_case "$tag/convert-jsonl" "$input" convert {IN} --to jsonl
  run_case "$tag/convert-json" "$input" convert {IN} --to json
  run_case "$tag/convert-xml" "$input" convert {IN} --to xml
  ((all)) && run_case "$tag/convert-xml-dir" "$input" convert {IN} --to xml -o {OUT}/unzipped/
  ((all)) && run_case "$tag/convert-zip" "$input" convert {IN} --to zip -o {OUT}/copy.zip
  ((all)) && run_case "$tag/convert-sqlite" "$input" convert {IN} --to sqlite -o {OUT}/export.db
  ((all)) && run_case "$tag/convert-parquet" "$input" convert {IN} --to parquet -o {OUT}/parquet --partition-by type,year
  run_case "$tag/convert-filtered" "$input" convert {IN} --to csv --type StepCount --from 2020-01-01 --tz UTC
  run_case "$tag/steps" "$input" steps {IN}
  run_case "$tag/steps-month-dedupe" "$input" steps {IN} --by month --dedupe
  ((all)) && run_case "$tag/workouts" "$input" workouts {IN}
  run_case "$tag/workouts-summary" "$input" workouts {IN} --summary --unit mi
  run_case "$tag/stats-heart" "$input" stats {IN} --type HeartRate --by month
  ((all)) && run_case "$tag/stats-steps-max" "$input" stats {IN} --type StepCount --agg max --by year
  run_case "$tag/sleep" "$input" sleep {IN}
  ((all)) && run_case "$tag/sleep-week" "$input" sleep {IN} --by week
  ((all)) && run_case "$tag/profile" "$input" profile {IN}
  run_case "$tag/profile-json" "$input" profile {IN} --format json
  ((all)) && run_case "$tag/chart-steps" "$input" chart steps {IN} -o {OUT}/steps.svg --by month
  ((all)) && run_case "$tag/chart-sleep" "$input" chart sleep {IN} -o {OUT}/sleep.html
  ((all)) && run_case "$tag/chart-heart" "$input" chart heart-rate {IN} -o {OUT}/heart.svg --by week
  ((all)) && run_case "$tag/chart-weight" "$input" chart weight {IN} -o {OUT}/weight.html
  ((all)) && run_case "$tag/routes-geojson" "$input" routes {IN}
  ((all)) && run_case "$tag/routes-gpx" "$input" routes {IN} --to gpx -o {OUT}/routes
  run_case "$tag/routes-csv" "$input" routes {IN} --to csv
  ((all)) && run_case "$tag/load" "$input" load {IN} --db {OUT}/health.db --quiet
  if ((all)); then
    # Loaded again into the database it filled (every element skipped), and after another export.
    preload "$tag/load-again" "$input"
    run_case "$tag/load-again" "$input" load {IN} --db {OUT}/health.db --quiet
    preload "$tag/load-after-samples" "$here/Samples/export.zip"
    run_case "$tag/load-after-samples" "$input" load {IN} --db {OUT}/health.db --quiet
  fi
  return 0
}

# Fills the database of case NAME (health.db in its scratch folder) by loading INPUT, before the case runs.
preload() {
  local scratch=$work/$1
  mkdir -p "$scratch"
  (cd "$scratch" && HEALTHPORT_THREADS=2 "$bin" load "$2" --db "$scratch/health.db" --quiet >/dev/null 2>&1)
}

# Usage errors and bad input: their messages and exit codes are behaviour too.
error_cases() {
  local zip=$here/Samples/export.zip xml=$here/Samples/export.xml
  run_case errors/no-such-file "$zip" info {OUT}/missing.zip
  run_case errors/unknown-command "$zip" inof {IN}
  run_case errors/unknown-option "$zip" steps {IN} --dedup
  run_case errors/bad-by "$zip" steps {IN} --by fortnight
  run_case errors/priority-without-dedupe "$zip" steps {IN} --priority Watch
  run_case errors/stats-priority-without-dedupe "$zip" stats {IN} --type StepCount --priority Watch
  run_case errors/chart-priority-without-dedupe "$zip" chart steps {IN} -o {OUT}/s.svg --priority Watch
  run_case errors/chart-sleep-dedupe "$zip" chart sleep {IN} -o {OUT}/s.svg --dedupe
  run_case errors/bad-tz "$zip" steps {IN} --tz Mars/Olympus
  run_case errors/bad-from "$zip" steps {IN} --from 2024-13-45
  run_case errors/bad-to "$zip" convert {IN} --to yaml
  run_case errors/sqlite-to-stdout "$zip" convert {IN} --to sqlite
  run_case errors/bad-unit "$zip" workouts {IN} --unit furlong
  run_case errors/bad-agg "$zip" stats {IN} --type HeartRate --agg median
  run_case errors/stats-no-type "$zip" stats {IN}
  run_case errors/bad-threads "$zip" HEALTHPORT_THREADS=abc info {IN}
  run_case errors/output-is-input "$xml" convert {IN} --to xml -o {IN}
  # Every error the library reports as data and the tool words (docs/errors.md).
  local plain_file=$inputs/a-file
  mkdir -p "$inputs" && printf 'x' >"$plain_file"
  run_case errors/unknown-type "$zip" info {IN} --type heartrat
  run_case errors/unknown-activity "$zip" workouts {IN} --activity runing
  run_case errors/close-tz "$zip" steps {IN} --tz Europe/Berln
  run_case errors/to-format-word "$zip" info {IN} --to json
  run_case errors/convert-bad-to-date "$zip" convert {IN} --to csv --to 2024-99-99
  run_case errors/routes-bad-from "$zip" routes {IN} --from x
  run_case errors/partition-key "$zip" convert {IN} --to parquet --partition-by month -o {OUT}/pq
  run_case errors/partition-twice "$zip" convert {IN} --to parquet --partition-by type,type -o {OUT}/pq
  run_case errors/codec "$zip" convert {IN} --to parquet --compression lz4 -o {OUT}/pq
  run_case errors/empty-person "$zip" convert {IN} --to parquet --person "" -o {OUT}/pq
  run_case errors/reserved-person "$zip" convert {IN} --to parquet --person __HIVE_DEFAULT_PARTITION__ -o {OUT}/pq
  run_case errors/parquet-no-path "$zip" convert {IN} --to parquet
  run_case errors/zip-no-path "$zip" convert {IN} --to zip
  run_case errors/split-no-path "$zip" convert {IN} --to csv --split
  run_case errors/split-elsewhere "$zip" convert {IN} --to jsonl --split
  run_case errors/keep-partial-elsewhere "$zip" convert {IN} --to csv --keep-partial
  run_case errors/split-on-file "$zip" convert {IN} --to csv --split -o "$plain_file"
  run_case errors/folder-on-file "$zip" convert {IN} --to xml -o "$plain_file/"
  run_case errors/parquet-on-file "$zip" convert {IN} --to parquet -o "$plain_file"
  run_case errors/per-workout-on-file "$zip" routes {IN} --to gpx --per-workout -o "$plain_file"
  run_case errors/output-is-folder "$zip" steps {IN} -o {OUT}
  run_case errors/load-not-sqlite "$zip" load {IN} --db "$plain_file"
  run_case errors/sqlite-filters "$zip" convert {IN} --to sqlite -o {OUT}/x.db --tz UTC
  run_case errors/unmatched-sources "$zip" convert {IN} --to csv --source-product Nokia --source Zzz --quiet
  run_case errors/unmatched-priority "$zip" steps {IN} --dedupe --priority Nokia
  run_case errors/help "$zip" --help
  run_case errors/convert-help "$zip" convert --help
  run_case errors/version "$zip" --version
  local bad
  for bad in "$here"/Tests/Fixtures/malformed/*; do
    local name
    name=$(basename "$bad")
    run_case "errors/$name-info" "$bad" info {IN}
    run_case "errors/$name-csv" "$bad" convert {IN} --to csv
    run_case "errors/$name-jsonl-skip" "$bad" convert {IN} --to jsonl --skip-invalid
    run_case "errors/$name-steps" "$bad" steps {IN}
  done
  # A truncated and a malformed copy of the sample, made here so that they need no fixture.
  mkdir -p "$inputs/broken"
  head -c 20000 "$xml" >"$inputs/broken/truncated.xml"
  sed '40s/<Record /<Record type="x" type="y" /' "$xml" >"$inputs/broken/malformed.xml"
  local broken
  for broken in truncated malformed; do
    run_case "errors/$broken-info" "$inputs/broken/$broken.xml" info {IN}
    run_case "errors/$broken-csv" "$inputs/broken/$broken.xml" convert {IN} --to csv
    run_case "errors/$broken-jsonl" "$inputs/broken/$broken.xml" convert {IN} --to jsonl --skip-invalid
    run_case "errors/$broken-steps" "$inputs/broken/$broken.xml" steps {IN}
    run_case "errors/$broken-load" "$inputs/broken/$broken.xml" load {IN} --db {OUT}/h.db
  done
}

generate_inputs() {
  mkdir -p "$inputs"
  if [[ ! -f $inputs/gen1-20mb.xml ]]; then
    python3 "$here/Benchmarks/generate_export.py" --size-mb 20 --seed 1 --quiet -o "$inputs/gen1-20mb.xml" || exit 1
  fi
  if [[ -f $shared/bench/gen_export.py && ! -f $inputs/gen2-20mb.xml ]]; then
    python3 "$shared/bench/gen_export.py" --mb 20 --seed 42 --modern-workouts -o "$inputs/gen2-20mb.xml" >/dev/null || exit 1
  fi
  if [[ -f $shared/bench/gen_export.py && ! -f $inputs/gen2-5mb.zip ]]; then
    python3 "$shared/bench/gen_export.py" --mb 5 --seed 7 --version 12broken --zip export.xml \
      -o "$inputs/gen2-5mb.zip" >/dev/null || exit 1
  fi
}

record() {
  bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
  snapshot=$2
  [[ -x $bin ]] || { echo "behaviour-snapshot: $1 is not an executable" >&2; exit 64; }
  rm -rf "$snapshot"
  mkdir -p "$snapshot/cases"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  "$bin" --version >"$snapshot/version" 2>&1

  cases_for samples-zip "$here/Samples/export.zip"
  cases_for samples-xml "$here/Samples/export.xml"
  run_case samples-xml/small-ranges-info "$here/Samples/export.xml" HEALTHPORT_RANGE_BYTES=4096 info {IN} --format json
  run_case samples-xml/small-ranges-csv "$here/Samples/export.xml" HEALTHPORT_RANGE_BYTES=4096 convert {IN} --to csv
  run_case samples-xml/small-ranges-jsonl "$here/Samples/export.xml" HEALTHPORT_RANGE_BYTES=4096 convert {IN} --to jsonl
  run_case samples-xml/small-ranges-steps "$here/Samples/export.xml" HEALTHPORT_RANGE_BYTES=4096 steps {IN} --dedupe
  run_case samples-stdin/info "$here/Samples/export.xml" STDIN={IN} info -
  run_case samples-stdin/convert-csv "$here/Samples/export.zip" STDIN={IN} convert --to csv
  run_case samples-stdin/steps "$here/Samples/export.xml" STDIN={IN} steps
  error_cases

  if [[ -d $shared/fixtures/real ]]; then
    local fixture
    while IFS= read -r fixture; do
      local tag=real/${fixture#"$shared/fixtures/real/"}
      cases_for "${tag//\//_}" "$fixture"
    done < <(find "$shared/fixtures/real" \( -name '*.xml' -o -name '*.zip' -o -name apple_health_export \) \
      ! -path '*/apple_health_export/*' | sort)
  fi

  if [[ ${SNAPSHOT_QUICK:-0} != 1 ]]; then
    generate_inputs
    sha256sum "$inputs"/gen* | sed "s|$inputs/||" >"$snapshot/inputs.sha256"
    local generated
    for generated in "$inputs"/gen*; do
      cases_for "$(basename "$generated")" "$generated" big
    done
  fi
  echo "behaviour-snapshot: $(find "$snapshot/cases" -name exit | wc -l) cases recorded in $snapshot"
}

compare() {
  local before=$1 after=$2 differences=0
  [[ -d $before/cases && -d $after/cases ]] || { echo "behaviour-snapshot: not two snapshots" >&2; exit 64; }
  if [[ -f $before/inputs.sha256 || -f $after/inputs.sha256 ]] \
    && ! cmp -s "$before/inputs.sha256" "$after/inputs.sha256"; then
    echo "the generated inputs differ: the snapshots are not comparable"
    diff "$before/inputs.sha256" "$after/inputs.sha256"
    differences=1
  fi
  # Files by their name with the run id normalised (snapshots recorded before it was too).
  declare -A old new
  local path
  while IFS= read -r path; do
    old[$(sed -E "$run_id" <<<"$path")]=$path
  done < <(cd "$before/cases" && find . -type f | sed 's|^\./||')
  while IFS= read -r path; do
    new[$(sed -E "$run_id" <<<"$path")]=$path
  done < <(cd "$after/cases" && find . -type f | sed 's|^\./||')
  while IFS= read -r path; do
    if [[ -z ${old[$path]:-} ]]; then
      echo "only after: $path"
      differences=$((differences + 1))
    elif [[ -z ${new[$path]:-} ]]; then
      echo "only before: $path"
      differences=$((differences + 1))
    elif ! cmp -s "$before/cases/${old[$path]}" "$after/cases/${new[$path]}" \
      && ! cmp -s <(sed -E "$run_id" "$before/cases/${old[$path]}") <(sed -E "$run_id" "$after/cases/${new[$path]}"); then
      echo "differs: $path"
      diff "$before/cases/${old[$path]}" "$after/cases/${new[$path]}" | head -n 20
      differences=$((differences + 1))
    fi
  done < <(printf '%s\n' "${!old[@]}" "${!new[@]}" | sort -u)
  local count
  count=$(find "$before/cases" -name exit | wc -l)
  if ((differences == 0)); then
    echo "behaviour-snapshot: no difference in $count cases"
  else
    echo "behaviour-snapshot: $differences difference(s) in $count cases"
    exit 1
  fi
}

case "${1:-}" in
  record) [[ $# == 3 ]] || usage; record "$2" "$3" ;;
  compare) [[ $# == 3 ]] || usage; compare "$2" "$3" ;;
  *) usage ;;
esac
