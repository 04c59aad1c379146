# shellcheck shell=bash disable=SC2034
# Shared helpers for it/*/run.sh. Sourced, not executed.
#
# Everything lives under the (git-ignored) it/.cache (jars, venv) and it/.run
# (config, data, logs, pid files) so a fresh clone needs only network access
# to Maven Central / PyPI / Debian.

IT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
IT_CACHE="${DOHYO_IT_CACHE:-$IT_DIR/.cache}"
IT_RUN="${DOHYO_IT_RUN:-$IT_DIR/.run}"

it_log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
it_die() { it_log "error: $*"; exit 1; }

# apt_install PKG... installs Debian/Ubuntu packages with apt-get, as root
# or with passwordless sudo; otherwise says what is missing.
apt_install() {
  local sudo=()
  if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  fi
  if ! command -v apt-get >/dev/null || { [[ $(id -u) -ne 0 ]] && [[ ${#sudo[@]} -eq 0 ]]; }; then
    it_die "missing $*; install it (Debian/Ubuntu: apt-get install $*, as root)"
  fi
  it_log "apt-get install $*"
  if ! DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "$@" >&2; then
    "${sudo[@]}" apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "$@" >&2
  fi
}

# it_jdk17_home [BIN] prints the home of an installed JDK 17 that has
# bin/BIN (default java): DOHYO_IT_JAVA_HOME, else Debian's/Ubuntu's
# /usr/lib/jvm/java-17-openjdk-ARCH for this machine's architecture (amd64,
# arm64, ...). When none is installed it prints where apt-get will put it.
it_jdk17_home() {
  local bin="${1:-java}" arch d
  if [[ -n "${DOHYO_IT_JAVA_HOME:-}" ]]; then
    echo "$DOHYO_IT_JAVA_HOME"
    return 0
  fi
  arch="$(dpkg --print-architecture 2>/dev/null || true)"
  if [[ -z "$arch" ]]; then
    case "$(uname -m)" in
      x86_64) arch=amd64 ;;
      aarch64) arch=arm64 ;;
      *) arch="$(uname -m)" ;;
    esac
  fi
  for d in "/usr/lib/jvm/java-17-openjdk-$arch" /usr/lib/jvm/java-17-openjdk-* /usr/lib/jvm/java-17-*; do
    if [[ -x "$d/bin/$bin" ]]; then
      echo "$d"
      return 0
    fi
  done
  echo "/usr/lib/jvm/java-17-openjdk-$arch"
}

# it_java prints the JDK 17 java binary, installing Debian's JRE if needed.
# Neither server runs on the newer JDK that is also on these machines.
it_java() {
  local home
  home="$(it_jdk17_home java)"
  if [[ ! -x "$home/bin/java" ]]; then
    apt_install openjdk-17-jre-headless >/dev/null
    home="$(it_jdk17_home java)"
  fi
  [[ -x "$home/bin/java" ]] || it_die "no JDK 17 at $home (set DOHYO_IT_JAVA_HOME to one)"
  echo "$home/bin/java"
}

# it_mvn_copy POM DEST resolves POM's runtime dependencies and copies the jars
# into DEST atomically. A stamp (hash of the POM) makes repeat calls no-ops.
it_mvn_copy() {
  local pom="$1" dest="$2"
  local want
  want="$(sha256sum "$pom" | cut -d' ' -f1)"
  if [[ -f "$dest/.stamp" && "$(cat "$dest/.stamp")" == "$want" ]]; then
    return 0
  fi
  command -v mvn >/dev/null || apt_install maven
  local java
  java="$(it_java)"
  local tmp="$dest.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  it_log "resolving $(basename "$(dirname "$pom")") jars from Maven Central"
  # Maven's output is kept for a failure only (with -q it is just colour codes).
  if ! JAVA_HOME="$(dirname "$(dirname "$java")")" mvn -B -q -Dstyle.color=never -f "$pom" \
      org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$tmp" >"$tmp.log" 2>&1; then
    sed 's/\x1b\[[0-9;]*m//g' "$tmp.log" >&2
    rm -rf "$tmp" "$tmp.log"
    it_die "maven could not resolve $pom"
  fi
  rm -f "$tmp.log"
  echo "$want" >"$tmp/.stamp"
  rm -rf "$dest"
  mv "$tmp" "$dest"
  local jars=("$dest"/*.jar)
  it_log "${#jars[@]} jars in $dest"
}

# it_port_open HOST PORT: true when something accepts TCP connections.
it_port_open() {
  (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

# it_pid_alive PIDFILE PATTERN prints the pid when the process in PIDFILE is
# alive and its command line contains PATTERN (guards against pid reuse).
it_pid_alive() {
  local pidfile="$1" pattern="$2" pid
  [[ -f "$pidfile" ]] || return 1
  pid="$(cat "$pidfile")"
  [[ -n "$pid" && -r "/proc/$pid/cmdline" ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$pattern" || return 1
  echo "$pid"
}

# it_stop_pid PIDFILE PATTERN TIMEOUT: SIGTERM, wait, then SIGKILL.
it_stop_pid() {
  local pidfile="$1" pattern="$2" timeout="$3" pid i
  if ! pid="$(it_pid_alive "$pidfile" "$pattern")"; then
    rm -f "$pidfile"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < timeout * 5; i++)); do
    [[ -d "/proc/$pid" ]] || break
    # A zombie (reaped later by its parent) counts as gone.
    [[ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" == Z ]] && break
    sleep 0.2
  done
  if [[ -d "/proc/$pid" && "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]]; then
    it_log "pid $pid ignored SIGTERM for ${timeout}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      [[ -d "/proc/$pid" ]] || break
      sleep 0.1
    done
  fi
  rm -f "$pidfile"
}

# it_rotate_log FILE keeps the previous run's log as FILE.1 so that readiness
# checks grep only the current run's lines.
it_rotate_log() {
  [[ -f "$1" ]] && mv -f "$1" "$1.1"
  return 0
}

# it_rss_mib PID prints the resident set size in MiB.
it_rss_mib() {
  awk '/^VmRSS:/ {printf "%d\n", $2/1024}' "/proc/$1/status" 2>/dev/null
}

# it_run_child CMD [ARGS...] runs CMD in the background (stdin passed on)
# and waits for it, returning its status. INT or TERM while it runs is
# passed on to CMD, then the caller exits 130 or 143 (its EXIT trap stops
# what it started). Background + wait: the traps fire at once.
IT_CHILD=""
it_forward_signal() {
  if [[ -n "$IT_CHILD" ]]; then
    kill -"$1" "$IT_CHILD" 2>/dev/null
    wait "$IT_CHILD" 2>/dev/null
  fi
  exit "$2"
}
it_run_child() {
  trap 'it_forward_signal INT 130' INT
  trap 'it_forward_signal TERM 143' TERM
  "$@" <&0 &
  IT_CHILD=$!
  local rc=0
  wait "$IT_CHILD" || rc=$?
  IT_CHILD=""
  return "$rc"
}

# it_zk_ruok PORT prints ZooKeeper's answer to the four-letter word "ruok"
# on 127.0.0.1:PORT ("imok" when it serves).
it_zk_ruok() {
  timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1 && printf ruok >&3 && cat <&3" 2>/dev/null || true
}
