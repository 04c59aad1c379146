#!/usr/bin/env bash
# with-backends.sh CMD [ARGS...]
#
# Runs CMD with a real Cassandra 5.0 and a real standalone HBase 2.6 up on
# 127.0.0.1 (installed on first use from Maven Central, PyPI and Debian into
# the git-ignored it/.cache), then stops both whatever happens. Servers start
# one after the other (2-core machines). On CMD failure the last 80 log lines
# of each server are printed. Exits with CMD's status.
#
# CMD sees:
#   DOHYO_TEST_CASSANDRA=127.0.0.1:9042   DOHYO_TEST_HBASE_ZK=127.0.0.1:2181
#   DOHYO_TEST_CASSANDRA_JMX=7199         (Cassandra's local-only JMX port, for
#                                          nodetool: CASSANDRA_JMX_PORT, default
#                                          7199, or CASSANDRA_PORT+2)
#   DOHYO_TEST_PYTHON, DOHYO_TEST_CQLSH   (venv with cassandra-driver + cqlsh + gql)
#   DOHYO_TEST_NODE_MODULES               (graphql-js, it/node/setup.sh)
#   DOHYO_TEST_YCSB                       (jar dir of the YCSB binding, bench/ycsb)
#   DOHYO_TEST_CASSANDRA_SCRIPT, DOHYO_TEST_HBASE_SCRIPT  (absolute paths of
#   it/cassandra/run.sh and it/hbase/run.sh, for tests that stop/restart them)
#   DOHYO_TEST_FQL_REF                    (it/fql/dump.sh: the Chronicle Queue
#                                          reference reader of full query logs)
#
# Knobs:
#   DOHYO_IT_BACKENDS="cassandra hbase"  which servers to start (default both)
#   DOHYO_IT_KEEP_DATA=1                 keep data from earlier runs (default:
#                                        each run starts from empty servers)
# A server that is already running (started by hand) is reused (after a
# wait) and left running afterwards. For a private set of servers next to
# someone else's, set DOHYO_IT_RUN (run dir root) plus CASSANDRA_PORT,
# HBASE_ZK_PORT, HBASE_MASTER_PORT and HBASE_RS_PORT.
#
#   with-backends.sh --check-ports   only checks, at once, that the ports of
#                                    the servers to start are free (exit 1
#                                    naming the port, its owner and the knob)
# shellcheck disable=SC2317  # functions below run from traps
set -uo pipefail

if [[ $# -eq 0 ]]; then
  sed -n "2,/^set -uo/p" "$0" | grep "^#" | grep -v "^# shellcheck" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cass="$root/it/cassandra/run.sh"
hbase="$root/it/hbase/run.sh"
backends="${DOHYO_IT_BACKENDS:-cassandra hbase}"

log() { echo "[with-backends $(date +%H:%M:%S)] $*" >&2; }

# shellcheck source=../it/lib.sh
source "$root/it/lib.sh"

# Cassandra's local-only JMX port: nodetool (the full query log test).
if [[ -z "${CASSANDRA_JMX_PORT:-}" ]]; then
  if [[ "${CASSANDRA_PORT:-9042}" == 9042 ]]; then
    CASSANDRA_JMX_PORT=7199
  else
    CASSANDRA_JMX_PORT=$((CASSANDRA_PORT + 2))
  fi
fi
export CASSANDRA_JMX_PORT

# port_owner PORT names the process listening on PORT, when ss can tell.
port_owner() {
  command -v ss >/dev/null || return 0
  ss -Hltnp "sport = :$1" 2>/dev/null | grep -o 'users:(([^)]*' | head -1 | sed 's/users:((/ by /'
}

# check_ports fails when a port of a server this run would start is taken
# by something else (a server already running from it/*/run.sh is reused,
# so its ports are fine).
check_ports() {
  local b bad=0 p what knob cport
  for b in $backends; do
    case "$b" in
      cassandra)
        "$cass" status >/dev/null 2>&1 && continue
        cport="${CASSANDRA_PORT:-9042}"
        set -- "$cport:Cassandra CQL:CASSANDRA_PORT"
        if [[ "$cport" == 9042 ]]; then
          set -- "$@" "${CASSANDRA_STORAGE_PORT:-7000}:Cassandra storage:CASSANDRA_STORAGE_PORT"
        else
          set -- "$@" "${CASSANDRA_STORAGE_PORT:-$((cport + 1))}:Cassandra storage:CASSANDRA_STORAGE_PORT"
        fi
        set -- "$@" "$CASSANDRA_JMX_PORT:Cassandra JMX:CASSANDRA_JMX_PORT"
        ;;
      hbase)
        "$hbase" status >/dev/null 2>&1 && continue
        set -- "${HBASE_ZK_PORT:-2181}:HBase ZooKeeper:HBASE_ZK_PORT" \
          "${HBASE_MASTER_PORT:-16000}:HBase master:HBASE_MASTER_PORT" \
          "${HBASE_RS_PORT:-16020}:HBase region server:HBASE_RS_PORT"
        ;;
      *) continue ;;
    esac
    for entry in "$@"; do
      IFS=: read -r p what knob <<<"$entry"
      if it_port_open 127.0.0.1 "$p"; then
        log "error: port $p ($what) is already in use$(port_owner "$p"); stop that process, or give this run private ports: DOHYO_IT_RUN=/tmp/dohyo-it $knob=... (see the header of scripts/with-backends.sh)"
        bad=1
      fi
    done
  done
  return "$bad"
}

if [[ "$1" == --check-ports ]]; then
  check_ports || exit 1
  log "ports free for: $backends"
  exit 0
fi
check_ports || exit 1

started=()
stop_all() {
  local i
  # Reverse start order.
  for ((i = ${#started[@]} - 1; i >= 0; i--)); do
    "${started[i]}" stop || log "stopping ${started[i]} failed"
  done
  started=()
}
# A signal while CMD runs is passed on to CMD (it_run_child); the EXIT
# trap then stops the servers.
trap stop_all EXIT
trap 'it_forward_signal INT 130' INT
trap 'it_forward_signal TERM 143' TERM

show_logs() {
  local s
  for s in "${started[@]}"; do
    echo "----- last 80 log lines of $(basename "$(dirname "$s")") -----" >&2
    "$s" logs 80 2>/dev/null | cut -c1-400 >&2 || true
  done
}

# bring_up SCRIPT: install, (clean), start, wait.
bring_up() {
  local s="$1" name
  name="$(basename "$(dirname "$s")")"
  "$s" install || { log "$name install failed"; return 1; }
  if "$s" status >/dev/null 2>&1; then
    # It may still be starting (someone else's start): wait for it too.
    log "$name already running; reusing it (it stays up afterwards)"
    "$s" wait || { log "$name did not become ready"; return 1; }
    return 0
  fi
  if [[ "${DOHYO_IT_KEEP_DATA:-0}" != 1 ]]; then
    "$s" clean || return 1
  fi
  started+=("$s")
  "$s" start || { log "$name start failed"; return 1; }
  "$s" wait || { log "$name did not become ready"; return 1; }
}

venv="$("$root/it/python/setup.sh" -p)" || { log "python venv setup failed"; exit 1; }
export DOHYO_TEST_PYTHON="$venv/bin/python"
export DOHYO_TEST_CQLSH="$venv/bin/cqlsh"
node_modules="$("$root/it/node/setup.sh" -p)" || { log "node client setup failed"; exit 1; }
export DOHYO_TEST_NODE_MODULES="$node_modules"
ycsb="$("$root/it/ycsb/setup.sh" -p)" || { log "YCSB binding build failed"; exit 1; }
export DOHYO_TEST_YCSB="$ycsb"
export DOHYO_TEST_CASSANDRA_SCRIPT="$cass"
export DOHYO_TEST_FQL_REF="$root/it/fql/dump.sh"
export DOHYO_TEST_HBASE_SCRIPT="$hbase"

for b in $backends; do
  case "$b" in
    cassandra)
      bring_up "$cass" || exit 1
      export DOHYO_TEST_CASSANDRA="127.0.0.1:${CASSANDRA_PORT:-9042}"
      export DOHYO_TEST_CASSANDRA_JMX="$CASSANDRA_JMX_PORT"
      ;;
    hbase)
      bring_up "$hbase" || exit 1
      export DOHYO_TEST_HBASE_ZK="127.0.0.1:${HBASE_ZK_PORT:-2181}"
      ;;
    *)
      log "unknown backend $b in DOHYO_IT_BACKENDS"
      exit 2
      ;;
  esac
done

log "backends ready; running: $*"
rc=0
it_run_child "$@" || rc=$?
if [[ $rc -ne 0 ]]; then
  log "command failed with status $rc"
  show_logs
fi
exit "$rc"
