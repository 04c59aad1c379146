#!/usr/bin/env bash
# hbase-native.sh [ZK_HOST:PORT] [--records N] [--ops N] [--threads T] [--rounds R] [--warmup W] [--target OPS]
#                 [--pin | --own-core] [--floor]
#                 [--encoding FAST_DIFF|NONE|...]
#
# YCSB 0.17's own HBase 2 binding (site.ycsb.db.hbase20.HBaseClient20)
# against HBase directly, next to YCSB's CQL workload through
# `dohyo serve --backend hbase://ZK?salt=8` (dohyo's binding, bench/ycsb),
# on the same HBase with the same records and threads: per round each
# target loads its table and runs workloads A and C; the targets alternate
# round by round (the first target changes every round). Reported per
# phase (medians over the rounds): throughput, p50/p99, and CPU per 1,000
# requests of dohyo, of HBase and of the YCSB client JVM, from
# /proc/PID/stat (dohyo, HBase) and the client's rusage. --pin runs dohyo
# on CPU 1 and both YCSB clients on CPU 0 (taskset; HBase is left alone).
# --own-core gives dohyo a core of its own: dohyo on CPU 1, HBase (all its
# threads, restored on exit) and both YCSB clients on CPU 0, for the native
# and the CQL rounds alike.
# --floor adds a third target per round: the same CQL workloads through
# bench/relayfloor, a relay that only moves bytes, in front of dohyo. Its
# CPU per request is what a proxy pays for two sockets per request alone
# (system calls, loopback TCP, the runtime's poller and scheduler), the
# floor under dohyo's own figure. With --pin or --own-core the relay runs
# on CPU 1 and dohyo moves to CPU 0 for those phases, so that both of the
# relay's peers (YCSB and dohyo) are on the other core, as dohyo's (YCSB
# and HBase) are in its own phases. Its throughput is not a result (dohyo
# then shares a core with HBase and YCSB).
# A second table gives HBase's read and write system calls, the bytes they
# moved and its context switches per 1,000 requests (/proc/PID/io and
# /proc/PID/task/*/status; Java's socket reads are recv calls, which
# /proc/PID/io does not count, so "reads" are mostly file reads).
# --warmup W runs W rounds of both targets first and leaves them out of the
# figures (their rows are in OUT/warmup.txt): a freshly started HBase's JIT
# makes its first rounds 2-5x costlier per request, and it was still
# getting cheaper in a third round (5 December 2026).
# --target OPS paces both YCSB clients to OPS operations per second (YCSB's
# -target): HBase's cost per request behind either client at the same
# offered load (unpaced, the native client keeps HBase's core saturated
# and HBase then spends about half as much per read as at a paced rate).
# Defaults: ZooKeeper 127.0.0.1:2181, 10000 records, 20000 ops, 8 threads,
# 2 rounds, 1 warm-up round. Markdown tables in OUT/result.md (bench/out/hbase-native-TIME).
#
# YCSB's HBase 2 binding is not published to Maven Central (only
# site.ycsb:core is), so its source comes from YCSB's own repository on
# GitHub, the 0.17.0 tag (brianfrankcooper/YCSB): set YCSB_SRC to a clone
# of it (a work tree or a bare git directory). The two files of the binding
# (hbase10/.../HBaseClient10.java and hbase20/.../HBaseClient20.java, which
# only extends it) are taken from the tag 0.17.0 unchanged and compiled
# with javac against site.ycsb:core 0.17.0 (it/ycsb/setup.sh) and the HBase
# 2.6 client jars that it/hbase/run.sh install resolves from Maven Central.
# The native table (HBase's default namespace, spd_native_usertable, family
# "family") is pre-split into 8 regions like dohyo's salt=8 tables
# (bench/hbasenative), and both tables get the same data block encoding,
# --encoding (default FAST_DIFF, dohyo's default; before 4 December 2026
# the native table had HBase's default, NONE, and HBase spent ~1.5x the
# CPU per read behind dohyo). HBase's CPU is that of the process listening on the
# ZooKeeper port (a standalone HBase: master, region server and ZooKeeper in
# one JVM) less its idle rate, measured at the start and again after the
# warm-up rounds (the lower of the two); the per-round table also gives
# dohyo's figure less dohyo's own idle rate (what it spent during the
# round's native phase, which it does not serve); each phase
# starts once HBase has settled back to that rate (at most 30 s), so that
# flushes, compactions and table re-creations left over from before are
# not counted in it. Before 5 December 2026 the rate of the 3 s right
# before each phase was subtracted instead, and such leftovers in those
# 3 s moved HBase's figure by 2-4x between rounds. On a shared HBase the
# other clients' load still varies during a phase, so use a private HBase
# (it/hbase/run.sh with HBASE_ZK_PORT and friends) for clean CPU figures.
# Needs Java 17, Maven, Go, taskset for --pin.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=median.sh
source "$here/median.sh"
root="$(cd "$here/.." && pwd)"
usage() { sed -n '2,/^set -eu/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; exit 2; }
zk=127.0.0.1:2181
if [[ $# -ge 1 && "$1" != -* ]]; then zk="$1"; shift; fi
records=10000 ops=20000 threads=8 rounds=2 warmup=1 target=0 pin=0 encoding=FAST_DIFF floor=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --records) records="$2"; shift ;;
    --ops) ops="$2"; shift ;;
    --threads) threads="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    --warmup) warmup="$2"; shift ;;
    --target) target="$2"; shift ;;
    --pin) pin=1 ;;
    --own-core) pin=2 ;;
    --floor) floor=1 ;;
    --encoding) encoding="$2"; shift ;;
    *) usage ;;
  esac
  shift
done
[[ -n "${YCSB_SRC:-}" ]] || { echo "hbase-native.sh: set YCSB_SRC to a clone of YCSB (tag 0.17.0); see the header" >&2; exit 2; }
zkhost="${zk%:*}" zkport="${zk##*:}"
out="$root/bench/out/hbase-native-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out/src" "$out/classes" "$out/conf"

# shellcheck source=../it/lib.sh
source "$root/it/lib.sh"
java="$(it_java)"
javac="$(dirname "$java")/javac"
[[ -x "$javac" ]] || javac="$(it_jdk17_home javac)/bin/javac"
export YCSB_LIB="${YCSB_LIB:-$("$root/it/ycsb/setup.sh" -p)}"
"$root/it/hbase/run.sh" install >/dev/null
hbase_version="$(sed -n 's:.*<hbase.version>\(.*\)</hbase.version>.*:\1:p' "$root/it/hbase/pom.xml")"
hbase_lib="$IT_CACHE/hbase-$hbase_version/lib"
[[ -d "$hbase_lib" ]] || { echo "no HBase client jars in $hbase_lib" >&2; exit 1; }

# The binding's source, unchanged, from the tag.
files=(hbase10/src/main/java/site/ycsb/db/HBaseClient10.java hbase20/src/main/java/site/ycsb/db/hbase20/HBaseClient20.java)
gitdir="$YCSB_SRC"
[[ -d "$YCSB_SRC/.git" ]] && gitdir="$YCSB_SRC/.git"
for f in "${files[@]}"; do
  mkdir -p "$out/src/$(dirname "$f")"
  git --git-dir="$gitdir" show "0.17.0:$f" >"$out/src/$f"
done
"$javac" -nowarn -d "$out/classes" -cp "$YCSB_LIB/core-0.17.0.jar:$hbase_lib/*" "${files[@]/#/$out/src/}" 2>"$out/javac.log" ||
  { cat "$out/javac.log" >&2; exit 1; }
cat >"$out/conf/hbase-site.xml" <<XML
<configuration>
  <property><name>hbase.zookeeper.quorum</name><value>$zkhost</value></property>
  <property><name>hbase.zookeeper.property.clientPort</name><value>$zkport</value></property>
</configuration>
XML
cat >"$out/conf/log4j2.properties" <<'PROPS'
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = STDERR
appender.console.type = Console
appender.console.name = STDERR
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d %p %c: %m%n
PROPS

(cd "$root" && go build -o "$out/dohyo" ./cmd/dohyo && go build -o "$out/hbasenative" ./bench/hbasenative &&
  go build -o "$out/relayfloor" ./bench/relayfloor)
serve_pin=() client_pin=()
if [[ $pin != 0 ]]; then serve_pin=(taskset -c 1) client_pin=(taskset -c 0); fi
hbase_pid="$(ss -Hltnp "sport = :$zkport" | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1)"
[[ -n "$hbase_pid" ]] || { echo "no process listening on ZooKeeper port $zkport (HBase standalone)" >&2; exit 1; }
hbase_mask="" relay=""
"${serve_pin[@]}" "$out/dohyo" serve --backend "hbase://$zk?salt=8&catalog=spd_native_catalog&encoding=$encoding" \
  --cql-addr 127.0.0.1:0 --http-addr 127.0.0.1:0 >"$out/serve.out" 2>"$out/serve.log" &
serve=$!
cleanup() {
  kill $serve 2>/dev/null; wait $serve 2>/dev/null || true
  if [[ -n "$relay" ]]; then kill "$relay" 2>/dev/null; wait "$relay" 2>/dev/null || true; fi
  if [[ -n "$hbase_mask" ]]; then taskset -a -p "$hbase_mask" "$hbase_pid" >/dev/null || true; fi
}
trap cleanup EXIT
if [[ $pin == 2 ]]; then
  hbase_mask="$(taskset -p "$hbase_pid" | awk '{print $NF}')"
  taskset -a -p -c 0 "$hbase_pid" >/dev/null
fi
cql=""
for _ in $(seq 600); do
  cql="$(awk '$1 == "CQL:" { print $2 }' "$out/serve.out")"
  [[ -n "$cql" ]] && break
  kill -0 $serve 2>/dev/null || { cat "$out/serve.log" >&2; exit 1; }
  sleep 0.1
done
[[ -n "$cql" ]] || { echo "dohyo serve did not start" >&2; exit 1; }
echo "native: HBase (pid $hbase_pid) via ZooKeeper $zk; cql: dohyo serve (pid $serve) on $cql" >&2
relay_addr=""
if [[ $floor == 1 ]]; then
  "${serve_pin[@]}" "$out/relayfloor" -to "$cql" >"$out/relay.out" 2>"$out/relay.log" &
  relay=$!
  for _ in $(seq 100); do
    relay_addr="$(awk '$1 == "relay:" { print $2 }' "$out/relay.out")"
    [[ -n "$relay_addr" ]] && break
    kill -0 "$relay" 2>/dev/null || { cat "$out/relay.log" >&2; exit 1; }
    sleep 0.1
  done
  [[ -n "$relay_addr" ]] || { echo "relayfloor did not start" >&2; exit 1; }
  echo "floor: bench/relayfloor (pid $relay) on $relay_addr in front of dohyo" >&2
fi

ticks="$(getconf CLK_TCK)"
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# hio PID: read and write system calls and the bytes they moved (sockets,
# WAL and store files alike), then context switches summed over threads.
hio() {
  awk '$1 == "syscr:" || $1 == "syscw:" || $1 == "rchar:" || $1 == "wchar:" { printf "%s ", $2 }' "/proc/$1/io"
  # (a thread may end between the glob and cat: not an error here)
  { cat /proc/"$1"/task/*/status 2>/dev/null || true; } | awk '/^(non)?voluntary_ctxt_switches/ { s += $2 } END { print s }'
}
jopts=(-Xms256m -Xmx512m -XX:+UseSerialGC -Dorg.slf4j.simpleLogger.defaultLogLevel=warn
  -Dlog4j2.configurationFile="$out/conf/log4j2.properties")
# site.ycsb:core and its own dependencies (not dohyo's binding and driver).
native_cp="$out/conf:$out/classes:$hbase_lib/*"
for j in core-0.17.0 HdrHistogram-2.1.12 htrace-core4-4.1.0-incubating jackson-core-asl-1.9.4 jackson-mapper-asl-1.9.4; do
  [[ -f "$YCSB_LIB/$j.jar" ]] || { echo "no $j.jar in $YCSB_LIB" >&2; exit 1; }
  native_cp+=":$YCSB_LIB/$j.jar"
done
cql_cp="$YCSB_LIB/*"
ycsb_props=(-p "recordcount=$records" -p "operationcount=$ops" -p hdrhistogram.percentiles=50,95,99 -threads "$threads")
if [[ $target != 0 ]]; then ycsb_props+=(-target "$target"); fi

# HBase's idle CPU (its own chores, dohyo's tier polls, other clients of a
# shared HBase), in ticks per 5 s, measured before the first phase (and
# again after the warm-up, below); each phase's HBase CPU is less this
# rate over the phase.
# idle_rate prints HBase's CPU ticks over 5 s.
idle_rate() {
  local a
  a="$(cpu "$hbase_pid")"
  sleep 5
  echo "$(( $(cpu "$hbase_pid") - a ))"
}
idle="$(idle_rate)"
# settle waits (at most 30 s) until HBase's CPU over a second is within 3
# ticks of its idle rate, so that work left by the previous phase or by a
# table's re-creation (flushes, compactions, procedures) is counted in no
# phase, rather than in the next one; a phase's own lagging work is
# counted in none either, which can only lower HBase's figure.
settle() {
  local a b
  for _ in $(seq 30); do
    a="$(cpu "$hbase_pid")"
    sleep 1
    b="$(cpu "$hbase_pid")"
    (( (b - a) * 5 <= idle + 15 )) && return 0
  done
  echo "HBase did not settle in 30 s (last second: $(( b - a )) ticks, idle $idle per 5 s)" >&2
}

# phase TARGET ROUND NAME YCSB-ARGS...: runs one YCSB JVM and appends one
# row: target round phase ops/s p50 p99 proxy-cpu-s hbase-cpu-s client-cpu-s ops,
# where the proxy is the process $proxy names (dohyo, or the relay).
proxy=$serve
phase() {
  local target="$1" r="$2" name="$3"
  shift 3
  local f="$out/$target-$r-$name.txt" d0 h0 d1 h1 client t0 t1 io0 io1
  settle
  d0="$(cpu "$proxy")" h0="$(cpu "$hbase_pid")" t0="$(date +%s%N)" io0="$(hio "$hbase_pid")"
  ( rc=0; "${client_pin[@]}" timeout -k 10 900 "$java" "${jopts[@]}" "$@" "${ycsb_props[@]}" >"$f" 2>&1 || rc=$?
    times >"$f.times"; exit $rc ) ||
    { echo "$target $name failed: $f" >&2; tail -20 "$f" >&2; exit 1; }
  d1="$(cpu "$proxy")" h1="$(cpu "$hbase_pid")" t1="$(date +%s%N)" io1="$(hio "$hbase_pid")"
  h1="$(( h1 - idle * (t1 - t0) / 5000000000 ))"
  # `times`: second line is the children's user and system time (XmY.Zs).
  client="$(sed -n 2p "$f.times" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } print s }')"
  if grep -q 'Return=\(ERROR\|NOT_FOUND\)\|FAILED' "$f" || ! grep -q '^\[OVERALL\], Throughput' "$f"; then
    echo "$target $name: errors in $f" >&2
    grep 'Return=\(ERROR\|NOT_FOUND\)\|FAILED' "$f" >&2
    exit 1
  fi
  awk -F', ' -v t="$target" -v r="$r" -v p="$name" -v dc="$(( d1 - d0 ))" -v hc="$(( h1 - h0 ))" -v cc="$client" -v hz="$ticks" '
    $1 == "[OVERALL]" && $2 == "Throughput(ops/sec)" { tput = $3 }
    $1 ~ /^\[(READ|UPDATE|INSERT)\]$/ && $2 == "Operations" { n += $3 }
    $1 ~ /^\[(READ|UPDATE|INSERT)\]$/ && $2 == "50thPercentileLatency(us)" { if ($3 > p50) p50 = $3 }
    $1 ~ /^\[(READ|UPDATE|INSERT)\]$/ && $2 == "99thPercentileLatency(us)" { if ($3 > p99) p99 = $3 }
    END { printf "%s %s %s %s %s %s %.3f %.3f %.3f %d", t, r, p, tput, p50, p99, dc / hz, hc / hz, cc, n }' "$f" >>"$rows"
  # HBase's read/write calls, bytes read/written and context switches in
  # the phase (not corrected for background: counts, not a rate).
  # Then the phase's wall time in seconds (JVM start included, as in the
  # CPU figures).
  awk -v a="$io0" -v b="$io1" -v w="$(( (t1 - t0) / 1000000 ))" 'BEGIN { split(a, x, " "); split(b, y, " ")
    for (i = 1; i <= 5; i++) printf " %d", y[i] - x[i]; printf " %.3f\n", w / 1000 }' >>"$rows"
}

native() {
  local r="$1"
  "$out/hbasenative" -zk "$zk" -table spd_native_usertable -family family -encoding "$encoding"
  local common=(-cp "$native_cp" site.ycsb.Client -db site.ycsb.db.hbase20.HBaseClient20
    -p table=spd_native_usertable -p columnfamily=family)
  phase native "$r" load "${common[@]}" -load -P "$root/bench/ycsb/workloads/workloada"
  phase native "$r" a "${common[@]}" -t -P "$root/bench/ycsb/workloads/workloada"
  phase native "$r" c "${common[@]}" -t -P "$root/bench/ycsb/workloads/workloadc"
}

# cqlrun ROUND [TARGET ADDR]: YCSB's CQL workloads against dohyo, or
# through the relay at ADDR (target "relay").
cqlrun() {
  local r="$1" target="${2:-cql}" addr="${3:-$cql}" ks=spd_native_cql
  local common=(-p "cassandra.hosts=$addr" -p "cassandra.keyspace=$ks")
  timeout -k 10 600 "$java" "${jopts[@]}" -cp "$cql_cp" dohyo.ycsb.Setup "${common[@]}" -truncate >"$out/$target-$r-setup.txt" 2>&1 ||
    { cat "$out/$target-$r-setup.txt" >&2; exit 1; }
  common=(-cp "$cql_cp" site.ycsb.Client -db dohyo.ycsb.CqlClient "${common[@]}")
  phase "$target" "$r" load "${common[@]}" -load -P "$root/bench/ycsb/workloads/workloada"
  phase "$target" "$r" a "${common[@]}" -t -P "$root/bench/ycsb/workloads/workloada"
  phase "$target" "$r" c "${common[@]}" -t -P "$root/bench/ycsb/workloads/workloadc"
}

# floorrun ROUND: cqlrun through the relay, whose CPU is the figure; with
# pinning, dohyo moves to CPU 0 meanwhile (the relay is on CPU 1).
floorrun() {
  [[ $floor == 1 ]] || return 0
  if [[ $pin != 0 ]]; then taskset -a -p -c 0 "$serve" >/dev/null; fi
  proxy=$relay
  cqlrun "$1" relay "$relay_addr"
  proxy=$serve
  if [[ $pin != 0 ]]; then taskset -a -p -c 1 "$serve" >/dev/null; fi
}

: >"$out/warmup.txt"
rows="$out/warmup.txt"
for r in $(seq "$warmup"); do
  native "w$r"; cqlrun "w$r"
  echo "warm-up round $r done" >&2
done
# A region server started shortly before still does start-up work during
# the first measurement; its rate is subtracted from every phase, which
# left HBase at less than nothing per request (5 December 2026). After the
# warm-up the rate is measured again and the lower of the two kept.
if (( warmup > 0 )); then
  settle
  again="$(idle_rate)"
  echo "HBase idle: $idle ticks per 5 s before the warm-up, $again after; the lower is subtracted" >&2
  if (( again < idle )); then idle="$again"; fi
fi
rows="$out/rows.txt"
: >"$rows"
for r in $(seq "$rounds"); do
  if (( r % 2 )); then native "$r"; cqlrun "$r"; else cqlrun "$r"; native "$r"; fi
  floorrun "$r"
  echo "round $r done" >&2
done

{
  echo "| phase | target | ops/s | ratio to native | p50 ms | p99 ms | dohyo (relay: relay's) CPU ms / 1000 req | HBase CPU ms / 1000 req | YCSB client CPU ms / 1000 req |"
  echo "|---|---|---|---|---|---|---|---|---|"
  awk "$awk_median"'
    { k = $3 SUBSEP $1; tput[k] = tput[k] " " $4; p50[k] = p50[k] " " $5; p99[k] = p99[k] " " $6
      dc[k] = dc[k] " " ($7 * 1e6 / $10); hc[k] = hc[k] " " ($8 * 1e6 / $10); cc[k] = cc[k] " " ($9 * 1e6 / $10) }
    END {
      split("load a c", ph, " "); split("native cql relay", tg, " ")
      for (i = 1; i <= 3; i++) for (j = 1; j <= 3; j++) {
        k = ph[i] SUBSEP tg[j]; nk = ph[i] SUBSEP "native"
        if (!(k in tput)) continue
        printf "| %s | %s | %.0f | %.2f | %.2f | %.2f | %s | %.0f | %.0f |\n", toupper(ph[i]), tg[j], median(tput[k]),
          median(tput[k]) / median(tput[nk]), median(p50[k]) / 1000, median(p99[k]) / 1000,
          tg[j] != "native" ? sprintf("%.0f", median(dc[k])) : "–", median(hc[k]), median(cc[k])
      }
    }' "$out/rows.txt"
  echo
  echo "HBase per 1,000 requests (medians): read and write system calls, KiB they read and wrote, context switches"
  echo
  echo "| phase | target | reads | writes | KiB read | KiB written | context switches |"
  echo "|---|---|---|---|---|---|---|"
  awk "$awk_median"'
    NF >= 15 { k = $3 SUBSEP $1; m = 1000 / $10
      rc[k] = rc[k] " " ($11 * m / 1024); wc[k] = wc[k] " " ($12 * m / 1024)
      sr[k] = sr[k] " " ($13 * m); sw[k] = sw[k] " " ($14 * m); cs[k] = cs[k] " " ($15 * m) }
    END {
      split("load a c", ph, " "); split("native cql relay", tg, " ")
      for (i = 1; i <= 3; i++) for (j = 1; j <= 3; j++) {
        k = ph[i] SUBSEP tg[j]
        if (!(k in sr)) continue
        printf "| %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f |\n", toupper(ph[i]), tg[j],
          median(sr[k]), median(sw[k]), median(rc[k]), median(wc[k]), median(cs[k])
      }
    }' "$out/rows.txt"
  echo
  echo "Per round: throughput ratio and dohyo's CPU against HBase's behind it (the medians above hide how rounds spread)"
  echo
  echo "| phase | round | native ops/s | cql ops/s | ratio to native | dohyo CPU µs / req | HBase CPU µs / req behind dohyo | HBase CPU µs / req behind native | dohyo / HBase | relay floor µs / req | dohyo less its idle rate µs / req | that / HBase |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  # dohyo's idle rate (CPU seconds per second: its own background work,
  # e.g. the tier's polls) is what it spent during the same round's native
  # phase, which it does not serve; HBase's idle rate is subtracted from
  # HBase's figure (above), the last two columns do the same for dohyo.
  awk '
    { t[$3, $2, $1] = $4; d[$3, $2, $1] = $7 * 1e6 / $10; h[$3, $2, $1] = $8 * 1e6 / $10
      idle[$3, $2, $1] = $7 / $16 }
    END {
      split("load a c", ph, " ")
      for (i = 1; i <= 3; i++) for (r = 1; ((ph[i], r, "cql") in t) && ((ph[i], r, "native") in t); r++) {
        p = ph[i]
        dn = d[p, r, "cql"] - idle[p, r, "native"] * 1e6 / t[p, r, "cql"]
        printf "| %s | %d | %.0f | %.0f | %.2f | %.1f | %.1f | %.1f | %.2f | %s | %.1f | %.2f |\n", toupper(p), r, t[p, r, "native"], t[p, r, "cql"],
          t[p, r, "cql"] / t[p, r, "native"], d[p, r, "cql"], h[p, r, "cql"], h[p, r, "native"], (h[p, r, "cql"] > 0 ? d[p, r, "cql"] / h[p, r, "cql"] : 0),
          ((p, r, "relay") in d) ? sprintf("%.1f", d[p, r, "relay"]) : "–", dn, (h[p, r, "cql"] > 0 ? dn / h[p, r, "cql"] : 0)
      }
    }' "$out/rows.txt"
} | tee "$out/result.md"
echo "($rounds rounds after $warmup warm-up, $records records, $ops ops, $threads threads, target=$target ops/s, pin=$pin, encoding=$encoding, floor=$floor; outputs in $out)" | tee -a "$out/result.md"
