#!/usr/bin/env bash
# it/gocql/run.sh — gocql v1.7.0's own integration suite, unmodified.
#
#   run.sh build                 build (once; cached) its two cluster suites,
#                                `-tags "cassandra integration"`, into one test
#                                binary; prints the binary's path
#   run.sh run HOST:PORT PROTO   run that binary against one CQL endpoint with
#                                protocol PROTO (3 or 4); `go test -v` output on
#                                stdout, the go test exit status
#
# The module comes from the Go module proxy (`go mod download`, checksummed by
# sum.golang.org); its files are copied into it/.cache/gocql/ (the module cache
# is read-only) and its *_test.go are never edited. The flags are upstream's
# integration.sh ones for a one-node cluster: -rf=1 -clusterSize=1, a short
# -autowait (one node: nothing to discover), -gocql.cversion of the reference
# server (it decides which tests skip). The suite always uses the keyspace
# gocql_test (it has no flag to change it): two runs against one Cassandra
# must not overlap.
set -euo pipefail

version=v1.7.0
cversion="${GOCQL_CVERSION:-5.0.9}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cache="${DOHYO_IT_CACHE:-$root/it/.cache}/gocql/$version"
bin="$cache/gocql.test"

build() {
  if [[ -x "$bin" && -f "$cache/src/go.mod" ]]; then
    echo "$bin"
    return 0
  fi
  local dir
  dir="$(cd "$root" && GOFLAGS=-mod=mod go mod download -json "github.com/gocql/gocql@$version" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [[ -d "$dir" ]] || { echo "run.sh: go mod download gave no directory" >&2; exit 1; }
  rm -rf "$cache/src"
  mkdir -p "$cache"
  cp -r "$dir" "$cache/src"
  chmod -R u+w "$cache/src"
  (cd "$cache/src" && go test -c -tags "cassandra integration" -o "$bin.tmp" .) >&2
  mv "$bin.tmp" "$bin"
  echo "$bin"
}

case "${1:-}" in
  build)
    build
    ;;
  run)
    [[ $# -eq 3 ]] || { echo "usage: run.sh run HOST:PORT PROTO" >&2; exit 2; }
    build >/dev/null
    cd "$cache/src"
    exec "$bin" -test.v -test.timeout 15m -cluster "$2" -proto "$3" -rf 1 -clusterSize 1 \
      -autowait 200ms -gocql.timeout 30s -gocql.cversion "$cversion"
    ;;
  *)
    sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
