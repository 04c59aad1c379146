#!/usr/bin/env bash
# hbase-ab.sh BASE_DOHYO PATCHED_DOHYO [--zk HOST:PORT] [--threads "4 16"] [--duration 6s] [--rounds 3]
#            [--workload a] [--rate 0] [--salt 4] [--value-size 100] [--pin]
#
# Two dohyo builds side by side over one HBase: one `dohyo serve --backend
# hbase://ZK?salt=SALT&catalog=<own>` per binary (each its own catalog and
# keyspace, 10,000 records of VALUE-SIZE bytes loaded once), driven in turn
# by bench/loadgen (WORKLOAD: a = 50 % reads, 50 % updates, c = reads only;
# RATE ops/s in total, 0 = as fast as it goes) for DURATION per round at
# each thread count, the order of the two alternating from round to round.
# --pin runs both servers on CPU 1 and loadgen on CPU 0 (taskset). Around
# each round the script reads the server's CPU (user + system,
# /proc/PID/stat), read/write system calls (syscr, syscw, /proc/PID/io) and
# context switches (voluntary + involuntary, summed over the process's
# threads in /proc/PID/task/*/status) and the Go allocations it made
# (go_memstats_mallocs_total of its /metrics); it prints one line per round and the
# medians per build and thread count as a Markdown table (also in
# OUT/result.md), with the load average before and after. Built for A/B
# comparisons of the HBase client path (third_party/gohbase) and of the
# request path's I/O; the keyspaces are dropped at the end.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
[[ $# -ge 2 && "$1" != -* ]] || { sed -n '2,/^set -eu/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; exit 2; }
bins=("$(realpath "$1")" "$(realpath "$2")")
names=(base patched)
shift 2
zk=127.0.0.1:2181 threads="4 16" duration=6s rounds=3 workload=a rate=0 salt=4 vsize=100 pin=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --pin) pin=(1); shift; continue ;;
    --workload) workload="$2" ;;
    --rate) rate="$2" ;;
    --salt) salt="$2" ;;
    --value-size) vsize="$2" ;;
    --zk) zk="$2" ;;
    --threads) threads="$2" ;;
    --duration) duration="$2" ;;
    --rounds) rounds="$2" ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
out="$root/bench/out/hbase-ab-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
(cd "$root" && go build -o "$out/loadgen" ./bench/loadgen)

tag="ab$$"
pids=() addrs=() https=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
# on CPU: a command prefix pinning to CPU $1 with --pin, nothing without.
on() { if [[ ${#pin[@]} -gt 0 ]]; then echo "taskset -c $1"; fi; }
for i in 0 1; do
  $(on 1) "${bins[$i]}" serve --backend "hbase://$zk?salt=$salt&catalog=${tag}${names[$i]}" \
    --cql-addr 127.0.0.1:0 --http-addr 127.0.0.1:0 \
    >"$out/serve-${names[$i]}.out" 2>"$out/serve-${names[$i]}.log" &
  pids+=($!)
done
for i in 0 1; do
  a=""
  for _ in $(seq 300); do
    a="$(awk '$1 == "CQL:" { print $2 }' "$out/serve-${names[$i]}.out")"
    [[ -n "$a" ]] && break
    sleep 0.1
  done
  [[ -n "$a" ]] || { echo "${names[$i]}: no CQL address; see $out/serve-${names[$i]}.log" >&2; exit 1; }
  addrs+=("$a")
  https+=("$(awk '$1 == "HTTP:" { print $2 }' "$out/serve-${names[$i]}.out")")
  $(on 0) "$out/loadgen" -hosts "$a" -keyspace "${tag}${names[$i]}" -workload "$workload" -threads 8 \
    -value-size "$vsize" -duration 1s >"$out/load-${names[$i]}.txt" 2>&1
done

# cost PID HTTP: CPU ticks, syscr, syscw, context switches, Go allocations
cost() {
  local ticks
  ticks="$(awk '{ print $14 + $15 }' "/proc/$1/stat")"
  echo "$ticks $(awk '$1 == "syscr:" { r = $2 } $1 == "syscw:" { w = $2 } END { print r, w }' "/proc/$1/io")" \
    "$(cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ { s += $2 } END { print s + 0 }')" \
    "$(curl -s "$2/metrics" | awk '$1 == "go_memstats_mallocs_total" { printf "%.0f", $2 }')"
}
hz="$(getconf CLK_TCK)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/rounds.txt"
for r in $(seq "$rounds"); do
  order=(0 1)
  (( r % 2 == 0 )) && order=(1 0)
  for t in $threads; do
    for i in "${order[@]}"; do
      read -r c0 r0 w0 x0 m0 < <(cost "${pids[$i]}" "${https[$i]}")
      $(on 0) "$out/loadgen" -hosts "${addrs[$i]}" -keyspace "${tag}${names[$i]}" -workload "$workload" \
        -value-size "$vsize" -rate "$rate" \
        -threads "$t" -duration "$duration" -skip-load >"$out/run-$r-$t-${names[$i]}.txt" 2>&1
      read -r c1 r1 w1 x1 m1 < <(cost "${pids[$i]}" "${https[$i]}")
      awk -v n="${names[$i]}" -v t="$t" -v r="$r" -v hz="$hz" \
        -v c="$((c1 - c0))" -v sr="$((r1 - r0))" -v sw="$((w1 - w0))" -v cs="$((x1 - x0))" -v ma="$((m1 - m0))" '
        /\[OVERALL\], RunTime/ { ms = $3 } /\[OVERALL\], Throughput/ { tp = $3 }
        END { ops = tp * ms / 1000; if (ops < 1) ops = 1
          printf "round %d threads %d %s ops/s %.0f cpu-us/op %.1f syscr/op %.2f syscw/op %.2f cswitch/op %.2f allocs/op %.1f\n",
            r, t, n, tp, c * 1e6 / hz / ops, sr / ops, sw / ops, cs / ops, ma / ops }' \
        "$out/run-$r-$t-${names[$i]}.txt" | tee -a "$out/rounds.txt"
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/rounds.txt"

{
  echo "| threads | build | ops/s | dohyo CPU µs/op | read syscalls/op | write syscalls/op | context switches/op | allocations/op |"
  echo "|---|---|---|---|---|---|---|---|"
  for t in $threads; do
    for n in "${names[@]}"; do
      awk -v t="$t" -v n="$n" '$1 == "round" && $4 == t && $5 == n {
          tp[++k] = $7; cpu[k] = $9; sr[k] = $11; sw[k] = $13; cs[k] = $15; al[k] = $17 }
        function med(a, k,   i, j, x) {
          for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
          return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
        END { printf "| %d | %s | %.0f | %.1f | %.2f | %.2f | %.2f | %.1f |\n", t, n, med(tp, k), med(cpu, k), med(sr, k), med(sw, k), med(cs, k), med(al, k) }' \
        "$out/rounds.txt"
    done
  done
} | tee "$out/result.md"

if [[ -n "${DOHYO_TEST_CQLSH:-}" ]]; then
  for i in 0 1; do
    "$DOHYO_TEST_CQLSH" "${addrs[$i]%:*}" "${addrs[$i]##*:}" \
      -e "DROP KEYSPACE IF EXISTS ${tag}${names[$i]}" >/dev/null 2>&1 || true
  done
fi
