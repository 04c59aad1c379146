#!/usr/bin/env bash
# relay-peers.sh CASSANDRA_HOST:PORT [options]
# relay-peers.sh --build-peers [--targets "cql-proxy zdm-proxy"]
#
# dohyo's Cassandra relay side by side with two peer proxies, in one run
# against the same real Cassandra: direct (no proxy), dohyo (capture off),
# dohyo-capture (capture on, into a temp dir), zdm-proxy (origin and target
# both this Cassandra, so it writes every update twice) and cql-proxy. The
# YCSB workloads (bench/ycsb, DataStax Java driver, prepared statements) run
# on records loaded once; every (threads, workload) cell runs each target
# once per round, in an order that rotates round by round, so drift on a
# shared machine hits every target alike. Reported per cell and target
# (medians over the rounds): throughput, p50/p99 per operation, and the
# proxy's CPU per 1,000 requests (utime+stime of the proxy process from
# /proc/PID/stat around the run phase, over the operations YCSB counted);
# also Cassandra's CPU per 1,000 requests when its PID is found (shared
# servers: other users' load shows up there). Output: a Markdown table on
# stdout and in OUT/result.md, every YCSB output in OUT.
#
#   --rounds R        rounds (default 3)
#   --ops N           operations per run phase (default 20000)
#   --records N       records loaded once (default 10000)
#   --threads "T ..." client thread counts (default "8 32")
#   --workloads "W .." YCSB workloads (default "a c")
#   --targets "X ..." subset of: direct dohyo dohyo-capture dohyo-base zdm-proxy
#                     cql-proxy (dohyo-base: the binary DOHYO_BASE_BIN, capture
#                     off, e.g. an older commit's, side by side with this one)
#   --keyspace K      keyspace for the records (default relay_ycsb)
#   --build-peers     (first, instead of CASSANDRA_HOST:PORT) only build the
#                     peers of --targets into bench/out/peers-bin and exit
#                     (cmd/dohyo's BenchmarkProcessesPointOps runs that
#                     cql-proxy)
#   --taskset         pin the proxies to CPU 0 and Cassandra to CPU 1 (needs
#                     Cassandra's PID: found by its port, or CASSANDRA_PID);
#                     Cassandra's affinity is restored on exit. The YCSB
#                     client is not pinned unless --client-cpu says so.
#   --client-cpu N    run the YCSB client on CPU N (taskset), for every
#                     target alike; with --taskset, N=1 puts it beside
#                     Cassandra, so the proxies have CPU 0 to themselves
#
# How the peers are built (from source, fetched as any Go dependency is,
# through the Go module proxy; binaries cached in bench/out/peers-bin):
#   cql-proxy:  `go mod download -json github.com/datastax/cql-proxy@v0.2.0`
#               then `go build` in the module directory it prints (`go
#               install module@version` needs the module's version list for
#               its deprecation check, which some proxies refuse).
#   zdm-proxy:  its go.mod says `module github.com/datastax/zdm-proxy`
#               while its tags are v2.x, so the module proxy knows it only by
#               pseudo-version: v2.4.2 is commit e980d0173668 (ZDM_VERSION,
#               default v0.0.0-20260427163856-e980d0173668); downloaded and
#               built as cql-proxy is (package ./proxy). Where the module
#               proxy refuses it, ZDM_PROXY_SRC=DIR builds from a checkout of
#               that tag instead (its dependencies still come from the module
#               proxy); without either, zdm-proxy is skipped with a warning.
# Environment: YCSB_LIB (see bench/ycsb/run.sh), CQL_PROXY_VERSION,
# ZDM_VERSION, ZDM_PROXY_SRC, CASSANDRA_PID, DOHYO_BIN (a dohyo binary to
# measure instead of building this tree's, e.g. an older commit's).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
build_only=0 cass=""
if [[ "${1:-}" == --build-peers ]]; then
  build_only=1
  shift
else
  [[ $# -ge 1 && "$1" != -* ]] || { sed -n '2,/^set -eu/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; exit 2; }
  cass="$1"
  shift
fi
rounds=3 ops=20000 records=10000 threads="8 32" workloads="a c" keyspace=relay_ycsb pin=0 client_cpu=""
targets="direct dohyo dohyo-capture zdm-proxy cql-proxy"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift ;;
    --ops) ops="$2"; shift ;;
    --records) records="$2"; shift ;;
    --threads) threads="$2"; shift ;;
    --workloads) workloads="$2"; shift ;;
    --targets) targets="$2"; shift ;;
    --keyspace) keyspace="$2"; shift ;;
    --taskset) pin=1 ;;
    --client-cpu) client_cpu="$2"; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
chost="${cass%:*}" cport="${cass##*:}"
out="$root/bench/out/relay-peers-$(date +%Y%m%d-%H%M%S)"
bin="$root/bench/out/peers-bin"
mkdir -p "$bin"
[[ $build_only == 1 ]] || mkdir -p "$out"
log() { echo "relay-peers: $*" >&2; }

# --- build -----------------------------------------------------------------
cql_version="${CQL_PROXY_VERSION:-v0.2.0}"
zdm_version="${ZDM_VERSION:-v0.0.0-20260427163856-e980d0173668}"
# build_module MODULE VERSION PKG OUT: download the module, build PKG in it.
build_module() {
  local dir
  [[ -x "$4" && -f "$4.version" && "$(cat "$4.version")" == "$2" ]] && return 0
  dir="$(cd "$bin" && GOFLAGS=-mod=mod go mod download -json "$1@$2" 2>/dev/null | awk -F'"' '$2 == "Dir" { print $4 }')" || true
  [[ -n "$dir" && -d "$dir" ]] || return 1
  (cd "$dir" && go build -o "$4" "$3") && echo "$2" >"$4.version"
}
if [[ $build_only == 1 ]]; then
  rc=0
  for t in $targets; do
    case "$t" in
      cql-proxy) build_module github.com/datastax/cql-proxy "$cql_version" . "$bin/cql-proxy" || { log "cannot build cql-proxy@$cql_version"; rc=1; } ;;
      zdm-proxy) build_module github.com/datastax/zdm-proxy "$zdm_version" ./proxy "$bin/zdm-proxy" ||
        { [[ -n "${ZDM_PROXY_SRC:-}" ]] && (cd "$ZDM_PROXY_SRC" && go build -o "$bin/zdm-proxy" ./proxy); } ||
        { log "cannot build zdm-proxy (module proxy refused $zdm_version; set ZDM_PROXY_SRC)"; rc=1; } ;;
    esac
  done
  ls -l "$bin" >&2
  exit "$rc"
fi
if [[ -n "${DOHYO_BIN:-}" ]]; then cp "$DOHYO_BIN" "$out/dohyo"; else (cd "$root" && go build -o "$out/dohyo" ./cmd/dohyo); fi
want=""
for t in $targets; do
  case "$t" in
    cql-proxy)
      if build_module github.com/datastax/cql-proxy "$cql_version" . "$bin/cql-proxy"; then want+=" $t"
      else log "cannot build cql-proxy@$cql_version: skipped"; fi ;;
    zdm-proxy)
      if build_module github.com/datastax/zdm-proxy "$zdm_version" ./proxy "$bin/zdm-proxy"; then want+=" $t"
      elif [[ -n "${ZDM_PROXY_SRC:-}" ]] && (cd "$ZDM_PROXY_SRC" && go build -o "$bin/zdm-proxy" ./proxy); then want+=" $t"
      else log "cannot build zdm-proxy (module proxy refused $zdm_version; set ZDM_PROXY_SRC): skipped"; fi ;;
    direct | dohyo | dohyo-capture) want+=" $t" ;;
    dohyo-base)
      [[ -x "${DOHYO_BASE_BIN:-}" ]] || { log "dohyo-base needs DOHYO_BASE_BIN, an executable dohyo"; exit 2; }
      cp "$DOHYO_BASE_BIN" "$out/dohyo-base"
      want+=" $t" ;;
    *) log "unknown target $t"; exit 2 ;;
  esac
done
targets="${want# }"

# --- start -----------------------------------------------------------------
pids=()
cass_pid="${CASSANDRA_PID:-$(ss -Hltnp "sport = :$cport" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)}"
cass_mask=""
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [[ -n "$cass_mask" ]]; then taskset -a -p "$cass_mask" "$cass_pid" >/dev/null || true; fi
}
trap cleanup EXIT
pinned=()
[[ $pin == 1 ]] && pinned=(taskset -c 0)
if [[ $pin == 1 ]]; then
  [[ -n "$cass_pid" ]] || { log "--taskset: Cassandra's PID not found (set CASSANDRA_PID)"; exit 2; }
  cass_mask="$(taskset -p "$cass_pid" | awk '{print $NF}')"
  taskset -a -p -c 1 "$cass_pid" >/dev/null
  log "Cassandra (pid $cass_pid) pinned to CPU 1, proxies to CPU 0"
fi

declare -A addr pid
addr[direct]="$cass"
wait_port() { # port pid
  for _ in $(seq 300); do
    (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
port=19400
for t in $targets; do
  port=$((port + 1))
  case "$t" in
    direct) continue ;;
    dohyo | dohyo-capture | dohyo-base)
      cap=()
      [[ $t == dohyo-capture ]] && cap=(--capture-dir "$out/capture")
      exe="$out/dohyo"
      [[ $t == dohyo-base ]] && exe="$out/dohyo-base"
      "${pinned[@]}" "$exe" serve --backend "cassandra://$cass" --cql-addr "127.0.0.1:$port" \
        --http-addr 127.0.0.1:0 --log-level warn "${cap[@]}" >"$out/$t.log" 2>&1 &
      ;;
    cql-proxy)
      "${pinned[@]}" "$bin/cql-proxy" --contact-points "$chost" --port "$cport" \
        --bind "127.0.0.1:$port" >"$out/$t.log" 2>&1 &
      ;;
    zdm-proxy)
      ZDM_ORIGIN_CONTACT_POINTS="$chost" ZDM_ORIGIN_PORT="$cport" ZDM_TARGET_CONTACT_POINTS="$chost" \
        ZDM_TARGET_PORT="$cport" ZDM_ORIGIN_USERNAME=cassandra ZDM_ORIGIN_PASSWORD=cassandra \
        ZDM_TARGET_USERNAME=cassandra ZDM_TARGET_PASSWORD=cassandra ZDM_PROXY_LISTEN_ADDRESS=127.0.0.1 \
        ZDM_PROXY_LISTEN_PORT="$port" ZDM_METRICS_ENABLED=false ZDM_LOG_LEVEL=WARN \
        "${pinned[@]}" "$bin/zdm-proxy" >"$out/$t.log" 2>&1 &
      ;;
  esac
  pids+=($!)
  pid[$t]=$!
  addr[$t]="127.0.0.1:$port"
  wait_port "$port" "$!" || { log "$t did not start:"; tail -20 "$out/$t.log" >&2; exit 1; }
done
log "targets: $(for t in $targets; do printf '%s=%s ' "$t" "${addr[$t]}"; done)"

export YCSB_LIB="${YCSB_LIB:-$("$root/it/ycsb/setup.sh" -p)}"
ycsb=("$root/bench/ycsb/run.sh")
[[ -n "$client_cpu" ]] && ycsb=(taskset -c "$client_cpu" "${ycsb[@]}")
pct=(-p hdrhistogram.percentiles=50,99)
log "loading $records records into $keyspace (directly)"
"${ycsb[@]}" "$cass" --workloads a --phases load --records "$records" --ops 1 --threads 8 \
  --keyspace "$keyspace" --out "$out/load" >/dev/null

# cputicks PID: utime+stime of the process (all its threads), in clock ticks.
cputicks() { [[ -n "$1" && -r "/proc/$1/stat" ]] && awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" || echo ""; }
hz="$(getconf CLK_TCK)"

# --- rounds ----------------------------------------------------------------
read -r -a tl <<<"$targets"
: >"$out/rows.txt"
for r in $(seq "$rounds"); do
  for th in $threads; do
    for w in $workloads; do
      n=${#tl[@]}
      for i in $(seq 0 $((n - 1))); do
        t="${tl[$(((i + r - 1) % n))]}" # rotate the order round by round
        dir="$out/$t-$w-$th-$r"
        p0="$(cputicks "${pid[$t]:-}")" c0="$(cputicks "$cass_pid")"
        "${ycsb[@]}" "${addr[$t]}" --workloads "$w" --phases run --records "$records" --ops "$ops" \
          --threads "$th" --keyspace "$keyspace" --out "$dir" "${pct[@]}" >/dev/null 2>"$dir.err" ||
          { log "$t $w $th round $r FAILED:"; cat "$dir.err" >&2; exit 1; }
        p1="$(cputicks "${pid[$t]:-}")" c1="$(cputicks "$cass_pid")"
        awk -F', ' -v t="$t" -v w="$w" -v th="$th" -v hz="$hz" -v p0="$p0" -v p1="$p1" -v c0="$c0" -v c1="$c1" '
          $1 == "[OVERALL]" && $2 == "Throughput(ops/sec)" { tput = $3 }
          $1 ~ /^\[(READ|UPDATE)\]$/ && $2 == "Operations" { n += $3; ops[$1] = 1 }
          $1 ~ /^\[(READ|UPDATE)\]$/ && $2 == "50thPercentileLatency(us)" { p50[$1] = $3 }
          $1 ~ /^\[(READ|UPDATE)\]$/ && $2 == "99thPercentileLatency(us)" { p99[$1] = $3 }
          END {
            pc = p0 == "" ? "-" : sprintf("%.1f", (p1 - p0) / hz * 1e6 / n)  # us per request = ms per 1,000
            cc = c0 == "" ? "-" : sprintf("%.1f", (c1 - c0) / hz * 1e6 / n)
            for (op in ops) print w, th, t, substr(op, 2, length(op) - 2), tput, p50[op], p99[op], pc, cc
          }' "$dir/workload$w-run.txt" >>"$out/rows.txt"
        log "round $r, $th threads, workload $w, $t: $(awk -v t="$t" -v w="$w" -v th="$th" '$1 == w && $2 == th && $3 == t { x = $5 " ops/s, proxy CPU " $8 " ms/1000 req" } END { print x }' "$out/rows.txt")"
      done
    done
  done
done

# --- report ----------------------------------------------------------------
{
  echo "| workload | threads | target | op | ops/s | vs direct | p50 ms | p99 ms | proxy CPU ms/1000 req | Cassandra CPU ms/1000 req |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  awk -v order="$targets" '
    function median(s,   a, n, i, j, t) {
      n = split(s, a, " ")
      if (n == 0 || a[1] == "-") return "-"
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    { k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4; keys[k] = 1
      tput[k] = tput[k] " " $5; p50[k] = p50[k] " " $6; p99[k] = p99[k] " " $7; pc[k] = pc[k] " " $8; cc[k] = cc[k] " " $9 }
    END {
      nt = split(order, to, " ")
      for (k in keys) {
        split(k, kk, SUBSEP)
        for (i = 1; i <= nt; i++) if (to[i] == kk[3]) rank = i
        d = kk[1] SUBSEP kk[2] SUBSEP "direct" SUBSEP kk[4]
        rel = (d in keys) ? sprintf("%.2f", median(tput[k]) / median(tput[d])) : "-"
        m = median(pc[k]); c = median(cc[k])
        printf "%s %03d %d %s| %s | %s | %s | %s | %.0f | %s | %.2f | %.1f | %s | %s |\n", kk[1], kk[2], rank, kk[4],
          toupper(kk[1]), kk[2], kk[3], kk[4], median(tput[k]), rel, median(p50[k]) / 1000, median(p99[k]) / 1000,
          m == "-" ? "-" : sprintf("%.1f", m), c == "-" ? "-" : sprintf("%.1f", c)
      }
    }' "$out/rows.txt" | sort | sed 's/^[^|]*|/|/'
} | tee "$out/result.md"
echo "($rounds rounds, $records records, $ops ops per run, threads $threads, taskset $pin, client CPU ${client_cpu:-any}; outputs in $out)" | tee -a "$out/result.md"
