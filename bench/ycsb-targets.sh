#!/usr/bin/env bash
# ycsb-targets.sh CASSANDRA_HOST:PORT HBASE_ZK [--records N] [--ops N] [--threads T]
#
# YCSB workloads A-F (load + run) with dohyo's YCSB binding against four
# targets, one after the other, with the same settings: Cassandra directly,
# and `dohyo serve` relaying to that Cassandra, on HBase (ZooKeeper
# HBASE_ZK) and on the embedded store (on disk). Fails when any phase
# reports anything but Return=OK. Prints one Markdown table of the run
# phases (ops/s, p95 and p99 per operation, side by side; also in
# OUT/result.md). Defaults: 10000 records, 10000 ops, 8 threads.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
[[ $# -ge 2 && "$1" != -* ]] || { sed -n '2,/^set -eu/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; exit 2; }
cass="$1" zk="$2"
shift 2
records=10000 ops=10000 threads=8
while [[ $# -gt 0 ]]; do
  case "$1" in
    --records) records="$2" ;;
    --ops) ops="$2" ;;
    --threads) threads="$2" ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
out="$root/bench/out/ycsb-targets-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
export YCSB_LIB="${YCSB_LIB:-$("$root/it/ycsb/setup.sh" -p)}"
(cd "$root" && go build -o "$out/dohyo" ./cmd/dohyo)

serve_pid=""
stop_serve() {
  if [[ -n "$serve_pid" ]]; then
    kill "$serve_pid" 2>/dev/null || true
    wait "$serve_pid" 2>/dev/null || true
    serve_pid=""
  fi
}
trap stop_serve EXIT

# serve NAME BACKEND: starts dohyo serve and prints its CQL address.
serve() {
  (cd "$out" && exec "$out/dohyo" serve --backend "$2" --cql-addr 127.0.0.1:0 --http-addr 127.0.0.1:0 \
    >"$out/serve-$1.out" 2>"$out/serve-$1.log") &
  serve_pid=$!
  local addr=""
  for _ in $(seq 600); do
    addr="$(awk '$1 == "CQL:" { print $2 }' "$out/serve-$1.out")"
    [[ -n "$addr" ]] && break
    kill -0 "$serve_pid" 2>/dev/null || { cat "$out/serve-$1.log" >&2; exit 1; }
    sleep 0.1
  done
  [[ -n "$addr" ]] || { echo "dohyo serve ($1) did not start" >&2; exit 1; }
  echo "$addr"
}

run() { # run NAME ADDR
  echo "== $1 ($2)" >&2
  "$root/bench/ycsb/run.sh" "$2" --records "$records" --ops "$ops" --threads "$threads" \
    --keyspace "ycsb_targets" --out "$out/$1" >/dev/null
}

run cassandra "$cass"
run relay "$(serve relay "cassandra://$cass")"
stop_serve
run hbase "$(serve hbase "hbase://$zk?salt=8&catalog=ycsbtargets")"
stop_serve
run embedded "$(serve embedded "embedded://$out/store")"
stop_serve

{
  echo "| workload | op | Cassandra ops/s | p95 | p99 | relay ops/s | p95 | p99 | HBase ops/s | p95 | p99 | embedded ops/s | p95 | p99 |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  for t in cassandra relay hbase embedded; do
    awk -v t="$t" '$2 == "run" && $1 != "workload" { print t, $1, $3, $5, $6, $7 }' "$out/$t/summary.txt"
  done | awk '
    { k = $2 " " $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k }; v[$1, k] = $4 " | " $5 " | " $6 }
    END {
      for (i = 1; i <= n; i++) {
        split(order[i], kk, " ")
        printf "| %s | %s | %s | %s | %s | %s |\n", toupper(kk[1]), kk[2], v["cassandra", order[i]], v["relay", order[i]], v["hbase", order[i]], v["embedded", order[i]]
      }
    }'
} | tee "$out/result.md"
echo "($records records, $ops ops, $threads threads per run phase; ms for p95/p99; outputs in $out)" | tee -a "$out/result.md"
