# dohyo — build and test.
#   make test     the whole suite: checks that the test servers' ports are
#                 free, installs the tools it needs (gcc for -race, chromium;
#                 apt-get as root or with sudo), gofmt, vet, then — with real
#                 Cassandra and HBase started by scripts/with-backends.sh —
#                 every Go test under the race detector (real clients
#                 included; one progress line per package) and a short run
#                 of every fuzz target. README.md "Running the tests" says
#                 what it needs. `make -n test` prints the steps only.
#   make unit     the same without real servers (integration tests skip)
#   make bench    benchmarks (see docs/BENCHMARKS.md for recorded figures)
SHELL := /bin/bash
GO ?= go
FUZZTIME ?= 10s
TESTFLAGS ?= -race -count=1 -timeout 60m
# The forked modules under third_party (their own modules, outside ./...)
# whose dohyo patches have tests of their own.
FORKS ?= github.com/tsuna/gohbase/...
# cassandra_ref: run the conformance scenarios against real Cassandra too.
TAGS ?= cassandra_ref

# go test -json | this: a line per package started, the go test closing
# lines, and the output of failing tests only.
PROGRESS ?= $(GO) run ./scripts/testprogress
# Recursive make goes through SUBMAKE: GNU make runs a line that names
# $$(MAKE) even under -n, which would start the servers for `make -n test`.
SUBMAKE = $(MAKE) --no-print-directory

.PHONY: all build test unit fmt-check vet go-test fuzz-smoke integration bench clean preflight tools

all: build

build:
	$(GO) build ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './it/.cache/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet -tags $(TAGS) ./...

go-test:
	@echo "[make] go test, every package (one line as each starts; failing tests' output in full)"
	set -o pipefail; $(GO) test -json $(TESTFLAGS) -tags $(TAGS) ./... $(FORKS) | $(PROGRESS)
	@echo "[make] tests that stop and restart the servers, alone, after everything else"
	set -o pipefail; DOHYO_TEST_DISRUPTIVE=1 HBASE_WAIT_TIMEOUT=420 $(GO) test -json $(TESTFLAGS) -run 'TestReadinessFollowsHBase|TestRelaySurvivesCassandraKill|TestServeTierLWTLinearizableAcrossFaults' ./cmd/dohyo/ | $(PROGRESS)
	set -o pipefail; DOHYO_TEST_DISRUPTIVE=1 HBASE_WAIT_TIMEOUT=420 $(GO) test -json $(TESTFLAGS) -run 'TestLWTLinearizableAcrossHBaseRestart' ./bindings/hbase/ | $(PROGRESS)
	@echo "[make] gocql v1.7.0's own integration suite on Cassandra, the relay, embedded and HBase (it/gocql; counts per protocol)"
	set -o pipefail; DOHYO_TEST_GOCQL_SUITE=1 $(GO) test -count=1 -timeout 45m -v -run 'TestGocqlSuite' ./it/gocql/ | grep -v '^=== RUN'

fuzz-smoke:
	@bash scripts/fuzz-smoke.sh $(FUZZTIME)

# integration runs inside scripts/with-backends.sh (servers up, env set).
integration: go-test fuzz-smoke

# Fails at once, before any install, when a server's port is taken.
preflight:
	bash scripts/with-backends.sh --check-ports

tools:
	bash scripts/install-tools.sh

test: preflight tools fmt-check vet
	bash scripts/with-backends.sh $(SUBMAKE) integration

unit: fmt-check vet
	$(GO) test $(TESTFLAGS) ./... $(FORKS)
	@bash scripts/fuzz-smoke.sh $(FUZZTIME)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf dohyo dohyo-data cap cap-a cap-c report.html report.json
