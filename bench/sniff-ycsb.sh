#!/usr/bin/env bash
# sniff-ycsb.sh [ROUNDS] [OPS] [THREADS]
#
# `dohyo capture sniff` on lo while YCSB workload A (YCSB 0.17 with the
# project's CQL binding, bench/ycsb) runs as fast as it goes against
# `dohyo serve` on an in-memory embedded store. Rounds of OPS operations
# (default 100000) with THREADS client threads (default 32) alternate YCSB
# alone and YCSB with the sniffer, which goes first every other round. Per
# sniffed round: YCSB's throughput, the sniffer's CPU (user + system, from
# /usr/bin/time, per operation and in cores), the packets the kernel
# received and dropped (buffer full) and the records captured. Ends with
# the median of the rounds' throughput ratios, sniffed / alone.
#
# Needs CAP_NET_RAW (root), a JDK 17 (it/ycsb/setup.sh builds the binding;
# YCSB_LIB skips that) and the port SNIFF_PORT (default 19144) and the one
# after it free.
set -euo pipefail
rounds=${1:-3}
ops=${2:-100000}
threads=${3:-32}
port=${SNIFF_PORT:-19144}
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=median.sh
source "$root/bench/median.sh"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

go build -o "$work/dohyo" "$root/cmd/dohyo"
lib="${YCSB_LIB:-$(bash "$root/it/ycsb/setup.sh" -p)}"
"$work/dohyo" serve --backend embedded://memory --cql-addr "127.0.0.1:$port" --http-addr "127.0.0.1:$((port + 1))" \
  --log-level warn >"$work/serve.log" 2>&1 &
for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done

ycsb() { # DIR PHASES OPS -> ops/s of the run phase
  YCSB_LIB="$lib" bash "$root/bench/ycsb/run.sh" "127.0.0.1:$port" --workloads a --records 10000 --ops "$3" \
    --threads "$threads" --keyspace sniffycsb --phases "$2" --out "$1" >"$1.log" 2>&1 ||
    { cat "$1.log" >&2; exit 1; }
  awk -F', ' '/\[OVERALL\], Throughput/ {print $3}' "$1/workloada-run.txt"
}

# sniffed DIR -> "ops/s cpu_s received dropped records", YCSB under the sniffer.
sniffed() {
  /usr/bin/time -f '%U %S' -o "$1.time" "$work/dohyo" capture sniff --interface lo --port "$port" \
    --out "$1.cap" >"$1.sniff" 2>"$1.sniff.err" &
  local timer=$!
  for _ in $(seq 300); do grep -q 'sniffing lo' "$1.sniff.err" 2>/dev/null && break; sleep 0.1; done
  local rate
  rate="$(ycsb "$1" run "$ops")"
  kill -INT "$(pgrep -P "$timer")"
  wait "$timer"
  echo "$rate $(awk '{print $1 + $2}' "$1.time") $(awk '/^kernel/ {print $2, $4}' "$1.sniff") $(awk '/^captured/ {print $2}' "$1.sniff")"
}

echo "load and warm-up: $(ycsb "$work/warm" load,run 20000) ops/s"
ratios=""
for r in $(seq "$rounds"); do
  if ((r % 2)); then
    read -r s_rate cpu recv drop recs <<<"$(sniffed "$work/s$r")"
    alone="$(ycsb "$work/a$r" run "$ops")"
  else
    alone="$(ycsb "$work/a$r" run "$ops")"
    read -r s_rate cpu recv drop recs <<<"$(sniffed "$work/s$r")"
  fi
  secs="$(awk -v o="$ops" -v r="$s_rate" 'BEGIN {print o / r}')"
  ratios="$ratios $(awk -v a="$s_rate" -v b="$alone" 'BEGIN {printf "%.3f", a / b}')"
  awk -v r="$r" -v a="$alone" -v s="$s_rate" -v c="$cpu" -v o="$ops" -v t="$secs" -v rc="$recv" -v d="$drop" -v n="$recs" \
    'BEGIN {printf "round %d: alone %.0f ops/s, sniffed %.0f ops/s (%.3f); sniffer %.1f µs CPU per op, %.2f cores; kernel %d received, %d dropped; %d records for %d ops\n", r, a, s, s / a, c / o * 1e6, c / t, rc, d, n, o}'
done
echo "median sniffed/alone: $(awk "$awk_median"' BEGIN {printf "%.3f", median("'"$ratios"'")}')"
