#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/XMLReader, Fuzz/CSVReader) with address sanitizer and runs
# each for SECONDS seconds on a corpus seeded from Samples/, the malformed corpus, the fuzz
# regressions and ../shared/fixtures/real (when present). A crash, leak, timeout or sanitizer
# report fails the run; its reproducer is copied to Tests/Fixtures/fuzz-regressions/ to keep.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
SCRATCH=.build/fuzz
FLAGS=(-Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld -Xswiftc -DFUZZING)

for product in fuzz-xml fuzz-csv; do
  swift build --scratch-path "$SCRATCH" "${FLAGS[@]}" --product "$product" >&2
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
# CSV seeds: the sample as our single table, and small CSVs of other tools' shapes.
mkdir -p "$CORPUS/csv"
.build/debug/healthport convert Samples/export.xml --to csv --quiet 2>/dev/null | head -c 20000 > "$CORPUS/csv/seed-records.csv" || true
printf 'type;Start Date;End Date;value;unit;source\nHKQuantityTypeIdentifierStepCount;2024-01-02T03:04:05Z;2024-01-02T03:09:05+02:00;12;count;Pedometer\n' > "$CORPUS/csv/seed-foreign.csv"
printf 'start_date,end_date,value\n2024-01-02 03:04:05 +0100,2024-01-02 03:05:05 +0100,"1,5"\n' > "$CORPUS/csv/seed-notype.csv"
seed "$CORPUS/csv" Tests/Fixtures/fuzz-regressions/csv-*

mkdir -p .build/fuzz-artifacts
status=0
for target in xml csv; do
  echo "fuzz-$target: ${SECONDS_PER_TARGET}s" >&2
  log=.build/fuzz-artifacts/fuzz-$target.log
  if ! "$SCRATCH/debug/fuzz-$target" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -artifact_prefix=.build/fuzz-artifacts/$target- -print_final_stats=1 \
      "$CORPUS/$target" > "$log" 2>&1; then
    status=1
    echo "fuzz-$target FAILED; reproducers:" >&2
    for crash in .build/fuzz-artifacts/$target-*; do
      mkdir -p Tests/Fixtures/fuzz-regressions
      cp "$crash" "Tests/Fixtures/fuzz-regressions/$target-$(basename "$crash")"
      echo "  $crash" >&2
    done
    tail -40 "$log" >&2
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|Done [0-9]+ runs" "$log" | sed "s/^/fuzz-$target: /" >&2 || true
done
exit $status
