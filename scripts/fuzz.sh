#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/XMLReader, Fuzz/CSVReader, Fuzz/JSONLinesReader, Fuzz/ParallelReader,
# Fuzz/GPXReader, Fuzz/ECGReader) with address sanitizer and runs each for SECONDS seconds, one after
# the other, on a corpus seeded from Samples/, the malformed corpus, the fuzz regressions,
# ../shared/fixtures/real (when present) and the committed corpora of Fuzz/corpus/<target>/ (GPX: the
# sample export's routes and a file of corners; ECG: recordings in Apple's layout, both separators).
# The corpus (.build/fuzz-corpus) is kept between runs, so each run starts from the coverage the
# last one reached. A crash, leak, timeout or sanitizer report fails the run; its reproducer is
# copied to Tests/Fixtures/fuzz-regressions/ to keep.
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: xml csv jsonl par gpx ecg; default all six)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
TARGETS=("${@:2}")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(xml csv jsonl par gpx ecg)
SCRATCH=.build/fuzz
FLAGS=(-Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld -Xswiftc -DFUZZING)
# Swift's crash backtracer trips address sanitizer and can hang a crashing run (and
# -minimize_crash=1); the sanitizer's report is the one to read.
export SWIFT_BACKTRACE=enable=no

for target in "${TARGETS[@]}"; do
  swift build --scratch-path "$SCRATCH" "${FLAGS[@]}" --product "fuzz-$target" >&2
done

seed() {  # seed DIR FILES...
  local dir=$1; shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp -f "$f" "$dir/seed-$(basename "$(dirname "$f")")-$(basename "$f")"; done
  return 0
}
CORPUS=.build/fuzz-corpus
shopt -s nullglob
real=(../shared/fixtures/real/*/*.xml ../shared/fixtures/real/*/*/*/*.xml)
seed "$CORPUS/xml" Samples/export.xml Tests/Fixtures/malformed/*.xml Tests/Fixtures/fuzz-regressions/xml-* "${real[@]}"
# The parallel reader's seeds are the XML reader's (one parser and four must agree on each).
seed "$CORPUS/par" Samples/export.xml Tests/Fixtures/malformed/*.xml Tests/Fixtures/fuzz-regressions/par-* "${real[@]}"
# CSV seeds: the sample as our single table, and small CSVs of other tools' shapes.
mkdir -p "$CORPUS/csv"
.build/debug/healthport convert Samples/export.xml --to csv --quiet 2>/dev/null | head -c 20000 > "$CORPUS/csv/seed-records.csv" || true
printf 'type;Start Date;End Date;value;unit;source\nHKQuantityTypeIdentifierStepCount;2024-01-02T03:04:05Z;2024-01-02T03:09:05+02:00;12;count;Pedometer\n' > "$CORPUS/csv/seed-foreign.csv"
printf 'start_date,end_date,value\n2024-01-02 03:04:05 +0100,2024-01-02 03:05:05 +0100,"1,5"\n' > "$CORPUS/csv/seed-notype.csv"
seed "$CORPUS/csv" Tests/Fixtures/fuzz-regressions/csv-*
# JSON Lines seeds: healthport's own JSON Lines (first lines of the sample: whole lines stay valid)
# and JSON documents of small exports, and the corners of the format a writer does not produce.
mkdir -p "$CORPUS/jsonl"
.build/debug/healthport convert Samples/export.xml --to jsonl --quiet 2>/dev/null | head -n 40 > "$CORPUS/jsonl/seed-sample.jsonl" || true
for f in Tests/Fixtures/malformed/*.xml "${real[@]}"; do
  [ "$(wc -c < "$f")" -le 60000 ] || continue
  .build/debug/healthport convert "$f" --to json --quiet 2>/dev/null | head -c 60000 > "$CORPUS/jsonl/seed-$(basename "$f" .xml).json" || true
done
printf '{"element":"Record","attributes":{"type":"HKQuantityTypeIdentifierStepCount","value":12,"startDate":"2024-01-02 03:04:05 +0100","endDate":"2024-01-02 03:05:05 +0100","x":null,"y":true},"text":"\\u00e9\\ud83d\\ude00\\n"}\n' > "$CORPUS/jsonl/seed-headerless.jsonl"
printf '{"elements":[{"element":"Me","attributes":{"HKCharacteristicTypeIdentifierBiologicalSex":"HKBiologicalSexFemale"},"children":[]}],"extra":[1,-2.5e3,{"a":[false,null]}],"header":{"root":"HealthData","prologBase64":"PD94bWwgdmVyc2lvbj0iMS4wIj8+Cg==","attributes":{"locale":"en_US"}}}\n' > "$CORPUS/jsonl/seed-document.json"
find "$CORPUS/jsonl" -empty -delete
seed "$CORPUS/jsonl" Tests/Fixtures/fuzz-regressions/jsonl-*
# GPX and ECG seeds: the committed corpora (kept small, at most 5 MB in all) and the regressions.
seed "$CORPUS/gpx" Fuzz/corpus/gpx/* Tests/Fixtures/fuzz-regressions/gpx-*
seed "$CORPUS/ecg" Fuzz/corpus/ecg/* Tests/Fixtures/fuzz-regressions/ecg-*

mkdir -p .build/fuzz-artifacts
status=0
for target in "${TARGETS[@]}"; do
  echo "fuzz-$target: ${SECONDS_PER_TARGET}s" >&2
  log=.build/fuzz-artifacts/fuzz-$target.log
  rm -f .build/fuzz-artifacts/$target-*  # reproducers of an earlier run are not this run's
  if ! "$SCRATCH/debug/fuzz-$target" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -artifact_prefix=.build/fuzz-artifacts/$target- -print_final_stats=1 \
      "$CORPUS/$target" > "$log" 2>&1; then
    status=1
    echo "fuzz-$target FAILED; reproducers:" >&2
    for crash in .build/fuzz-artifacts/$target-*; do
      mkdir -p Tests/Fixtures/fuzz-regressions
      cp "$crash" "Tests/Fixtures/fuzz-regressions/$(basename "$crash")"
      echo "  $crash" >&2
    done
    tail -40 "$log" >&2
  fi
  # The coverage reached (last status line: cov, ft, corpus) and the final stats.
  { grep -E "^#[0-9]+" "$log" | tail -1
    grep -E "stat::|Done [0-9]+ runs" "$log"; } | sed "s/^/fuzz-$target: /" >&2 || true
done
exit $status
