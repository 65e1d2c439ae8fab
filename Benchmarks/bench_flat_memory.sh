#!/usr/bin/env bash
# Flat memory at two sizes: a small export whose one workout has one route of 1 M and then 10 M
# points (the GPX streamed by Benchmarks/generate_bundle.py, about 0.26 and 2.6 GB), and the peak
# RSS of `info`, `convert --to csv --split`, `convert --to jsonl` and `routes --to geojson` on
# each. Memory is flat when the two sizes' peaks are about equal.
#
# Environment: FLAT_POINTS="1000000 10000000", HEALTHPORT=path (default .build/release/healthport),
# FLAT_DIR=/tmp/healthport-flat (removed at the end). Results on stdout and in
# $FLAT_DIR/../flat-memory-results.txt.

set -uo pipefail
export LC_ALL=C
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2

POINTS="${FLAT_POINTS:-1000000 10000000}"
HEALTHPORT="${HEALTHPORT:-.build/release/healthport}"
DIR="${FLAT_DIR:-/tmp/healthport-flat}"
RESULTS="$(dirname "$DIR")/flat-memory-results.txt"
trap 'rm -rf "$DIR"' EXIT

# measure NAME COMMAND...: prints NAME, wall seconds and peak RSS (MB).
measure() {
  local name=$1
  shift
  local start=$EPOCHREALTIME
  if ! /usr/bin/time -f %M -o "$DIR/rss" "$@" > /dev/null 2> "$DIR/stderr"; then
    printf '  %-26s FAILED: %s\n' "$name" "$(tail -1 "$DIR/stderr")"
    return
  fi
  printf '  %-26s %8.2f s %6d MB\n' "$name" "$(echo "$EPOCHREALTIME - $start" | bc -l)" "$(($(tail -1 "$DIR/rss") / 1024))"
}

{
  echo "flat memory: one route of N points; wall times are indicative (a loaded machine), peak RSS exact"
  for n in $POINTS; do
    rm -rf "$DIR"
    mkdir -p "$DIR" || exit 2
    top=$(python3 Benchmarks/generate_bundle.py --long-route "$n" "$DIR") || exit 2
    echo "$n points: $(du -b "$top/workout-routes/route_long.gpx" | cut -f1) bytes of GPX"
    measure info "$HEALTHPORT" info "$top" --format json --quiet
    measure "convert --to csv --split" "$HEALTHPORT" convert "$top" --to csv --split -o "$DIR/split" --quiet
    rm -rf "$DIR/split"
    measure "convert --to jsonl" "$HEALTHPORT" convert "$top" --to jsonl --quiet
    measure "routes --to geojson" "$HEALTHPORT" routes "$top" --to geojson --quiet
  done
} | tee "$RESULTS"
