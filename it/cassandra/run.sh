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
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$here/../lib.sh"

version="$(sed -n 's:.*<cassandra.version>\(.*\)</cassandra.version>.*:\1:p' "$here/pom.xml")"
lib="$IT_CACHE/cassandra-$version/lib"
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
pattern="org.apache.cassandra.service.CassandraDaemon"

cmd_install() {
  it_mvn_copy "$here/pom.xml" "$lib"
  it_java >/dev/null
}

render_config() {
  local auth="${CASSANDRA_AUTH:-none}" authn authz
  case "$auth" in
    none) authn=AllowAllAuthenticator authz=AllowAllAuthorizer ;;
    password) authn=PasswordAuthenticator authz=CassandraAuthorizer ;;
    *) it_die "CASSANDRA_AUTH must be none or password, not $auth" ;;
  esac
  mkdir -p "$run/conf" "$run/logs" "$run/triggers" \
    "$run/data"/{data,commitlog,saved_caches,hints,cdc_raw}
  sed -e "s|@RUN@|$run|g" -e "s|@PORT@|$port|g" -e "s|@STORAGE_PORT@|$storage_port|g" \
    -e "s|@AUTHENTICATOR@|$authn|g" -e "s|@AUTHORIZER@|$authz|g" \
    "$here/cassandra.yaml.in" >"$run/conf/cassandra.yaml"
  cp "$here/logback.xml" "$run/conf/logback.xml"
  echo "$auth" >"$run/auth"
}

cmd_start() {
  local pid
  if pid="$(it_pid_alive "$pidfile" "$pattern")"; then
    it_log "cassandra already running (pid $pid)"
    return 0
  fi
  cmd_install
  local p
  local -a ports=("$port" "$storage_port")
  [[ -n "${CASSANDRA_JMX_PORT:-}" ]] && ports+=("$CASSANDRA_JMX_PORT")
  for p in "${ports[@]}"; do
    if it_port_open 127.0.0.1 "$p"; then
      it_die "127.0.0.1:$p is already in use; stop whatever listens there or set CASSANDRA_PORT"
    fi
  done
  render_config
  local java jamm
  java="$(it_java)"
  local jars=("$lib"/jamm-*.jar)
  jamm="${jars[0]}"
  local -a opts
  mapfile -t opts < <(grep -vE '^\s*(#|$)' "${CASSANDRA_JVM_OPTIONS_FILE:-$here/jvm17.options}")
  opts+=(
    "-Xms512m" "-Xmx${CASSANDRA_HEAP:-1g}"
    # jamm measures object sizes for memtable accounting; 5.0 refuses to
    # start without the agent.
    "-javaagent:$jamm"
    "-Dcassandra.config=file://$run/conf/cassandra.yaml"
    "-Dlogback.configurationFile=file://$run/conf/logback.xml"
    # Without it CassandraDaemon closes stdout/stderr once started.
    "-Dcassandra-foreground=yes"
    "-Dcassandra.storagedir=$run/data"
    "-Dcassandra.logdir=$run/logs"
    "-Dcassandra.triggers_dir=$run/triggers"
    # Single node: no peers to wait for, no reason to delay the superuser.
    "-Dcassandra.skip_wait_for_gossip_to_settle=0"
    "-Dcassandra.superuser_setup_delay_ms=0"
    "-Djava.net.preferIPv4Stack=true"
    "-Djava.rmi.server.hostname=127.0.0.1"
    "-XX:ErrorFile=$run/logs/hs_err_%p.log"
  )
  if [[ -n "${CASSANDRA_JMX_PORT:-}" ]]; then
    # Cassandra's own local-only JMX server (bound to loopback, no auth):
    # what nodetool talks to.
    # The RMI objects share the port (else they take an ephemeral one).
    opts+=("-Dcassandra.jmx.local.port=$CASSANDRA_JMX_PORT"
      "-Dcom.sun.management.jmxremote.rmi.port=$CASSANDRA_JMX_PORT")
  fi
  # shellcheck disable=SC2206
  opts+=(${CASSANDRA_JVM_OPTS:-})
  it_log "starting cassandra $version on 127.0.0.1:$port (run dir $run)"
  date +%s.%N >"$run/started_at"
  it_rotate_log "$logfile"
  # setsid: a Ctrl-C aimed at the caller must not kill the server mid-write;
  # stop is explicit.
  (cd "$run" && exec setsid "$java" "${opts[@]}" -cp "$lib/*" "$pattern" \
    >>"$logfile" 2>&1 </dev/null) &
  echo $! >"$pidfile"
}

# cql_check runs one real query through cqlsh (the venv is created on first use).
cql_check() {
  local venv auth
  venv="$("$IT_DIR/python/setup.sh" -p)"
  auth="$(cat "$run/auth" 2>/dev/null || echo "${CASSANDRA_AUTH:-none}")"
  local -a creds=()
  if [[ "$auth" == password ]]; then
    creds=(-u "${CASSANDRA_USER:-cassandra}" -p "${CASSANDRA_PASSWORD:-cassandra}")
  fi
  "$venv/bin/cqlsh" 127.0.0.1 "$port" "${creds[@]}" --connect-timeout=5 --request-timeout=10 \
    -e "SELECT release_version FROM system.local" 2>&1
}

cmd_wait() {
  local timeout="${CASSANDRA_WAIT_TIMEOUT:-180}" start now out pid
  start="$(date +%s)"
  "$IT_DIR/python/setup.sh" >/dev/null
  while :; do
    if ! pid="$(it_pid_alive "$pidfile" "$pattern")"; then
      it_log "cassandra is not running; last log lines:"
      tail -n 80 "$logfile" 2>/dev/null | cut -c1-400 >&2 || true
      return 1
    fi
    if grep -q "Starting listening for CQL clients" "$logfile" 2>/dev/null &&
      it_port_open 127.0.0.1 "$port" && out="$(cql_check)"; then
      local t0 took
      t0="$(cat "$run/started_at" 2>/dev/null || echo "$start")"
      took="$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')"
      it_log "cassandra ready on 127.0.0.1:$port after ${took}s (pid $pid, RSS $(it_rss_mib "$pid") MiB, release $(echo "$out" | grep -vi warning | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1))"
      return 0
    fi
    now="$(date +%s)"
    if ((now - start >= timeout)); then
      it_log "cassandra not ready after ${timeout}s; last log lines:"
      tail -n 80 "$logfile" 2>/dev/null | cut -c1-400 >&2 || true
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

# cmd_nodetool runs org.apache.cassandra.tools.NodeTool from the server's jars
# against the local JMX port.
cmd_nodetool() {
  [[ -n "${CASSANDRA_JMX_PORT:-}" ]] || it_die "set CASSANDRA_JMX_PORT (the server must have been started with it)"
  local java
  java="$(it_java)"
  local -a opts
  # The server's module flags (the tools touch the same JDK internals),
  # without its GC and heap settings; user.home is the run dir, where
  # nodetool keeps its history.
  mapfile -t opts < <(grep -E '^\s*(--add-|-Dio\.netty|-Djdk\.attach)' "${CASSANDRA_JVM_OPTIONS_FILE:-$here/jvm17.options}")
  mkdir -p "$run"
  "$java" "${opts[@]}" -Xmx256m -Duser.home="$run" -Dcassandra.logdir="$run/logs" \
    -Dlogback.configurationFile=file://"$here/logback.xml" -Djava.net.preferIPv4Stack=true \
    -cp "$lib/*" org.apache.cassandra.tools.NodeTool -h 127.0.0.1 -p "$CASSANDRA_JMX_PORT" "$@"
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
  install) cmd_install ;;
  start) cmd_start ;;
  wait) cmd_wait ;;
  stop) cmd_stop ;;
  kill) # abrupt failure, for tests: SIGKILL, no drain
    if pid="$(it_pid_alive "$pidfile" "$pattern")"; then
      it_log "killing cassandra (pid $pid)"
      kill -9 "$pid"
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    fi ;;
  status) cmd_status ;;
  logs) tail -n "${2:-80}" "$logfile" ;;
  clean) cmd_stop && rm -rf "$run" ;;
  check) cql_check ;;
  nodetool) shift; cmd_nodetool "$@" ;;
  *)
    sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
