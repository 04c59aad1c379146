#!/usr/bin/env bash
# Runs every native fuzz target briefly. Usage: fuzz-smoke.sh DURATION
set -euo pipefail
dur=${1:-10s}
cd "$(dirname "$0")/.."
found=0
while IFS= read -r file; do
  pkg=./$(dirname "$file")
  for fn in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)' "$file" | awk '{print $2}'); do
    found=1
    echo "fuzz $pkg $fn ($dur)"
    go test -run '^$' -fuzz "^${fn}\$" -fuzztime "$dur" "$pkg"
  done
done < <(grep -rlE '^func Fuzz' --include='*_test.go' .)
[ "$found" = 1 ] || echo "no fuzz targets"
