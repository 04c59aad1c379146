#!/usr/bin/env bash
# Real standalone HBase 2.6 (master + region server + ZooKeeper in one JVM,
# local file system) for dohyo's integration tests, from Maven Central jars.
#
#   run.sh install   resolve jars into it/.cache/hbase-<version>/lib (cached)
#                    and build the gohbase check program
#   run.sh start     launch in the background (pid file, log under the run dir)
#   run.sh wait      block until ZooKeeper says imok, the master has finished
#                    initialising and a gohbase create/put/get/delete-table
#                    round trip works (or fail with the log tail)
#   run.sh stop      ask the master to shut the cluster down, then SIGTERM,
#                    then SIGKILL after a timeout
#   run.sh status    exit 0 when running, 3 when not
#   run.sh logs [N]  tail the server log (default 80 lines)
#   run.sh clean     stop and delete the run dir (data, logs, config)
#   run.sh check [-mode write|read -table T]
#                    run the gohbase check once now (write/read: leave a known
#                    cell in table T / read it back, e.g. across a restart)
#
# Data survives stop/start (WAL replay); use clean for a fresh cluster.
#
# Environment:
#   HBASE_ZK_PORT        ZooKeeper client port, default 2181
#   HBASE_MASTER_PORT    default 16000
#   HBASE_RS_PORT        default 16020
#   HBASE_RUN_DIR        default it/.run/hbase
#   HBASE_HEAP           max heap, default 1g (initial heap is 512m)
#   HBASE_WAIT_TIMEOUT   seconds for wait, default 180
#   HBASE_STOP_TIMEOUT   seconds before SIGKILL, default 60
#   HBASE_JVM_OPTS       extra JVM flags appended last
#   HBASE_JVM_OPTIONS_FILE  replaces it/hbase/jvm17.options
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$here/../lib.sh"

version="$(sed -n 's:.*<hbase.version>\(.*\)</hbase.version>.*:\1:p' "$here/pom.xml")"
lib="$IT_CACHE/hbase-$version/lib"
zk_port="${HBASE_ZK_PORT:-2181}"
master_port="${HBASE_MASTER_PORT:-16000}"
rs_port="${HBASE_RS_PORT:-16020}"
run="${HBASE_RUN_DIR:-$IT_RUN/hbase}"
pidfile="$run/hbase.pid"
logfile="$run/logs/hbase.log"
pattern="org.apache.hadoop.hbase.master.HMaster"
checkbin="$IT_CACHE/bin/hbase-check"

cmd_install() {
  it_mvn_copy "$here/pom.xml" "$lib"
  it_java >/dev/null
  build_check
}

# build_check compiles the gohbase check program when its source changed.
build_check() {
  local src="$here/check/main.go"
  if [[ -x "$checkbin" && "$checkbin" -nt "$src" && "$checkbin" -nt "$IT_DIR/../go.mod" ]]; then
    return 0
  fi
  command -v go >/dev/null || it_die "go is needed to build it/hbase/check"
  mkdir -p "$(dirname "$checkbin")"
  (cd "$IT_DIR/.." && go build -o "$checkbin" ./it/hbase/check) ||
    it_die "building it/hbase/check failed"
}

render_config() {
  mkdir -p "$run/conf" "$run/logs" "$run/tmp" "$run/data"
  sed -e "s|@RUN@|$run|g" -e "s|@ZK_PORT@|$zk_port|g" \
    -e "s|@MASTER_PORT@|$master_port|g" -e "s|@RS_PORT@|$rs_port|g" \
    "$here/hbase-site.xml.in" >"$run/conf/hbase-site.xml"
  cp "$here/log4j2.xml" "$run/conf/log4j2.xml"
}

jvm_opts() {
  grep -vE '^\s*(#|$)' "${HBASE_JVM_OPTIONS_FILE:-$here/jvm17.options}"
  cat <<EOF
-Dlog4j2.configurationFile=file://$run/conf/log4j2.xml
-Dzookeeper.admin.enableServer=false
-Dzookeeper.4lw.commands.whitelist=ruok,srvr,stat
-Djava.net.preferIPv4Stack=true
-Dhbase.log.dir=$run/logs
-Dhbase.home.dir=$run
-Dhadoop.home.dir=$run
-Djava.io.tmpdir=$run/tmp
-XX:ErrorFile=$run/logs/hs_err_%p.log
EOF
}

cmd_start() {
  local pid
  if pid="$(it_pid_alive "$pidfile" "$pattern")"; then
    it_log "hbase already running (pid $pid)"
    return 0
  fi
  cmd_install
  local p
  for p in "$zk_port" "$master_port" "$rs_port"; do
    if it_port_open 127.0.0.1 "$p"; then
      it_die "127.0.0.1:$p is already in use; stop whatever listens there or set HBASE_*_PORT"
    fi
  done
  render_config
  local java
  java="$(it_java)"
  local -a opts
  mapfile -t opts < <(jvm_opts)
  opts+=("-Xms512m" "-Xmx${HBASE_HEAP:-1g}")
  # shellcheck disable=SC2206
  opts+=(${HBASE_JVM_OPTS:-})
  it_log "starting hbase $version (ZooKeeper 127.0.0.1:$zk_port, run dir $run)"
  date +%s.%N >"$run/started_at"
  it_rotate_log "$logfile"
  # conf/ first on the classpath so hbase-site.xml is found. setsid: a Ctrl-C
  # aimed at the caller must not kill the server; stop is explicit.
  (cd "$run" && exec setsid "$java" "${opts[@]}" -cp "$run/conf:$lib/*" "$pattern" start \
    >>"$logfile" 2>&1 </dev/null) &
  echo $! >"$pidfile"
}

master_ready() {
  grep -q "Master has completed initialization" "$logfile" 2>/dev/null
}

cmd_check() {
  build_check
  "$checkbin" -zk "127.0.0.1:$zk_port" "$@"
}

cmd_wait() {
  local timeout="${HBASE_WAIT_TIMEOUT:-180}" start now pid out="" stage="zookeeper"
  start="$(date +%s)"
  build_check
  while :; do
    if ! pid="$(it_pid_alive "$pidfile" "$pattern")"; then
      it_log "hbase is not running; last log lines:"
      tail -n 80 "$logfile" 2>/dev/null | cut -c1-400 >&2 || true
      return 1
    fi
    if [[ "$(it_zk_ruok "$zk_port")" == imok ]]; then
      stage="master initialization"
      if master_ready; then
        stage="gohbase check"
        if out="$("$checkbin" -zk "127.0.0.1:$zk_port" -timeout 30s 2>&1)"; then
          local t0 took
          t0="$(cat "$run/started_at" 2>/dev/null || echo "$start")"
          took="$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')"
          it_log "hbase ready (ZooKeeper 127.0.0.1:$zk_port) after ${took}s (pid $pid, RSS $(it_rss_mib "$pid") MiB)"
          return 0
        fi
      fi
    fi
    now="$(date +%s)"
    if ((now - start >= timeout)); then
      it_log "hbase not ready after ${timeout}s (stuck at: $stage); last log lines:"
      tail -n 80 "$logfile" 2>/dev/null | cut -c1-400 >&2 || true
      [[ -n "$out" ]] && it_log "last check output: $out"
      return 1
    fi
    sleep 1
  done
}

cmd_stop() {
  local pid i
  if ! pid="$(it_pid_alive "$pidfile" "$pattern")"; then
    rm -f "$pidfile"
    return 0
  fi
  it_log "stopping hbase (pid $pid)"
  # SIGTERM runs HBase's shutdown hooks: the region server closes its
  # regions (flushing memstores) and the master stops cleanly.
  it_stop_pid "$pidfile" "$pattern" "${HBASE_STOP_TIMEOUT:-60}"
  # The embedded ZooKeeper must be gone before a restart can bind its port.
  for ((i = 0; i < 50; i++)); do
    it_port_open 127.0.0.1 "$zk_port" || break
    sleep 0.2
  done
}

cmd_status() {
  local pid
  if pid="$(it_pid_alive "$pidfile" "$pattern")"; then
    echo "hbase running: pid $pid, ZooKeeper 127.0.0.1:$zk_port, RSS $(it_rss_mib "$pid") MiB, run dir $run"
    return 0
  fi
  echo "hbase not running (run dir $run)"
  return 3
}

case "${1:-}" in
  install) cmd_install ;;
  start)
    cmd_start
    ;;
  wait) cmd_wait ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  logs) tail -n "${2:-80}" "$logfile" ;;
  clean) cmd_stop && rm -rf "$run" ;;
  check) shift && cmd_check "$@" ;;
  *)
    sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
