#!/usr/bin/env bash
# soak-clusters.sh [--rate R] [--duration D] [--warmup W] [--workers N] [--out DIR]
#
# The long soak of docs/BENCHMARKS.md (issue #46): a two-instance dohyo
# tier (127.0.0.1 and 127.0.0.2, one CQL port; its catalog on the HBase
# cluster) in front of the test clusters, and `dohyo soak` holding both
# instances as contact points: prepared reads and writes, LWTs and counter
# updates at a fixed rate on `soakc` (relayed to the 3-node Cassandra,
# RF=3, QUORUM) and `soakh` (on the HBase cluster), with one fault of each
# kind spread over the run:
#   at 20% a Cassandra node restart   (cluster.sh restart 3, then wait)
#   at 45% a region server kill -9    (cluster.sh kill 1, start-rs 1, wait)
#   at 70% a dohyo kill -9 and start  (instance 2, back when it is ready)
# each with a window of min(3 min, run/8); the first --warmup (default
# 2m, 0 for none) of the run is a window of expected errors too (a cold
# cluster and tables just created). Run it under the clusters:
#
#   HBASE_CLUSTER_MAX_FILESIZE=268435456 HBASE_CLUSTER_FLUSH_SIZE=33554432 \
#     scripts/with-cluster.sh bench/soak-clusters.sh --rate 500 --duration 60m
#
# (the cluster script's 4 MiB regions make tests split; a soak keeps the
# regions of a real deployment's order). Writes soak.json, soak.html and
# the serve logs to DIR (default bench/out/soak-DATE) and exits with the
# soak's status (0 pass, 3 verdict failed, 1 could not run).
# shellcheck disable=SC2317  # functions below run from traps and fault commands
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
rate=500 duration=60m warmup=2m workers=512 out="${out:-}" restart=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --restart-instance) restart="$2" ;; # the dohyo fault (inherits bin, backend, route, port, out)
    --rate) rate="$2" ;;
    --duration) duration="$2" ;;
    --warmup) warmup="$2" ;;
    --workers) workers="$2" ;;
    --out) out="$2" ;;
    *) sed -n '2,/^set -eu/p' "$0" | grep '^#' | grep -v shellcheck | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
  shift 2
done
# start_instance I: dohyo instance I (1 or 2) in a session of its own (a
# fault command's process group is killed when the command is stopped;
# the instance it starts must outlive it), ready when its readiness says so.
start_instance() {
  local i=$1 host="127.0.0.$1"
  setsid "$bin" serve --backend "$backend" --route "$route" --cql-addr "$host:$port" \
    --http-addr "$host:29080" --node-id "soak-$i" --request-timeout 25s \
    >>"$out/serve$i.log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$out/serve$i.pid"
  for _ in $(seq 1 120); do
    curl -fsS "http://$host:29080/health/readiness" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  echo "dohyo instance $i not ready (exited, or 60 s passed); see $out/serve$i.log" >&2
  return 1
}
kill_instance() { # SIGKILL, then wait until it has exited (a zombie has)
  local pid s
  pid=$(cat "$out/serve$1.pid")
  kill -9 "$pid" 2>/dev/null || true
  while s=$(ps -o stat= -p "$pid" 2>/dev/null) && [[ $s != Z* ]]; do sleep 0.1; done
}
if [[ -n "$restart" ]]; then
  kill_instance "$restart"
  start_instance "$restart"
  exit
fi

: "${DOHYO_TEST_CASSANDRA_CLUSTER:?run under scripts/with-cluster.sh}"
: "${DOHYO_TEST_HBASE_CLUSTER:?run under scripts/with-cluster.sh}"
cass_script="${DOHYO_TEST_CASSANDRA_CLUSTER_SCRIPT:?}"
hbase_script="${DOHYO_TEST_HBASE_CLUSTER_SCRIPT:?}"
out="${out:-$root/bench/out/soak-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

secs() { # 90s, 5m, 1h → seconds
  local v="${1%[smh]}"
  case "$1" in *h) echo $((v * 3600)) ;; *m) echo $((v * 60)) ;; *) echo "$v" ;; esac
}
total=$(secs "$duration")
window=$((total / 8 < 180 ? total / 8 : 180))

bin="$out/dohyo"
(cd "$root" && go build -o "$bin" ./cmd/dohyo)
port=29042
backend="hbase://$DOHYO_TEST_HBASE_CLUSTER?salt=4&catalog=soak$(date +%s)"
route="soakc=cassandra://$DOHYO_TEST_CASSANDRA_CLUSTER?connect_timeout=2s&heartbeat=2s&suspect_after=1s"

stop_all() { kill_instance 1 || true; kill_instance 2 || true; }
trap stop_all EXIT

start_instance 1
start_instance 2
export bin backend route port out

at() { echo "$((total * $1 / 100))s/${window}s"; }
status=0
"$bin" soak --target "127.0.0.1:$port" --target "127.0.0.2:$port" \
  --keyspace soakc --keyspace soakh --replication 3 --consistency QUORUM \
  --rate "$rate" --duration "$duration" --warmup "$warmup" --workers "$workers" --timeout 60s \
  --sample 5s --period "$(( total >= 3600 ? 600 : total / 6 ))s" \
  --metrics http://127.0.0.1:29080/metrics --metrics http://127.0.0.2:29080/metrics \
  --fault "cassandra node 3 restart@$(at 20):$cass_script restart 3 && $cass_script wait" \
  --fault "region server 1 kill -9@$(at 45):$hbase_script kill 1 && $hbase_script start-rs 1 && $hbase_script wait" \
  --fault "dohyo 2 kill -9@$(at 70):$here/soak-clusters.sh --restart-instance 2" \
  --out "$out" || status=$?
echo "report: $out/soak.html (exit $status)"
exit "$status"
