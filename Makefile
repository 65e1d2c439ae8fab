# healthport: the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
BIN := .build/release/healthport

.PHONY: deps clients build release install demo test stress lint docs bench fuzz ci clean

deps:
	@bash scripts/install-deps.sh

## The pinned Python readers (pandas 2 and 3, DuckDB, its SQLite scanner, polars, pyarrow) that the tests load outputs with.
clients: deps
	@bash scripts/python-clients.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product healthport

## Installs the release binary, its man page and its bash, zsh and fish completions (generated from the
## help by the binary itself) under PREFIX, inside DESTDIR when set (a package's staging folder). It
## builds the binary when a source is newer, so `make release && sudo make install` needs no swift as
## root. BIN=path installs another build without building (the tests install the debug one).
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL_FILES := .build/install-files
RELEASE_BIN := .build/release/healthport
$(RELEASE_BIN): Package.swift $(shell find Sources -type f)
	$(MAKE) release
install: $(if $(filter $(RELEASE_BIN),$(BIN)),$(RELEASE_BIN))
	@rm -rf $(INSTALL_FILES) && mkdir -p $(INSTALL_FILES)
	$(BIN) --generate-manpage > $(INSTALL_FILES)/healthport.1
	$(BIN) --generate-completion bash > $(INSTALL_FILES)/healthport.bash
	$(BIN) --generate-completion zsh > $(INSTALL_FILES)/_healthport
	$(BIN) --generate-completion fish > $(INSTALL_FILES)/healthport.fish
	install -D -m 755 $(BIN) "$(DESTDIR)$(PREFIX)/bin/healthport"
	install -D -m 644 $(INSTALL_FILES)/healthport.1 "$(DESTDIR)$(PREFIX)/share/man/man1/healthport.1"
	install -D -m 644 $(INSTALL_FILES)/healthport.bash "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/healthport"
	install -D -m 644 $(INSTALL_FILES)/_healthport "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_healthport"
	install -D -m 644 $(INSTALL_FILES)/healthport.fish "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/healthport.fish"
	@rm -rf $(INSTALL_FILES)

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

## Installs what is missing, builds, lints and passes the tests. scripts/test-summary.py prints failures
## in full, leaves out the line of each test that passed or was skipped (all in .build/test.log), and
## ends with a line per skip reason and `N passed, N failed, N skipped`. There are no XCTest tests.
TEST := python3 scripts/test-summary.py --log .build/test.log -- $(SWIFT) test --skip-build --disable-xctest
test: deps clients lint
	$(SWIFT) build --build-tests
	$(TEST)

## The tests on big inputs (hundreds of MB, long runs) as well, which `make test` skips.
stress: deps clients
	$(SWIFT) build --build-tests
	HEALTHPORT_STRESS=1 $(TEST)

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Examples

## The library's documentation: the DocC catalog (Sources/HealthPort/HealthPort.docc) and the doc
## comments of HealthPort's public symbols, built by the toolchain's docc into
## HealthPort.doccarchive in .build/docs, every warning an error. The symbol graph is extracted from the
## debug build's module (no plugin: no outside package can be fetched), which needs the C modules'
## maps and headers it was built with. `docc preview` serves it. First, the public API's check: at
## most 200 public declarations, each documented and named in scripts/public-api.txt.
DOCC ?= $(or $(shell command -v docc),/opt/swift/usr/bin/docc)
DOCS := .build/docs
docs: deps
	python3 scripts/narrow-public-api.py --check
	$(SWIFT) build --target HealthPort
	@rm -rf $(DOCS) && mkdir -p $(DOCS)/symbol-graphs
	$(SWIFT) symbolgraph-extract -module-name HealthPort -minimum-access-level public \
	  -target "$$($(SWIFT) -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')" \
	  -I "$$($(SWIFT) build --show-bin-path)/Modules" -output-dir $(DOCS)/symbol-graphs \
	  $(foreach map,$(wildcard Sources/C*/module.modulemap),-Xcc -fmodule-map-file=$(map)) \
	  $(addprefix -Xcc ,$(shell pkg-config --cflags-only-I libxml-2.0 libarchive))
	$(DOCC) convert Sources/HealthPort/HealthPort.docc --additional-symbol-graph-dir $(DOCS)/symbol-graphs \
	  --fallback-display-name HealthPort --fallback-bundle-identifier healthport.HealthPort \
	  --output-path $(DOCS)/HealthPort.doccarchive --warnings-as-errors

bench: release
	BENCH_NO_BUILD=1 bash Benchmarks/bench_all.sh

## Fuzzes the XML (one and several parsers), CSV, JSON Lines, GPX and ECG readers (libFuzzer + address
## sanitizer) for SECONDS each.
SECONDS ?= 60
fuzz: deps
	$(SWIFT) build --product healthport
	bash scripts/fuzz.sh $(SECONDS)

## What CI runs: the tests, the library's documentation, then a short fuzz smoke.
ci: test docs
	$(MAKE) fuzz SECONDS=60

clean:
	rm -rf .build .bench .demo .venv-clients .venv-clients-pandas3
