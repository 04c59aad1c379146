#!/usr/bin/env bash
# A pseudo-distributed HBase 2.6 for dohyo's cluster tests (issue #46), from
# the same Maven Central jars as run.sh: ZooKeeper, the master and each
# region server in a JVM of its own on 127.0.0.1, sharing one local root dir,
# so a region server can be killed and its regions reassigned.
#
#   cluster.sh start          launch ZooKeeper, the master and every region server
#   cluster.sh wait           block until the master is initialised, every region
#                             server has registered, every region hbase:meta lists
#                             is open on a live server (a killed server's regions
#                             reassigned) and a gohbase round trip works
#   cluster.sh stop           stop the region servers, the master, ZooKeeper
#   cluster.sh kill N         SIGKILL region server N (1-based), wait for its exit
#   cluster.sh start-rs N     launch region server N (after kill or stop-rs)
#   cluster.sh stop-rs N      SIGTERM region server N (its regions close)
#   cluster.sh restart N      kill N, then start-rs N
#   cluster.sh status         one line per process; exit 3 when one is down
#   cluster.sh zk             the ZooKeeper address (host:port)
#   cluster.sh logs PROC [N]  tail a process's log (zk, master, rs1, rs2, ...)
#   cluster.sh clean          stop, then delete the run dir
#
# Environment:
#   HBASE_CLUSTER_RS          number of region servers, default 2
#   HBASE_CLUSTER_ZK_PORT     default 2191
#   HBASE_CLUSTER_MASTER_PORT default 16100
#   HBASE_CLUSTER_RS_PORT     first region server's port, default 16120 (then +1)
#   HBASE_CLUSTER_RUN_DIR     default it/.run/hbase-cluster
#   HBASE_CLUSTER_HEAP        max heap of the master and each region server, default 512m
#   HBASE_CLUSTER_MAX_FILESIZE  region size that splits it, default 4194304 (4 MiB)
#   HBASE_CLUSTER_FLUSH_SIZE  memstore flush size, default 1048576 (1 MiB)
#   HBASE_CLUSTER_WAIT_TIMEOUT seconds for wait, default 240
#   HBASE_CLUSTER_STOP_TIMEOUT seconds before SIGKILL, default 60
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$here/../lib.sh"

version="$(sed -n 's:.*<hbase.version>\(.*\)</hbase.version>.*:\1:p' "$here/pom.xml")"
lib="$IT_CACHE/hbase-$version/lib"
nrs="${HBASE_CLUSTER_RS:-2}"
zk_port="${HBASE_CLUSTER_ZK_PORT:-2191}"
master_port="${HBASE_CLUSTER_MASTER_PORT:-16100}"
rs_port0="${HBASE_CLUSTER_RS_PORT:-16120}"
root="${HBASE_CLUSTER_RUN_DIR:-$IT_RUN/hbase-cluster}"
checkbin="$IT_CACHE/bin/hbase-check"
master_class="org.apache.hadoop.hbase.master.HMaster"
rs_class="org.apache.hadoop.hbase.regionserver.HRegionServer"
zk_class="org.apache.zookeeper.server.ZooKeeperServerMain"

# rs_index N checks N (1-based) and succeeds when it names a region server.
rs_index() {
  if ! [[ "$1" =~ ^[0-9]+$ ]] || (($1 < 1 || $1 > nrs)); then
    it_die "no region server $1 (1..$nrs)"
  fi
}

# proc_class PROC prints the Java main class of zk, master or rsN.
proc_class() {
  case "$1" in
    zk) echo "$zk_class" ;;
    master) echo "$master_class" ;;
    rs*) echo "$rs_class" ;;
  esac
}

# The pattern that identifies a process: its class plus its own conf dir.
proc_pattern() { echo "$root/$1/conf"; }
pidfile() { echo "$root/$1/pid"; }
logfile() { echo "$root/$1/logs/$1.log"; }

render() {
  local proc="$1" rsport="${2:-$rs_port0}"
  mkdir -p "$root/$proc/conf" "$root/$proc/logs" "$root/$proc/tmp" "$root/data"
  sed -e "s|@RUN@|$root/$proc|g" -e "s|@ROOT@|$root|g" -e "s|@ZK_PORT@|$zk_port|g" \
    -e "s|@MASTER_PORT@|$master_port|g" -e "s|@RS_PORT@|$rsport|g" \
    -e "s|@MAX_FILESIZE@|${HBASE_CLUSTER_MAX_FILESIZE:-4194304}|g" \
    -e "s|@FLUSH_SIZE@|${HBASE_CLUSTER_FLUSH_SIZE:-1048576}|g" \
    "$here/cluster-site.xml.in" >"$root/$proc/conf/hbase-site.xml"
  cp "$here/log4j2.xml" "$root/$proc/conf/log4j2.xml"
  if [[ "$proc" == zk ]]; then
    cat >"$root/zk/conf/zoo.cfg" <<CFG
tickTime=2000
maxSessionTimeout=40000
dataDir=$root/data/zookeeper
clientPort=$zk_port
clientPortAddress=127.0.0.1
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr,stat
CFG
  fi
}

launch() {
  local proc="$1" heap="$2" pid
  shift 2
  if pid="$(it_pid_alive "$(pidfile "$proc")" "$(proc_pattern "$proc")")"; then
    it_log "hbase cluster: $proc already running (pid $pid)"
    return 0
  fi
  local java
  java="$(it_java)"
  local -a opts
  mapfile -t opts < <(grep -vE '^\s*(#|$)' "$here/jvm17.options")
  opts+=("-Xms128m" "-Xmx$heap"
    "-Dlog4j2.configurationFile=file://$root/$proc/conf/log4j2.xml"
    "-Dzookeeper.admin.enableServer=false" "-Djava.net.preferIPv4Stack=true"
    "-Dhbase.log.dir=$root/$proc/logs" "-Dhbase.home.dir=$root/$proc" "-Dhadoop.home.dir=$root/$proc"
    "-Djava.io.tmpdir=$root/$proc/tmp" "-XX:ErrorFile=$root/$proc/logs/hs_err_%p.log")
  it_rotate_log "$(logfile "$proc")"
  # conf/ first on the classpath so hbase-site.xml is found; setsid: a Ctrl-C
  # aimed at the caller must not kill the server.
  (cd "$root/$proc" && exec setsid "$java" "${opts[@]}" -cp "$root/$proc/conf:$lib/*" "$(proc_class "$proc")" "$@" \
    >>"$(logfile "$proc")" 2>&1 </dev/null) &
  echo $! >"$(pidfile "$proc")"
  it_log "hbase cluster: $proc started (pid $!)"
}

start_rs() {
  rs_index "$1"
  local port=$((rs_port0 + $1 - 1))
  render "rs$1" "$port"
  launch "rs$1" "${HBASE_CLUSTER_HEAP:-512m}" start
}

cmd_start() {
  "$here/run.sh" install
  local p i
  for p in "$zk_port" "$master_port"; do
    if it_port_open 127.0.0.1 "$p" && ! it_pid_alive "$(pidfile zk)" "$(proc_pattern zk)" >/dev/null; then
      it_die "127.0.0.1:$p is already in use; stop whatever listens there or set HBASE_CLUSTER_*_PORT"
    fi
  done
  render zk
  launch zk 128m "$root/zk/conf/zoo.cfg"
  for ((i = 0; i < 150; i++)); do
    [[ "$(it_zk_ruok "$zk_port")" == imok ]] && break
    sleep 0.2
  done
  render master
  launch master "${HBASE_CLUSTER_HEAP:-512m}" start
  for ((i = 1; i <= nrs; i++)); do start_rs "$i"; done
}

cmd_wait() {
  local timeout="${HBASE_CLUSTER_WAIT_TIMEOUT:-240}" start now stage="zookeeper" out="" proc
  start="$(date +%s)"
  while :; do
    for proc in zk master; do
      if ! it_pid_alive "$(pidfile "$proc")" "$(proc_pattern "$proc")" >/dev/null; then
        it_log "hbase cluster: $proc is not running; last log lines:"
        tail -n 60 "$(logfile "$proc")" 2>/dev/null | cut -c1-400 >&2 || true
        return 1
      fi
    done
    if [[ "$(it_zk_ruok "$zk_port")" == imok ]]; then
      stage="master initialization"
      if grep -q "Master has completed initialization" "$(logfile master)" 2>/dev/null; then
        stage="region servers registering"
        if (($(online) >= nrs)); then
          stage="gohbase check"
          if out="$("$checkbin" -assigned -zk "127.0.0.1:$zk_port" -timeout 30s 2>&1)"; then
            it_log "hbase cluster ready (ZooKeeper 127.0.0.1:$zk_port, $nrs region servers) after $(($(date +%s) - start))s"
            return 0
          fi
        fi
      fi
    fi
    now="$(date +%s)"
    if ((now - start >= timeout)); then
      it_log "hbase cluster not ready after ${timeout}s (stuck at: $stage); last master log lines:"
      tail -n 60 "$(logfile master)" 2>/dev/null | cut -c1-400 >&2 || true
      [[ -n "$out" ]] && it_log "last check output: $out"
      return 1
    fi
    sleep 1
  done
}

# online prints how many region servers are running and have reported for
# duty to the master (counted from their logs since their last start).
online() {
  local i n=0
  for ((i = 1; i <= nrs; i++)); do
    if it_pid_alive "$(pidfile "rs$i")" "$(proc_pattern "rs$i")" >/dev/null &&
      grep -q "Serving as 127.0.0.1,$((rs_port0 + i - 1))," "$(logfile "rs$i")" 2>/dev/null; then
      n=$((n + 1))
    fi
  done
  echo "$n"
}

stop_proc() {
  it_stop_pid "$(pidfile "$1")" "$(proc_pattern "$1")" "${HBASE_CLUSTER_STOP_TIMEOUT:-60}"
}

cmd_kill() {
  rs_index "$1"
  local pid i
  if ! pid="$(it_pid_alive "$(pidfile "rs$1")" "$(proc_pattern "rs$1")")"; then
    it_log "hbase cluster: rs$1 is not running"
    return 0
  fi
  kill -KILL "$pid"
  for ((i = 0; i < 100; i++)); do
    [[ -d "/proc/$pid" && "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]] || break
    sleep 0.1
  done
  rm -f "$(pidfile "rs$1")"
  it_log "hbase cluster: rs$1 killed (pid $pid)"
}

cmd_stop() {
  local i
  for ((i = 1; i <= nrs; i++)); do stop_proc "rs$i"; done
  stop_proc master
  stop_proc zk
}

cmd_status() {
  local proc pid rc=0 i
  local procs=(zk master)
  for ((i = 1; i <= nrs; i++)); do procs+=("rs$i"); done
  for proc in "${procs[@]}"; do
    if pid="$(it_pid_alive "$(pidfile "$proc")" "$(proc_pattern "$proc")")"; then
      echo "$proc running: pid $pid, RSS $(it_rss_mib "$pid") MiB"
    else
      echo "$proc down"
      rc=3
    fi
  done
  return "$rc"
}

case "${1:-}" in
  start) cmd_start ;;
  wait) cmd_wait ;;
  stop) cmd_stop ;;
  kill) cmd_kill "${2:?region server number}" ;;
  start-rs) start_rs "${2:?region server number}" ;;
  stop-rs) rs_index "${2:?region server number}" && stop_proc "rs$2" ;;
  restart) cmd_kill "${2:?region server number}" && start_rs "$2" ;;
  status) cmd_status ;;
  zk) echo "127.0.0.1:$zk_port" ;;
  logs) tail -n "${3:-80}" "$(logfile "${2:?process: zk, master, rs1, ...}")" ;;
  clean) cmd_stop && rm -rf "$root" ;;
  *)
    sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
