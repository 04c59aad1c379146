#!/usr/bin/env bash
# Real single-node Cassandra 5.0 for dohyo's integration tests, from Maven
# Central jars (no Docker, no tarball).
#
#   run.sh install   resolve jars into it/.cache/cassandra-<version>/lib (cached)
#   run.sh start     launch in the background (pid file, log under the run dir)
#   run.sh wait      block until CQL answers a real query (or fail with log tail)
#   run.sh stop      SIGTERM (Cassandra drains), then SIGKILL after a timeout
#   run.sh kill      SIGKILL at once (abrupt failure, for the relay test)
#   run.sh status    exit 0 when running, 3 when not
#   run.sh logs [N]  tail the server log (default 80 lines)
#   run.sh clean     stop and delete the run dir (data, logs, config)
#   run.sh check     one real query now (exit status says whether it worked)
#   run.sh nodetool ARGS...  nodetool from the same jars, over the local JMX
#                    port (needs CASSANDRA_JMX_PORT at start and now), e.g.
#                    run.sh nodetool enablefullquerylog --path DIR
#
# Environment:
#   CASSANDRA_PORT          native (CQL) port, default 9042
#   CASSANDRA_STORAGE_PORT  internode port, default 7000 (9042) or PORT+1
#   CASSANDRA_JMX_PORT      when set, JMX listens on 127.0.0.1:PORT (local
#                           only, no authentication) so nodetool works;
#                           unset (default): no JMX
#   CASSANDRA_AUTH          none (default) or password (PasswordAuthenticator +
#                           CassandraAuthorizer, superuser cassandra/cassandra)
#   CASSANDRA_USER / CASSANDRA_PASSWORD  credentials for wait/check (password mode)
#   CASSANDRA_RUN_DIR       default it/.run/cassandra (it/.run/cassandra-PORT
#                           for a non-default port)
#   CASSANDRA_HEAP          max heap, default 1g (initial heap is 512m)
#   CASSANDRA_WAIT_TIMEOUT  seconds for wait, default 180
#   CASSANDRA_STOP_TIMEOUT  seconds before SIGKILL, default 60
#   CASSANDRA_JVM_OPTS      extra JVM flags appended last
#   CASSANDRA_JVM_OPTIONS_FILE  replaces it/cassandra/jvm17.options
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=node.sh
source "$here/node.sh"

version="$CASS_VERSION"
port="${CASSANDRA_PORT:-9042}"
if [[ "$port" == 9042 ]]; then
  storage_port="${CASSANDRA_STORAGE_PORT:-7000}"
  run="${CASSANDRA_RUN_DIR:-$IT_RUN/cassandra}"
else
  storage_port="${CASSANDRA_STORAGE_PORT:-$((port + 1))}"
  run="${CASSANDRA_RUN_DIR:-$IT_RUN/cassandra-$port}"
fi
pidfile="$run/cassandra.pid"
logfile="$run/logs/cassandra.log"
pattern="$CASS_PATTERN"

cmd_start() {
  local pid
  if pid="$(it_pid_alive "$pidfile" "$pattern")"; then
    it_log "cassandra already running (pid $pid)"
    return 0
  fi
  cass_install
  local p
  local -a ports=("$port" "$storage_port")
  [[ -n "${CASSANDRA_JMX_PORT:-}" ]] && ports+=("$CASSANDRA_JMX_PORT")
  for p in "${ports[@]}"; do
    if it_port_open 127.0.0.1 "$p"; then
      it_die "127.0.0.1:$p is already in use; stop whatever listens there or set CASSANDRA_PORT"
    fi
  done
  cass_render_config "$run" 127.0.0.1 "$port" "$storage_port" "127.0.0.1:$storage_port" dohyo-it "${CASSANDRA_AUTH:-none}"
  it_log "starting cassandra $version on 127.0.0.1:$port (run dir $run)"
  cass_launch "$run" "${CASSANDRA_HEAP:-1g}" "${CASSANDRA_JMX_PORT:-}"
}

cmd_wait() {
  local timeout="${CASSANDRA_WAIT_TIMEOUT:-180}" start now out pid
  start="$(date +%s)"
  "$IT_DIR/python/setup.sh" >/dev/null
  while :; do
    if ! pid="$(it_pid_alive "$pidfile" "$pattern")"; then
      it_log "cassandra is not running; last log lines:"
      cass_log_tail "$run"
      return 1
    fi
    if out="$(cass_ready "$run" 127.0.0.1 "$port")"; then
      it_log "cassandra ready on 127.0.0.1:$port after $(cass_took "$run")s (pid $pid, RSS $(it_rss_mib "$pid") MiB, release $(echo "$out" | grep -vi warning | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1))"
      return 0
    fi
    now="$(date +%s)"
    if ((now - start >= timeout)); then
      it_log "cassandra not ready after ${timeout}s; last log lines:"
      cass_log_tail "$run"
      [[ -n "${out:-}" ]] && it_log "last cqlsh output: $out"
      return 1
    fi
    sleep 1
  done
}

cmd_stop() {
  if it_pid_alive "$pidfile" "$pattern" >/dev/null; then
    it_log "stopping cassandra (127.0.0.1:$port)"
  fi
  it_stop_pid "$pidfile" "$pattern" "${CASSANDRA_STOP_TIMEOUT:-60}"
}

# cmd_nodetool runs nodetool against the local JMX port.
cmd_nodetool() {
  [[ -n "${CASSANDRA_JMX_PORT:-}" ]] || it_die "set CASSANDRA_JMX_PORT (the server must have been started with it)"
  cass_nodetool "$run" "$CASSANDRA_JMX_PORT" "$@"
}

cmd_status() {
  local pid
  if pid="$(it_pid_alive "$pidfile" "$pattern")"; then
    echo "cassandra running: pid $pid, 127.0.0.1:$port, RSS $(it_rss_mib "$pid") MiB, run dir $run"
    return 0
  fi
  echo "cassandra not running (run dir $run)"
  return 3
}

case "${1:-}" in
  install) cass_install ;;
  start) cmd_start ;;
  wait) cmd_wait ;;
  stop) cmd_stop ;;
  kill) cass_kill "$run" ;; # abrupt failure, for tests: SIGKILL, no drain
  status) cmd_status ;;
  logs) tail -n "${2:-80}" "$logfile" ;;
  clean) cmd_stop && rm -rf "$run" ;;
  check) cass_cql_check "$run" 127.0.0.1 "$port" ;;
  nodetool) shift; cmd_nodetool "$@" ;;
  *)
    sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
