#!/usr/bin/env bash
# with-cluster.sh CMD [ARGS...]
#
# Runs CMD with the 3-node Cassandra 5.0 cluster of it/cassandra/cluster.sh
# up (issue #46; installed on first use like the single node), then stops it
# whatever happens. Each run starts from an empty cluster unless
# DOHYO_IT_KEEP_DATA=1. On CMD failure the last 40 log lines of each node
# are printed. Exits with CMD's status. `make test` runs the cluster step
# through it after the single-node servers are stopped (the cluster's
# default addresses, 127.0.0.1-3, use the single node's ports).
#
# CMD sees:
#   DOHYO_TEST_CLUSTER=1
#   DOHYO_TEST_CASSANDRA_CLUSTER         the nodes' CQL addresses, comma separated
#   DOHYO_TEST_CASSANDRA_CLUSTER_SCRIPT  it/cassandra/cluster.sh (absolute), for
#                                        kill/pause/resume/start-node N
#   and the CLUSTER_* knobs of cluster.sh (CLUSTER_ADDRS, CLUSTER_PORT, ...),
#   which the script reads again when CMD calls it.
# shellcheck disable=SC2317  # functions below run from traps
set -uo pipefail

if [[ $# -eq 0 ]]; then
  sed -n "2,/^set -uo/p" "$0" | grep "^#" | grep -v "^# shellcheck" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cluster="$root/it/cassandra/cluster.sh"
log() { echo "[with-cluster $(date +%H:%M:%S)] $*" >&2; }

export CLUSTER_ADDRS="${CLUSTER_ADDRS:-127.0.0.1 127.0.0.2 127.0.0.3}"
addrs="$("$cluster" addrs)" || exit 2
read -r -a nodes <<<"$CLUSTER_ADDRS"

started=0
child=""
stop_cluster() {
  if ((started)); then
    local t0=$SECONDS
    "$cluster" stop || log "stopping the cluster failed"
    log "cluster stopped in $((SECONDS - t0)) s"
    started=0
  fi
}
on_signal() {
  if [[ -n "$child" ]]; then
    kill -"$1" "$child" 2>/dev/null
    wait "$child" 2>/dev/null
  fi
  exit "$2"
}
trap stop_cluster EXIT
trap 'on_signal INT 130' INT
trap 'on_signal TERM 143' TERM

show_logs() {
  local i
  for ((i = 1; i <= ${#nodes[@]}; i++)); do
    echo "----- last 40 log lines of cluster node $i -----" >&2
    "$cluster" logs "$i" 40 2>/dev/null | cut -c1-400 >&2 || true
  done
}

t0=$SECONDS
"$cluster" install || { log "install failed"; exit 1; }
if [[ "${DOHYO_IT_KEEP_DATA:-0}" != 1 ]]; then
  "$cluster" clean || exit 1
fi
started=1
"$cluster" start || { log "cluster start failed"; show_logs; exit 1; }
"$cluster" wait || { log "cluster did not become ready"; exit 1; }
log "cluster of ${#nodes[@]} nodes ready in $((SECONDS - t0)) s (install, start, wait)"

export DOHYO_TEST_CLUSTER=1
export DOHYO_TEST_CASSANDRA_CLUSTER="${addrs// /,}"
export DOHYO_TEST_CASSANDRA_CLUSTER_SCRIPT="$cluster"
log "running: $*"
"$@" <&0 &
child=$!
wait "$child"
rc=$?
child=""
if [[ $rc -ne 0 ]]; then
  log "command failed with status $rc"
  show_logs
fi
exit "$rc"
