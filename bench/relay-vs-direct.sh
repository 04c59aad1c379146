#!/usr/bin/env bash
# relay-vs-direct.sh CASSANDRA_HOST:PORT [--records N] [--ops N] [--threads T] [--rounds R]
#
# YCSB workloads A and C with the same threads and record count, directly
# against Cassandra and through `dohyo serve` relaying to the same Cassandra,
# in one run: the two targets alternate round by round (so drift on a shared
# machine hits both), and the medians over the rounds give the throughput
# ratio relay/direct and the p99 difference per operation, printed as a
# Markdown table (also in OUT/result.md). Defaults: 10000 records, 20000 ops,
# 8 threads, 3 rounds. Needs Java (it/ycsb/setup.sh builds the binding).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=median.sh
source "$here/median.sh"
root="$(cd "$here/.." && pwd)"
[[ $# -ge 1 && "$1" != -* ]] || { sed -n '2,/^set -eu/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; exit 2; }
cass="$1"
shift
records=10000 ops=20000 threads=8 rounds=3
while [[ $# -gt 0 ]]; do
  case "$1" in
    --records) records="$2" ;;
    --ops) ops="$2" ;;
    --threads) threads="$2" ;;
    --rounds) rounds="$2" ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
out="$root/bench/out/relay-vs-direct-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"

export YCSB_LIB="${YCSB_LIB:-$("$root/it/ycsb/setup.sh" -p)}"
(cd "$root" && go build -o "$out/dohyo" ./cmd/dohyo)
"$out/dohyo" serve --backend "cassandra://$cass" --cql-addr 127.0.0.1:0 --http-addr 127.0.0.1:0 \
  >"$out/serve.out" 2>"$out/serve.log" &
serve=$!
trap 'kill $serve 2>/dev/null; wait $serve 2>/dev/null || true' EXIT
relay=""
for _ in $(seq 300); do
  relay="$(awk '$1 == "CQL:" { print $2 }' "$out/serve.out")"
  [[ -n "$relay" ]] && break
  kill -0 $serve 2>/dev/null || { cat "$out/serve.log" >&2; exit 1; }
  sleep 0.1
done
[[ -n "$relay" ]] || { echo "dohyo serve did not start" >&2; exit 1; }
echo "relay: dohyo serve on $relay -> Cassandra $cass; direct: $cass" >&2

for r in $(seq "$rounds"); do
  for target in direct relay; do
    addr="$cass"
    [[ $target == relay ]] && addr="$relay"
    "$root/bench/ycsb/run.sh" "$addr" --workloads a,c --records "$records" --ops "$ops" \
      --threads "$threads" --keyspace "ycsb_bench_$target" --out "$out/$target-$r" >/dev/null
  done
done

# One line per run phase and operation: target workload op throughput p99(us).
for f in "$out"/*-*/workload?-run.txt; do
  dir="$(basename "$(dirname "$f")")"
  target="${dir%-*}"
  w="$(basename "$f" | sed 's/workload\(.\)-run.txt/\1/')"
  awk -F', ' -v t="$target" -v w="$w" '
    $1 == "[OVERALL]" && $2 == "Throughput(ops/sec)" { tput = $3 }
    $2 == "99thPercentileLatency(us)" && $1 !~ /CLEANUP|FAILED/ { p99[$1] = $3 }
    END { for (op in p99) printf "%s %s %s %s %s\n", t, w, op, tput, p99[op] }' "$f"
done >"$out/rows.txt"

{
  echo "| workload | op | direct ops/s | relay ops/s | ratio | direct p99 ms | relay p99 ms | p99 diff ms |"
  echo "|---|---|---|---|---|---|---|---|"
  awk "$awk_median"'
    { k = $2 SUBSEP $3; tput[$1, k] = tput[$1, k] " " $4; p99[$1, k] = p99[$1, k] " " $5; keys[k] = 1 }
    END {
      for (k in keys) {
        split(k, kk, SUBSEP)
        dt = median(tput["direct", k]); rt = median(tput["relay", k])
        dp = median(p99["direct", k]) / 1000; rp = median(p99["relay", k]) / 1000
        printf "| %s | %s | %.0f | %.0f | %.2f | %.1f | %.1f | %+.1f |\n", toupper(kk[1]), kk[2], dt, rt, rt / dt, dp, rp, rp - dp
      }
    }' "$out/rows.txt" | sort
} | tee "$out/result.md"
echo "($rounds rounds, $records records, $ops ops, $threads threads; outputs in $out)" | tee -a "$out/result.md"
