# dohyo — build and test.
#   make test     the whole suite: gofmt, vet, then — with real Cassandra and
#                 HBase started by scripts/with-backends.sh — every Go test
#                 under the race detector (real clients included) and a short
#                 run of every fuzz target
#   make unit     the same without real servers (integration tests skip)
#   make bench    benchmarks (see docs/BENCHMARKS.md for recorded figures)
GO ?= go
FUZZTIME ?= 10s
TESTFLAGS ?= -race -count=1 -timeout 60m
# cassandra_ref: run the conformance scenarios against real Cassandra too.
TAGS ?= cassandra_ref

.PHONY: all build test unit fmt-check vet go-test fuzz-smoke integration bench clean

all: build

build:
	$(GO) build ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './it/.cache/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet -tags $(TAGS) ./...

go-test:
	$(GO) test $(TESTFLAGS) -tags $(TAGS) ./...
	@# Tests that stop shared servers run alone, after everything else.
	DOHYO_TEST_DISRUPTIVE=1 $(GO) test $(TESTFLAGS) -run 'TestReadinessFollowsHBase|TestRelaySurvivesCassandraKill' ./cmd/dohyo/
	DOHYO_TEST_DISRUPTIVE=1 $(GO) test $(TESTFLAGS) -run 'TestLWTLinearizableAcrossHBaseRestart' ./bindings/hbase/

fuzz-smoke:
	@bash scripts/fuzz-smoke.sh $(FUZZTIME)

# integration runs inside scripts/with-backends.sh (servers up, env set).
integration: go-test fuzz-smoke

test: fmt-check vet
	bash scripts/install-chromium.sh
	bash scripts/with-backends.sh $(MAKE) --no-print-directory integration

unit: fmt-check vet
	$(GO) test $(TESTFLAGS) ./...
	@bash scripts/fuzz-smoke.sh $(FUZZTIME)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf dohyo dohyo-data
