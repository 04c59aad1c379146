# dohyo — build and test.
#   make test     the whole suite: checks that the test servers' ports are
#                 free, installs the tools it needs (gcc for -race, chromium;
#                 apt-get as root or with sudo), gofmt, vet, then — with real
#                 Cassandra and HBase started by scripts/with-backends.sh —
#                 every Go test under the race detector (real clients
#                 included; one progress line per package) and a short run
#                 of every fuzz target, then — the single-node servers
#                 stopped — the cluster tests and the short soak on a
#                 3-node Cassandra and a two-region-server HBase
#                 (scripts/with-cluster.sh). Every step runs even when an earlier
#                 one failed; the summary at the end lists each step's
#                 outcome. README.md "Running the tests" says what it
#                 needs. `make -n fmt-check vet integration` prints the
#                 steps' commands only.
#   make test-busy  the same with every core kept busy by CPU-bound loops
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

.PHONY: all build test test-busy unit fmt-check vet go-test go-test-disruptive gocql-suite fuzz-smoke cluster-test integration bench clean preflight tools

all: build

build:
	$(GO) build ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './it/.cache/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet -tags $(TAGS) ./...

# The steps of `make test`, in order. scripts/test-steps.sh runs each with
# make and keeps going after a failing one; the summary at the end lists
# every step's outcome, and `make test` fails when any step failed.
STATIC_STEPS = fmt-check vet
SERVER_STEPS = go-test go-test-disruptive gocql-suite fuzz-smoke
# Run by scripts/with-cluster.sh (3-node Cassandra on 127.0.0.1-3, HBase
# with two region servers) after the single-node servers are stopped.
CLUSTER_STEPS = cluster-test

go-test:
	@echo "[make] go test, every package (one line as each starts; failing tests' output in full)"
	set -o pipefail; $(GO) test -json $(TESTFLAGS) -tags $(TAGS) ./... $(FORKS) | $(PROGRESS)

# Tests that stop and restart the servers, alone, after everything else.
# Both commands run even when the first fails.
go-test-disruptive:
	@echo "[make] tests that stop and restart the servers, alone, after everything else"
	set -o pipefail; rc=0; \
	DOHYO_TEST_DISRUPTIVE=1 HBASE_WAIT_TIMEOUT=420 $(GO) test -json $(TESTFLAGS) -run 'TestReadinessFollowsHBase|TestRelaySurvivesCassandraKill|TestServeTierLWTLinearizableAcrossFaults' ./cmd/dohyo/ | $(PROGRESS) || rc=1; \
	DOHYO_TEST_DISRUPTIVE=1 HBASE_WAIT_TIMEOUT=420 $(GO) test -json $(TESTFLAGS) -run 'TestLWTLinearizableAcrossHBaseRestart' ./bindings/hbase/ | $(PROGRESS) || rc=1; \
	exit $$rc

gocql-suite:
	@echo "[make] gocql v1.7.0's own integration suite on Cassandra, the relay, embedded and HBase (it/gocql; counts per protocol)"
	set -o pipefail; DOHYO_TEST_GOCQL_SUITE=1 $(GO) test -count=1 -timeout 45m -v -run 'TestGocqlSuite' ./it/gocql/ | grep -v '^=== RUN'

fuzz-smoke:
	@bash scripts/fuzz-smoke.sh $(FUZZTIME)

# Issue #46: node loss through the relay, side by side with gocql straight
# to the cluster; region server loss, split and move on HBase; the short
# soak (needs scripts/with-cluster.sh's environment). -v: the errors
# counted per fault and the soak's verdict are printed on success too.
cluster-test:
	@echo "[make] clusters: 3-node Cassandra (a node killed and restarted, a node frozen 30 s, through dohyo and direct), HBase with two region servers (split, move, kill -9), a short soak with one fault of each kind"
	set -o pipefail; $(GO) test -count=1 -race -timeout 30m -v -run 'TestRelayCluster|TestHBaseCluster|TestSoakClusters' ./cmd/dohyo/ | grep -Ev '^=== (RUN|PAUSE|CONT)'

# integration runs inside scripts/with-backends.sh (servers up, env set).
integration: go-test go-test-disruptive gocql-suite fuzz-smoke

# Fails at once, before any install, when a server's port is taken.
preflight:
	bash scripts/with-backends.sh --check-ports

tools:
	bash scripts/install-tools.sh

test: preflight tools
	bash scripts/test-steps.sh "$(STATIC_STEPS)" "$(SERVER_STEPS)" "$(CLUSTER_STEPS)"

# The whole suite with every core kept busy by CPU-bound loops for the
# whole run (README: "On a busy machine").
test-busy: preflight tools
	DOHYO_TEST_HOG=$$(nproc) bash scripts/test-steps.sh "$(STATIC_STEPS)" "$(SERVER_STEPS)" "$(CLUSTER_STEPS)"

unit: fmt-check vet
	$(GO) test $(TESTFLAGS) ./... $(FORKS)
	@bash scripts/fuzz-smoke.sh $(FUZZTIME)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf dohyo dohyo-data cap cap-a cap-c report.html report.json
