# healthport: the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
BIN := .build/release/healthport

.PHONY: deps build release demo test lint bench fuzz clean

deps:
	@bash scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product healthport

## Installs what is missing, builds, and runs the main job on the bundled sample.
demo: release
	$(BIN) info Samples/export.zip

## Installs what is missing, builds, lints and passes the tests.
test: deps lint
	$(SWIFT) build --build-tests
	$(SWIFT) test

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests

bench: release
	BENCH_NO_BUILD=1 bash Benchmarks/bench.sh

clean:
	rm -rf .build .bench
