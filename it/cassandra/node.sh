# shellcheck shell=bash
# One Cassandra 5.0 node from Maven Central jars: what run.sh (the single
# test server) and cluster.sh (a 3-node cluster) share. Sourced, not
# executed; sources it/lib.sh.
#
# A node is a run dir (config, data, logs, pid file) and the addresses it
# listens on; the functions take them as arguments.

cass_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$cass_here/../lib.sh"

CASS_VERSION="$(sed -n 's:.*<cassandra.version>\(.*\)</cassandra.version>.*:\1:p' "$cass_here/pom.xml")"
CASS_LIB="$IT_CACHE/cassandra-$CASS_VERSION/lib"
# The main class: what it_pid_alive checks a pid's command line for.
CASS_PATTERN="org.apache.cassandra.service.CassandraDaemon"

# cass_install resolves the jars (cached) and the JDK.
cass_install() {
  it_mvn_copy "$cass_here/pom.xml" "$CASS_LIB"
  it_java >/dev/null
}

# cass_jvm_options prints the JVM option lines (jvm17.options, or
# CASSANDRA_JVM_OPTIONS_FILE), comments dropped.
cass_jvm_options() {
  grep -vE '^\s*(#|$)' "${CASSANDRA_JVM_OPTIONS_FILE:-$cass_here/jvm17.options}"
}

# cass_render_config RUN ADDR PORT STORAGE_PORT SEEDS CLUSTER AUTH [EXTRA]
# writes RUN/conf/cassandra.yaml (EXTRA: YAML lines appended, e.g. a node's
# initial_token) and RUN/conf/logback.xml, and creates the data dirs. AUTH
# is none or password.
cass_render_config() {
  local run="$1" addr="$2" port="$3" storage_port="$4" seeds="$5" cluster="$6" auth="$7" extra="${8:-}"
  local authn authz
  case "$auth" in
    none) authn=AllowAllAuthenticator authz=AllowAllAuthorizer ;;
    password) authn=PasswordAuthenticator authz=CassandraAuthorizer ;;
    *) it_die "CASSANDRA_AUTH must be none or password, not $auth" ;;
  esac
  mkdir -p "$run/conf" "$run/logs" "$run/triggers" \
    "$run/data"/{data,commitlog,saved_caches,hints,cdc_raw}
  sed -e "s|@RUN@|$run|g" -e "s|@PORT@|$port|g" -e "s|@STORAGE_PORT@|$storage_port|g" \
    -e "s|@ADDR@|$addr|g" -e "s|@SEEDS@|$seeds|g" -e "s|@CLUSTER@|$cluster|g" \
    -e "s|@AUTHENTICATOR@|$authn|g" -e "s|@AUTHORIZER@|$authz|g" \
    "$cass_here/cassandra.yaml.in" >"$run/conf/cassandra.yaml"
  if [[ -n "$extra" ]]; then
    printf '\n# Per-node settings.\n%s\n' "$extra" >>"$run/conf/cassandra.yaml"
  fi
  cp "$cass_here/logback.xml" "$run/conf/logback.xml"
  echo "$auth" >"$run/auth"
}

# cass_launch RUN HEAP JMX_PORT [JVM_OPT...] starts the node whose config
# is in RUN in the background (setsid: a Ctrl-C aimed at the caller must
# not kill it mid-write), logging to RUN/logs/cassandra.log, and writes
# RUN/cassandra.pid. JMX_PORT "" means no JMX. CASSANDRA_JVM_OPTS come last.
cass_launch() {
  local run="$1" heap="$2" jmx="$3"
  shift 3
  local java jamm logfile="$run/logs/cassandra.log"
  java="$(it_java)"
  local jars=("$CASS_LIB"/jamm-*.jar)
  jamm="${jars[0]}"
  local -a opts
  mapfile -t opts < <(cass_jvm_options)
  opts+=(
    "-Xms512m" "-Xmx$heap"
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
    # No reason to delay the superuser; no gossip settling to wait for
    # on a single node (cluster.sh's nodes learn each other by gossip).
    "-Dcassandra.skip_wait_for_gossip_to_settle=0"
    "-Dcassandra.superuser_setup_delay_ms=0"
    "-Djava.net.preferIPv4Stack=true"
    "-Djava.rmi.server.hostname=127.0.0.1"
    "-XX:ErrorFile=$run/logs/hs_err_%p.log"
  )
  if [[ -n "$jmx" ]]; then
    # Cassandra's own local-only JMX server (bound to loopback, no auth):
    # what nodetool talks to. The RMI objects share the port (else they
    # take an ephemeral one).
    opts+=("-Dcassandra.jmx.local.port=$jmx" "-Dcom.sun.management.jmxremote.rmi.port=$jmx")
  fi
  opts+=("$@")
  # shellcheck disable=SC2206
  opts+=(${CASSANDRA_JVM_OPTS:-})
  date +%s.%N >"$run/started_at"
  it_rotate_log "$logfile"
  (cd "$run" && exec setsid "$java" "${opts[@]}" -cp "$CASS_LIB/*" "$CASS_PATTERN" \
    >>"$logfile" 2>&1 </dev/null) &
  echo $! >"$run/cassandra.pid"
}

# cass_cql_check RUN ADDR PORT [QUERY] runs one real query through cqlsh
# (the venv is created on first use), with the credentials the node was
# started for (RUN/auth).
cass_cql_check() {
  local run="$1" addr="$2" port="$3" query="${4:-SELECT release_version FROM system.local}"
  local venv auth
  venv="$("$IT_DIR/python/setup.sh" -p 2>/dev/null)"
  auth="$(cat "$run/auth" 2>/dev/null || echo "${CASSANDRA_AUTH:-none}")"
  local -a creds=()
  if [[ "$auth" == password ]]; then
    creds=(-u "${CASSANDRA_USER:-cassandra}" -p "${CASSANDRA_PASSWORD:-cassandra}")
  fi
  "$venv/bin/cqlsh" "$addr" "$port" "${creds[@]}" --connect-timeout=5 --request-timeout=10 \
    -e "$query" 2>&1
}

# cass_ready RUN ADDR PORT: the log says CQL listens, the port accepts and
# a query answers (prints cqlsh's output).
cass_ready() {
  local run="$1" addr="$2" port="$3"
  grep -q "Starting listening for CQL clients" "$run/logs/cassandra.log" 2>/dev/null &&
    it_port_open "$addr" "$port" && cass_cql_check "$run" "$addr" "$port"
}

# cass_took RUN prints the seconds since the node was launched.
cass_took() {
  local t0
  t0="$(cat "$1/started_at" 2>/dev/null || date +%s.%N)"
  awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'
}

# cass_log_tail RUN [N] prints the last N (80) log lines to stderr.
cass_log_tail() {
  tail -n "${2:-80}" "$1/logs/cassandra.log" 2>/dev/null | cut -c1-400 >&2 || true
}

# cass_kill RUN: SIGKILL at once (abrupt failure), then wait for the exit.
cass_kill() {
  local pid
  if pid="$(it_pid_alive "$1/cassandra.pid" "$CASS_PATTERN")"; then
    it_log "killing cassandra (pid $pid, run dir $1)"
    kill -9 "$pid"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
}

# cass_nodetool RUN JMX_PORT ARGS... runs org.apache.cassandra.tools.NodeTool
# from the server's jars against a node's local JMX port.
cass_nodetool() {
  local run="$1" jmx="$2"
  shift 2
  local java
  java="$(it_java)"
  local -a opts
  # The server's module flags (the tools touch the same JDK internals),
  # without its GC and heap settings; user.home is the run dir, where
  # nodetool keeps its history.
  mapfile -t opts < <(cass_jvm_options | grep -E '^\s*(--add-|-Dio\.netty|-Djdk\.attach)')
  mkdir -p "$run"
  "$java" "${opts[@]}" -Xmx256m -XX:TieredStopAtLevel=1 -Duser.home="$run" -Dcassandra.logdir="$run/logs" \
    -Dlogback.configurationFile=file://"$cass_here/logback.xml" -Djava.net.preferIPv4Stack=true \
    -cp "$CASS_LIB/*" org.apache.cassandra.tools.NodeTool -h 127.0.0.1 -p "$jmx" "$@"
}
