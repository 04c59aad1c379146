#!/usr/bin/env bash
# A 3-node Cassandra 5.0 cluster for dohyo's cluster tests (issue #46), from
# the same Maven Central jars as run.sh (no Docker, no tarball): one JVM per
# node, each on a loopback address of its own, all seeds, tokens spread
# evenly (initial_token, no bootstrap), small heaps.
#
#   cluster.sh start            launch every node (already running ones are kept)
#   cluster.sh wait             block until every node is up and normal (UN)
#                               in every node's view and answers CQL
#   cluster.sh stop             SIGTERM every node (drain), SIGKILL after a timeout
#   cluster.sh kill N           SIGKILL node N (1-based) and wait for its exit
#   cluster.sh pause N          SIGSTOP node N (silent: no reset, no refusal)
#   cluster.sh resume N         SIGCONT node N
#   cluster.sh start-node N     launch node N (after kill or stop-node)
#   cluster.sh stop-node N      SIGTERM node N
#   cluster.sh restart N        stop-node N, then start-node N
#   cluster.sh status           one line per node (running/paused/down); exit 3
#                               when a node is not running
#   cluster.sh addrs            the nodes' CQL addresses (host:port), space separated
#   cluster.sh logs N [LINES]   tail node N's log (default 80 lines)
#   cluster.sh check N          one real query on node N now
#   cluster.sh nodetool N ARGS  nodetool against node N's JMX port
#   cluster.sh clean            stop, then delete the run dir
#
# Environment:
#   CLUSTER_ADDRS          the nodes' addresses, default "127.0.0.1 127.0.0.2
#                          127.0.0.3" (any loopback addresses; one node each)
#   CLUSTER_PORT           native (CQL) port of every node, default 9042
#   CLUSTER_STORAGE_PORT   internode port of every node, default 7000
#   CLUSTER_JMX_PORTS      one local-only JMX port per node (on 127.0.0.1:
#                          nodetool), default 7201 7202 7203 ...
#   CLUSTER_RUN_DIR        default it/.run/cassandra-cluster (node1, node2, ...)
#   CLUSTER_HEAP           max heap per node, default 640m
#   CLUSTER_WAIT_TIMEOUT   seconds for wait, default 300
#   CLUSTER_STOP_TIMEOUT   seconds before SIGKILL on stop, default 60
#   CASSANDRA_JVM_OPTS     extra JVM flags appended last (every node)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=node.sh
source "$here/node.sh"

read -r -a addrs <<<"${CLUSTER_ADDRS:-127.0.0.1 127.0.0.2 127.0.0.3}"
n=${#addrs[@]}
((n >= 1)) || it_die "CLUSTER_ADDRS names no address"
port="${CLUSTER_PORT:-9042}"
storage_port="${CLUSTER_STORAGE_PORT:-7000}"
if [[ -n "${CLUSTER_JMX_PORTS:-}" ]]; then
  read -r -a jmx_ports <<<"$CLUSTER_JMX_PORTS"
else
  jmx_ports=()
  for ((i = 1; i <= n; i++)); do jmx_ports+=($((7200 + i))); done
fi
((${#jmx_ports[@]} == n)) || it_die "CLUSTER_JMX_PORTS needs one port per address ($n)"
root="${CLUSTER_RUN_DIR:-$IT_RUN/cassandra-cluster}"

seeds=""
for a in "${addrs[@]}"; do seeds+="${seeds:+,}$a:$storage_port"; done

# node_index N checks N and prints its 0-based index.
node_index() {
  if ! [[ "${1:-}" =~ ^[0-9]+$ ]] || (($1 < 1 || $1 > n)); then
    it_die "node must be 1..$n, not '${1:-}'"
  fi
  echo $(($1 - 1))
}
node_run() { echo "$root/node$1"; }
node_pid() { it_pid_alive "$(node_run "$1")/cassandra.pid" "$CASS_PATTERN"; }

# initial_token I prints node I's (0-based) token: the Murmur3 range split
# evenly, so each node owns a third of the ring without vnodes.
initial_token() {
  local half=$((9223372036854775807 / n))
  echo $(((($1 * half) - 4611686018427387904) * 2))
}

start_node() {
  local i="$1" idx run
  idx="$(node_index "$i")"
  run="$(node_run "$i")"
  if node_pid "$i" >/dev/null; then
    it_log "node $i already running"
    return 0
  fi
  local a="${addrs[$idx]}" jmx="${jmx_ports[$idx]}"
  local hp tries
  for hp in "$a:$port" "$a:$storage_port" "127.0.0.1:$jmx"; do
    # A node just stopped may hold its listening sockets a moment longer
    # (restart): wait up to 10 s before calling the port taken.
    for ((tries = 0; tries < 50; tries++)); do
      it_port_open "${hp%:*}" "${hp##*:}" || break
      sleep 0.2
    done
    if ((tries == 50)); then
      it_die "$hp is already in use (node $i); stop whatever listens there or set CLUSTER_ADDRS / CLUSTER_PORT / CLUSTER_JMX_PORTS"
    fi
  done
  cass_render_config "$run" "$a" "$port" "$storage_port" "$seeds" dohyo-cluster none \
    "initial_token: $(initial_token "$idx")
auto_bootstrap: false"
  it_log "starting node $i: cassandra $CASS_VERSION on $a:$port (JMX 127.0.0.1:$jmx, run dir $run)"
  # Every node is a seed with its own token and no bootstrap: nothing to
  # stream, so no ring delay to sit out; gossip settling is not waited
  # for (wait checks that every node sees every other up).
  cass_launch "$run" "${CLUSTER_HEAP:-640m}" "$jmx" "-Dcassandra.ring_delay_ms=3000"
}

stop_node() {
  local i="$1"
  node_index "$i" >/dev/null
  local run pid
  run="$(node_run "$i")"
  if pid="$(node_pid "$i")"; then
    it_log "stopping node $i (pid $pid)"
    kill -CONT "$pid" 2>/dev/null || true # a paused node cannot drain
  fi
  it_stop_pid "$run/cassandra.pid" "$CASS_PATTERN" "${CLUSTER_STOP_TIMEOUT:-60}"
}

signal_node() {
  local sig="$1" i="$2" pid
  node_index "$i" >/dev/null
  pid="$(node_pid "$i")" || it_die "node $i is not running"
  it_log "SIG$sig to node $i (pid $pid)"
  kill "-$sig" "$pid"
}

cmd_start() {
  cass_install
  "$IT_DIR/python/setup.sh" >/dev/null
  mkdir -p "$root"
  local i
  for ((i = 1; i <= n; i++)); do start_node "$i"; done
}

# ups RUN JMX prints how many nodes are Up and Normal in this node's view.
ups() {
  cass_nodetool "$1" "$2" status 2>/dev/null | grep -c '^UN ' || true
}

cmd_wait() {
  local timeout="${CLUSTER_WAIT_TIMEOUT:-300}" start i idx run pid ready
  start="$(date +%s)"
  "$IT_DIR/python/setup.sh" >/dev/null
  local -a cql=() normal=()
  while :; do
    ready=0
    for ((i = 1; i <= n; i++)); do
      idx=$((i - 1))
      run="$(node_run "$i")"
      if ! pid="$(node_pid "$i")"; then
        it_log "node $i is not running; last log lines:"
        cass_log_tail "$run" 40
        return 1
      fi
      if [[ "${cql[$idx]:-}" != ok ]] && cass_ready "$run" "${addrs[$idx]}" "$port" >/dev/null; then
        cql[idx]=ok
        it_log "node $i answers CQL on ${addrs[$idx]}:$port after $(cass_took "$run")s (pid $pid, RSS $(it_rss_mib "$pid") MiB)"
      fi
      if [[ "${cql[$idx]:-}" == ok && "${normal[$idx]:-}" != ok ]] && [[ "$(ups "$run" "${jmx_ports[$idx]}")" == "$n" ]]; then
        normal[idx]=ok
      fi
      [[ "${normal[$idx]:-}" == ok ]] && ready=$((ready + 1))
    done
    if ((ready == n)); then
      local t0 took
      # Since the last launch: the cluster's start, or start-node N's.
      t0="$(cat "$root"/node*/started_at 2>/dev/null | sort -n | tail -n1)"
      took="$(awk -v a="${t0:-$start}" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')"
      it_log "cluster ready: $n nodes UN in every node's view and answering CQL (${took}s since the last node was launched)"
      return 0
    fi
    if (($(date +%s) - start >= timeout)); then
      it_log "cluster not ready after ${timeout}s (CQL: ${cql[*]:-none}; UN: ${normal[*]:-none})"
      for ((i = 1; i <= n; i++)); do
        it_log "node $i, last log lines:"
        cass_log_tail "$(node_run "$i")" 20
      done
      return 1
    fi
    sleep 1
  done
}

cmd_stop() {
  local i pids=()
  # In parallel: each drains on its own.
  for ((i = 1; i <= n; i++)); do
    stop_node "$i" &
    pids+=($!)
  done
  local rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  return $rc
}

cmd_status() {
  local i idx pid state rc=0
  for ((i = 1; i <= n; i++)); do
    idx=$((i - 1))
    if pid="$(node_pid "$i")"; then
      state="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)"
      if [[ "$state" == T ]]; then
        echo "node $i paused: pid $pid, ${addrs[$idx]}:$port"
      else
        echo "node $i running: pid $pid, ${addrs[$idx]}:$port, RSS $(it_rss_mib "$pid") MiB"
      fi
    else
      echo "node $i down (${addrs[$idx]}:$port, run dir $(node_run "$i"))"
      rc=3
    fi
  done
  return $rc
}

cmd_addrs() {
  local out="" a
  for a in "${addrs[@]}"; do out+="${out:+ }$a:$port"; done
  echo "$out"
}

case "${1:-}" in
  install) cass_install ;;
  start) cmd_start ;;
  wait) cmd_wait ;;
  stop) cmd_stop ;;
  kill) node_index "${2:-}" >/dev/null && cass_kill "$(node_run "$2")" ;;
  pause) signal_node STOP "${2:-}" ;;
  resume) signal_node CONT "${2:-}" ;;
  start-node) node_index "${2:-}" >/dev/null && start_node "$2" ;;
  stop-node) stop_node "${2:-}" ;;
  restart) stop_node "${2:-}" && start_node "$2" ;;
  status) cmd_status ;;
  addrs) cmd_addrs ;;
  logs) node_index "${2:-}" >/dev/null && tail -n "${3:-80}" "$(node_run "$2")/logs/cassandra.log" ;;
  check) idx="$(node_index "${2:-}")" && cass_cql_check "$(node_run "$2")" "${addrs[$idx]}" "$port" ;;
  nodetool) idx="$(node_index "${2:-}")" && shift 2 && cass_nodetool "$(node_run "$((idx + 1))")" "${jmx_ports[$idx]}" "$@" ;;
  clean) cmd_stop && rm -rf "$root" ;;
  *)
    sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
