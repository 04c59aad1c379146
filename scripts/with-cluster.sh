#!/usr/bin/env bash
# with-cluster.sh CMD [ARGS...]
#
# Runs CMD with the test clusters of issue #46 up — the 3-node Cassandra
# 5.0 of it/cassandra/cluster.sh and the pseudo-distributed HBase (two
# region servers) of it/hbase/cluster.sh, both installed on first use like
# the single-node servers, started side by side — then stops them whatever
# happens. Each run starts from empty clusters unless DOHYO_IT_KEEP_DATA=1.
# On CMD failure the last 40 log lines of each node and process are
# printed. Exits with CMD's status. `make test` runs the cluster step
# through it after the single-node servers are stopped (the Cassandra
# cluster's default addresses, 127.0.0.1-3, use the single node's ports).
#
# CMD sees:
#   DOHYO_TEST_CLUSTER=1
#   DOHYO_TEST_CASSANDRA_CLUSTER         the nodes' CQL addresses, comma separated
#   DOHYO_TEST_CASSANDRA_CLUSTER_SCRIPT  it/cassandra/cluster.sh (absolute), for
#                                        kill/pause/resume/start-node N
#   DOHYO_TEST_HBASE_CLUSTER             the HBase cluster's ZooKeeper (host:port)
#   DOHYO_TEST_HBASE_CLUSTER_SCRIPT      it/hbase/cluster.sh (absolute), for
#                                        kill/start-rs N
#   and the CLUSTER_* and HBASE_CLUSTER_* knobs of the scripts, which they
#   read again when CMD calls them.
# shellcheck disable=SC2317  # functions below run from traps
set -uo pipefail

if [[ $# -eq 0 ]]; then
  sed -n "2,/^set -uo/p" "$0" | grep "^#" | grep -v "^# shellcheck" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=../it/lib.sh
source "$root/it/lib.sh"
cass="$root/it/cassandra/cluster.sh"
hbase="$root/it/hbase/cluster.sh"
log() { echo "[with-cluster $(date +%H:%M:%S)] $*" >&2; }

export CLUSTER_ADDRS="${CLUSTER_ADDRS:-127.0.0.1 127.0.0.2 127.0.0.3}"
addrs="$("$cass" addrs)" || exit 2
read -r -a nodes <<<"$CLUSTER_ADDRS"

started=()
stop_clusters() {
  local s t0
  for s in "${started[@]}"; do
    t0=$SECONDS
    "$s" stop || log "stopping $s failed"
    log "$(basename "$(dirname "$s")") cluster stopped in $((SECONDS - t0)) s"
  done
  started=()
}
trap stop_clusters EXIT
trap 'it_forward_signal INT 130' INT
trap 'it_forward_signal TERM 143' TERM

show_logs() {
  local i p
  for ((i = 1; i <= ${#nodes[@]}; i++)); do
    echo "----- last 40 log lines of cluster node $i -----" >&2
    "$cass" logs "$i" 40 2>/dev/null | cut -c1-400 >&2 || true
  done
  for p in zk master rs1 rs2; do
    echo "----- last 40 log lines of HBase cluster $p -----" >&2
    "$hbase" logs "$p" 40 2>/dev/null | cut -c1-400 >&2 || true
  done
}

t0=$SECONDS
"$cass" install || { log "Cassandra install failed"; exit 1; }
"$root/it/hbase/run.sh" install || { log "HBase install failed"; exit 1; }
if [[ "${DOHYO_IT_KEEP_DATA:-0}" != 1 ]]; then
  "$cass" clean || exit 1
  "$hbase" clean || exit 1
fi
started=("$cass" "$hbase")
"$cass" start || { log "Cassandra cluster start failed"; show_logs; exit 1; }
"$hbase" start || { log "HBase cluster start failed"; show_logs; exit 1; }
"$cass" wait || { log "Cassandra cluster did not become ready"; show_logs; exit 1; }
"$hbase" wait || { log "HBase cluster did not become ready"; show_logs; exit 1; }
log "Cassandra cluster of ${#nodes[@]} nodes and HBase cluster ready in $((SECONDS - t0)) s (install, start, wait)"

export DOHYO_TEST_CLUSTER=1
export DOHYO_TEST_CASSANDRA_CLUSTER="${addrs// /,}"
export DOHYO_TEST_CASSANDRA_CLUSTER_SCRIPT="$cass"
DOHYO_TEST_HBASE_CLUSTER="$("$hbase" zk)"
export DOHYO_TEST_HBASE_CLUSTER
export DOHYO_TEST_HBASE_CLUSTER_SCRIPT="$hbase"
log "running: $*"
rc=0
it_run_child "$@" || rc=$?
if [[ $rc -ne 0 ]]; then
  log "command failed with status $rc"
  show_logs
fi
exit "$rc"
