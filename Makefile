# healthport: the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
BIN := .build/release/healthport

.PHONY: deps clients build release demo test stress lint bench fuzz ci clean

deps:
	@bash scripts/install-deps.sh

## The pinned Python readers (pandas 2 and 3, DuckDB, its SQLite scanner, polars, pyarrow) that the tests load outputs with.
clients: deps
	@bash scripts/python-clients.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product healthport

## Installs what is missing, builds, and runs the main job on the bundled sample: `info` first, which
## lists the sample's quirks once, then the converts --quiet (they would warn about the same quirks).
demo: release
	$(BIN) info Samples/export.zip
	@mkdir -p .demo && rm -rf .demo/tables  # the demo's own split, possibly from a healthport without manifests
	$(BIN) convert Samples/export.zip --to csv -o .demo/records.csv --quiet
	$(BIN) convert Samples/export.zip --to csv --split -o .demo/tables --quiet
	$(BIN) steps Samples/export.zip --by month --source-product Watch
	$(BIN) steps Samples/export.zip --by month --dedupe
	$(BIN) workouts Samples/export.zip --summary
	@echo "CSV written to .demo/records.csv and .demo/tables/"

## Installs what is missing, builds, lints and passes the tests.
test: deps clients lint
	$(SWIFT) build --build-tests
	$(SWIFT) test

## The tests on big inputs (hundreds of MB, long runs) as well, which `make test` skips.
stress: deps clients
	$(SWIFT) build --build-tests
	HEALTHPORT_STRESS=1 $(SWIFT) test

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests

bench: release
	BENCH_NO_BUILD=1 bash Benchmarks/bench_all.sh
	bash Benchmarks/bench_bundle.sh

## Fuzzes the XML, CSV and JSON Lines readers (libFuzzer + address sanitizer) for SECONDS each.
SECONDS ?= 60
fuzz: deps
	$(SWIFT) build --product healthport
	bash scripts/fuzz.sh $(SECONDS)

## What CI runs: the tests, then a short fuzz smoke.
ci: test
	$(MAKE) fuzz SECONDS=60

clean:
	rm -rf .build .bench .demo .venv-clients .venv-clients-pandas3
