# The commands `make bench` and `Benchmarks/compare.sh` measure, sourced by both.
# Measured commands: "name:arguments". {IN} is replaced by the input file, {ZIP} by its zip, {DB} by a
# fresh database, {PGDB} by a fresh schema of a throwaway PostgreSQL cluster (Benchmarks/pg_cluster.sh),
# {OUT} by a fresh output file (removed before each run: the issue measures writing to a file on
# disk), {DIR} by the benchmark's folder. Arguments are split on
# whitespace (no quoting); leading NAME=value words are set in the environment. stdout goes to
# /dev/null, stderr to .bench/<name>.stderr.
CMDS=(
  "info:info {IN} --format json --quiet"
  "info-1-thread:HEALTHPORT_THREADS=1 info {IN} --format json --quiet"
  "convert-csv:convert {IN} --to csv -o {OUT} --quiet"
  "convert-csv-split:convert {IN} --to csv --split -o {DIR}/split --quiet"
  "convert-parquet:convert {IN} --to parquet -o {DIR}/parquet --partition-by type,year --quiet"
  "convert-jsonl:convert {IN} --to jsonl -o {OUT} --quiet"
  "convert-xml:convert {IN} --to xml -o {OUT} --quiet"
  "steps:steps {IN} --quiet"
  "steps-dedupe:steps {IN} --dedupe --quiet"
  "workouts-summary:workouts {IN} --summary --quiet"
  "stats:stats {IN} --type HeartRate --by month --quiet"
  "load:load {IN} --db {DB} --quiet"
  "load-postgres:load {IN} --db {PGDB} --quiet"
  # Several parsers on one export (issue 16): two threads, as on this machine, and eight, for
  # memory; the zip cut into ranges as it inflates.
  "info-2-threads:HEALTHPORT_THREADS=2 info {IN} --format json --quiet"
  "steps-2-threads:HEALTHPORT_THREADS=2 steps {IN} --quiet"
  "convert-csv-2-threads:HEALTHPORT_THREADS=2 convert {IN} --to csv -o {OUT} --quiet"
  "convert-jsonl-2-threads:HEALTHPORT_THREADS=2 convert {IN} --to jsonl -o {OUT} --quiet"
  "info-zip-2-threads:HEALTHPORT_THREADS=2 info {ZIP} --format json --quiet"
  "info-8-threads:HEALTHPORT_THREADS=8 info {IN} --format json --quiet"
  "convert-csv-8-threads:HEALTHPORT_THREADS=8 convert {IN} --to csv -o {OUT} --quiet"
)
