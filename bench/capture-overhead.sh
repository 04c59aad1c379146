#!/usr/bin/env bash
# capture-overhead.sh [ROUNDS] [SECONDS] [THREADS]
#
# dohyo serve throughput with capture on vs off, measured side by side in
# one run: two `dohyo serve` processes on the embedded store (one capturing
# into a temp dir), driven alternately by the YCSB-like load generator with
# the same workload, threads and duration. Prints each round and the ratio of
# the medians (capture on / capture off).
set -euo pipefail
rounds=${1:-3}
secs=${2:-10}
threads=${3:-8}
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

go build -o "$work/dohyo" "$root/cmd/dohyo"
go build -o "$work/loadgen" "$root/bench/loadgen"

"$work/dohyo" serve --backend embedded://memory --cql-addr 127.0.0.1:19142 --http-addr 127.0.0.1:18142 \
  --log-level warn >"$work/off.log" 2>&1 &
"$work/dohyo" serve --backend embedded://memory --cql-addr 127.0.0.1:19143 --http-addr 127.0.0.1:18143 \
  --log-level warn --capture-dir "$work/capture" >"$work/on.log" 2>&1 &
for port in 19142 19143; do
  for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
done

run() { # port -> ops/s
  "$work/loadgen" -hosts "127.0.0.1:$1" -workload a -threads "$threads" -duration "${secs}s" \
    -records 10000 -skip-load="$2" 2>/dev/null | awk -F', ' '/Throughput/ {print $3}'
}
run 19142 false >/dev/null   # load records (and warm up) on both
run 19143 false >/dev/null
off=() on=()
for r in $(seq "$rounds"); do
  off+=("$(run 19142 true)")
  on+=("$(run 19143 true)")
  echo "round $r: capture off ${off[-1]} ops/s, capture on ${on[-1]} ops/s"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
m_off=$(median "${off[@]}"); m_on=$(median "${on[@]}")
echo "median: off $m_off ops/s, on $m_on ops/s, ratio on/off $(awk -v a="$m_on" -v b="$m_off" 'BEGIN {printf "%.3f", a/b}')"
echo "capture: $(du -sb "$work/capture" | cut -f1) bytes in $(ls "$work/capture" | wc -l) segment(s)"
